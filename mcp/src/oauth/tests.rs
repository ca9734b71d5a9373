use super::{OAuthRefusal, OAuthResource, bearer_of};
use crate::auth::tests::parts;

fn resource() -> OAuthResource {
    OAuthResource::new("http://127.0.0.1:8080/mcp", "http://127.0.0.1:9000")
        .unwrap()
        .require_scope("mcp:tools")
        .unwrap()
}

#[test]
fn the_metadata_url_inserts_the_well_known_name_before_the_path() {
    assert_eq!(resource().metadata_url(), "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp");
    let root = OAuthResource::new("https://tools.example.com/", "https://auth.example.com").unwrap();
    assert_eq!(root.metadata_url(), "https://tools.example.com/.well-known/oauth-protected-resource");
    assert!(super::is_metadata_path("/.well-known/oauth-protected-resource"));
    assert!(super::is_metadata_path("/.well-known/oauth-protected-resource/mcp"));
    assert!(!super::is_metadata_path("/.well-known/oauth-protected-resourcex"));
    assert!(!super::is_metadata_path("/mcp"));
}

#[test]
fn the_metadata_names_the_resource_its_issuer_and_scopes() {
    let doc = resource().metadata();
    assert_eq!(doc["resource"], "http://127.0.0.1:8080/mcp");
    assert_eq!(doc["authorization_servers"], serde_json::json!(["http://127.0.0.1:9000"]));
    assert_eq!(doc["scopes_supported"], serde_json::json!(["mcp:tools"]));
    assert_eq!(doc["bearer_methods_supported"], serde_json::json!(["header"]));
    // That field names algorithms this server would sign its responses with.
    assert!(doc.get("resource_signing_alg_values_supported").is_none(), "{doc}");
}

#[test]
fn the_metadata_is_served_for_this_resource_only() {
    let r = resource();
    for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
        assert!(r.serves_metadata_at("/mcp", path), "{path}");
    }
    for path in ["/.well-known/oauth-protected-resource/other", "/.well-known/oauth-protected-resource/mcp/x"] {
        assert!(!r.serves_metadata_at("/mcp", path), "{path}");
    }
    // Behind a proxy that keeps its public path, both names answer.
    let public = OAuthResource::new("https://tools.example.com/team/mcp", "https://auth.example.com").unwrap();
    assert!(public.serves_metadata_at("/mcp", "/.well-known/oauth-protected-resource/team/mcp"));
    assert!(public.serves_metadata_at("/mcp", "/.well-known/oauth-protected-resource/mcp"));
}

#[test]
fn challenges_carry_the_metadata_url_and_the_scope() {
    let r = resource();
    let (status, challenge, _) = r.answer(&OAuthRefusal::Missing);
    assert_eq!(status, 401);
    assert_eq!(
        challenge.unwrap(),
        "Bearer resource_metadata=\"http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp\", scope=\"mcp:tools\""
    );
    let (status, challenge, _) = r.answer(&OAuthRefusal::Invalid("the \"token\" has expired".into()));
    assert_eq!(status, 401);
    let challenge = challenge.unwrap();
    assert!(challenge.starts_with("Bearer error=\"invalid_token\", error_description=\"the 'token' has expired\""));
    let (status, challenge, message) = r.answer(&OAuthRefusal::Scope(vec!["mcp:tools".into()]));
    assert_eq!(status, 403);
    assert!(challenge.unwrap().starts_with("Bearer error=\"insufficient_scope\", scope=\"mcp:tools\""));
    assert!(message.contains("mcp:tools"));
    assert_eq!(r.answer(&OAuthRefusal::QueryToken).0, 400);
    assert_eq!(r.answer(&OAuthRefusal::Unavailable("down".into())).0, 503);
}

#[test]
fn only_a_bearer_token_in_the_header_is_read() {
    assert_eq!(bearer_of(&parts("/mcp", Some("Bearer abc"))).unwrap(), "abc");
    assert_eq!(bearer_of(&parts("/mcp", Some("bearer  abc "))).unwrap(), "abc");
    assert_eq!(bearer_of(&parts("/mcp", None)).unwrap_err(), OAuthRefusal::Missing);
    assert_eq!(bearer_of(&parts("/mcp", Some("Basic Y2k6eA=="))).unwrap_err(), OAuthRefusal::Missing);
    assert_eq!(bearer_of(&parts("/mcp?x=1&access_token=abc", None)).unwrap_err(), OAuthRefusal::QueryToken);
}

#[test]
fn settings_that_would_weaken_the_check_are_refused() {
    for bad in ["HS256", "HS512", "none", "RS1"] {
        assert!(resource().algorithms(&[bad]).is_err(), "{bad}");
    }
    assert!(resource().algorithms(&[]).is_err());
    assert!(resource().algorithms(&["ES256", "EdDSA"]).is_ok());
    assert!(OAuthResource::new("ftp://127.0.0.1/mcp", "http://127.0.0.1:9000").is_err());
    assert!(OAuthResource::new("http://127.0.0.1/mcp#x", "http://127.0.0.1:9000").is_err());
    assert!(OAuthResource::new("http://127.0.0.1/mcp", "http://auth.example.com").is_err());
    assert!(OAuthResource::new("mcp", "http://127.0.0.1:9000").is_err());
    assert!(resource().require_scope("two words").is_err());
    assert!(resource().require_scope("quo\"te").is_err());
    assert!(resource().introspection("http://127.0.0.1:9000/introspect", "", "s").is_err());
}
