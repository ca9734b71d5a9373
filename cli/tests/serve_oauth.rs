//! `serve --http` as an OAuth 2.1 resource server (the MCP authorization spec):
//! the metadata document, the 401/403 challenges, and every way a token can be
//! wrong, against a local issuer with its own keys.

#[path = "support/issuer.rs"]
mod issuer;
#[path = "support/serve.rs"]
mod serve;

use issuer::{Issuer, ec_key, forged, now};
use serde_json::{Value, json};
use serve::{HttpServe, header, initialize, status};
use std::io::{Read, Write};

fn workspace() -> (tempfile::TempDir, tempfile::TempDir) {
    (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap())
}

/// A GET of `path`, read to its end.
fn get(addr: &str, path: &str) -> String {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").unwrap();
    let mut text = String::new();
    let _ = stream.read_to_string(&mut text);
    text
}

fn with_token(addr: &str, token: &str) -> String {
    initialize(addr, "/mcp", "127.0.0.1", &[("Authorization", &format!("Bearer {token}"))])
}

/// The `WWW-Authenticate` of a response, which must be there.
fn challenge(response: &str) -> &str {
    header(response, "www-authenticate").unwrap_or_else(|| panic!("no challenge in {response}"))
}

#[test]
fn jwt_access_tokens_are_checked_as_the_authorization_spec_asks() {
    let issuer = Issuer::start();
    let (ws, home) = workspace();
    let serve =
        HttpServe::start(ws.path(), home.path(), &["--oauth-issuer", &issuer.url, "--oauth-scope", "mcp:tools"]);
    let audience = serve.url();
    let metadata_url = format!("http://{}/.well-known/oauth-protected-resource/mcp", serve.addr);

    // The metadata, at the inserted path and at the bare well-known name.
    for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
        let response = get(&serve.addr, path);
        assert_eq!(status(&response), 200, "{response}");
        let doc: Value = serde_json::from_str(response.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        assert_eq!(doc["resource"], audience);
        assert_eq!(doc["authorization_servers"], json!([issuer.url]));
        assert_eq!(doc["scopes_supported"], json!(["mcp:tools"]));
        assert!(doc.get("resource_signing_alg_values_supported").is_none(), "{doc}");
    }
    // Not for another resource's path, and MCP only at its endpoint.
    let response = get(&serve.addr, "/.well-known/oauth-protected-resource/other");
    assert_eq!(status(&response), 404, "{response}");
    let response = initialize(&serve.addr, "/other", "127.0.0.1", &[]);
    assert_eq!(status(&response), 404, "{response}");
    assert!(response.contains("/mcp"), "{response}");

    // No token: 401 pointing at the metadata, with the scope to ask for.
    let response = initialize(&serve.addr, "/mcp", "127.0.0.1", &[]);
    assert_eq!(status(&response), 401, "{response}");
    assert_eq!(challenge(&response), format!("Bearer resource_metadata=\"{metadata_url}\", scope=\"mcp:tools\""));

    // Good tokens, from either key, get in.
    let good = issuer.claims(&audience, "openid mcp:tools");
    for token in [issuer.es256(&good, Some("ec-1")), issuer.eddsa(&good)] {
        let response = with_token(&serve.addr, &token);
        assert_eq!(status(&response), 200, "{response}");
        assert!(response.contains("protocolVersion"), "{response}");
    }
    // Within the leeway (30 s) an expiry just past is still taken.
    let mut skewed = good.clone();
    skewed["exp"] = json!(now() - 5);
    assert_eq!(status(&with_token(&serve.addr, &issuer.es256(&skewed, Some("ec-1")))), 200);

    // Every bad token: 401 invalid_token, naming what is wrong.
    let changed = |key: &str, value: Value| {
        let mut claims = good.clone();
        claims[key] = value;
        issuer.es256(&claims, Some("ec-1"))
    };
    let (other_key, _) = ec_key();
    let other = {
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        header.kid = Some("ec-1".into());
        jsonwebtoken::encode(&header, &good, &jsonwebtoken::EncodingKey::from_ec_der(&other_key)).unwrap()
    };
    let hmac_with_public_key = {
        let header = json!({"alg": "HS256", "typ": "JWT", "kid": "ec-1"});
        let unsigned = forged(&header, &good, b"");
        let signing_input = unsigned.trim_end_matches('.');
        let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &issuer.ec_public);
        let tag = ring::hmac::sign(&key, signing_input.as_bytes());
        forged(&header, &good, tag.as_ref())
    };
    let cases = [
        ("a signature by another key", other, "signature"),
        ("alg none", forged(&json!({"alg": "none", "kid": "ec-1"}), &good, b""), "algorithm"),
        ("HMAC keyed with the public key", hmac_with_public_key, "HS256"),
        ("no kid", issuer.es256(&good, None), "kid"),
        ("an unknown kid", issuer.es256(&good, Some("nope")), "nope"),
        ("another issuer", changed("iss", json!("http://127.0.0.1:1")), "issuer"),
        ("another audience", changed("aud", json!("http://127.0.0.1:1/mcp")), "audience"),
        ("no audience", changed("aud", Value::Null), "aud"),
        ("expired", changed("exp", json!(now() - 600)), "expired"),
        ("not valid yet", changed("nbf", json!(now() + 600)), "not valid yet"),
        ("not a JWT", "opaque-token-0123456789".into(), "JWT"),
    ];
    for (what, token, says) in cases {
        let response = with_token(&serve.addr, &token);
        assert_eq!(status(&response), 401, "{what}: {response}");
        let challenge = challenge(&response);
        assert!(challenge.starts_with("Bearer error=\"invalid_token\""), "{what}: {challenge}");
        assert!(challenge.contains(&format!("resource_metadata=\"{metadata_url}\"")), "{what}: {challenge}");
        assert!(response.contains(says) || challenge.contains(says), "{what} should say {says}: {response}");
    }

    // A missing scope: 403 insufficient_scope naming it.
    let response = with_token(&serve.addr, &issuer.es256(&issuer.claims(&audience, "openid"), Some("ec-1")));
    assert_eq!(status(&response), 403, "{response}");
    let challenge = challenge(&response);
    assert!(challenge.starts_with("Bearer error=\"insufficient_scope\", scope=\"mcp:tools\""), "{challenge}");

    // A token in the query string, even a good one: 400.
    let token = issuer.es256(&good, Some("ec-1"));
    let response = initialize(&serve.addr, &format!("/mcp?access_token={token}"), "127.0.0.1", &[]);
    assert_eq!(status(&response), 400, "{response}");
}

#[test]
fn introspected_tokens_must_be_active_and_for_this_server() {
    let issuer = Issuer::start();
    let (ws, home) = workspace();
    let serve = HttpServe::start_with_env(
        ws.path(),
        home.path(),
        &[
            "--oauth-issuer",
            &issuer.url,
            "--oauth-introspect",
            &format!("{}/introspect", issuer.url),
            "--oauth-client-id",
            "toolwright",
            "--oauth-client-secret-env",
            "INTROSPECT_SECRET",
        ],
        &[("INTROSPECT_SECRET", "s3cret")],
    );
    let audience = serve.url();
    issuer.answer(
        "good-token",
        json!({"active": true, "sub": "bob", "aud": audience, "iss": issuer.url, "exp": now() + 60}),
    );
    issuer.answer("other-audience", json!({"active": true, "sub": "bob", "aud": "http://127.0.0.1:1/mcp"}));
    issuer.answer("lapsed", json!({"active": true, "sub": "bob", "exp": now() - 600}));

    assert_eq!(status(&with_token(&serve.addr, "good-token")), 200);
    for token in ["revoked", "other-audience", "lapsed"] {
        let response = with_token(&serve.addr, token);
        assert_eq!(status(&response), 401, "{token}: {response}");
        assert!(challenge(&response).contains("invalid_token"), "{token}");
    }
    // The server authenticated itself to the issuer with HTTP Basic.
    let used = issuer.introspected_with.lock().unwrap().clone();
    assert!(used.iter().all(|a| a == "Basic dG9vbHdyaWdodDpzM2NyZXQ="), "{used:?}");
}

#[test]
fn static_tokens_and_oauth_are_never_mixed_and_static_mode_publishes_no_metadata() {
    let (ws, home) = workspace();
    let stderr = serve::refused(
        ws.path(),
        home.path(),
        "127.0.0.1:0",
        &["--oauth-issuer", "http://127.0.0.1:9", "--token-env", "ci=CI_TOKEN"],
        &[("CI_TOKEN", "a-long-static-secret-token")],
    );
    assert!(stderr.contains("--oauth-issuer") && stderr.contains("--token-env"), "{stderr}");
    // Each flag's mistake is named by that flag.
    for (flags, says) in [
        (&["--token-env", "ci="][..], "--token-env ci=: give NAME=VAR"),
        (&["--token-env", "=CI_TOKEN"][..], "--token-env: caller name ``"),
        (&["--token-file", "a b=/nonexistent"][..], "--token-file: caller name `a b`"),
        (&["--oauth-issuer", "https://auth.example.com", "--resource-url", "ftp://x/mcp"][..], "--resource-url: "),
    ] {
        let stderr = serve::refused(ws.path(), home.path(), "127.0.0.1:0", flags, &[("CI_TOKEN", "x")]);
        assert!(stderr.contains(says), "{flags:?}: {stderr}");
    }

    let (ws, home) = workspace();
    let serve = HttpServe::start_with_env(
        ws.path(),
        home.path(),
        &["--token-env", "ci=CI_TOKEN"],
        &[("CI_TOKEN", "a-long-static-secret-token")],
    );
    let response = get(&serve.addr, "/.well-known/oauth-protected-resource/mcp");
    assert_eq!(status(&response), 404, "{response}");
    let response = initialize(&serve.addr, "/mcp", "127.0.0.1", &[]);
    assert_eq!(status(&response), 401);
    assert!(!challenge(&response).contains("resource_metadata"), "{response}");
}

#[test]
fn an_issuer_that_cannot_be_reached_is_503_not_a_hang_or_a_pass() {
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (ws, home) = workspace();
    let serve = HttpServe::start(ws.path(), home.path(), &["--oauth-issuer", &format!("http://127.0.0.1:{port}")]);
    let token = forged(&json!({"alg": "ES256", "kid": "k"}), &json!({"sub": "x"}), b"sig");
    let response = with_token(&serve.addr, &token);
    assert_eq!(status(&response), 503, "{response}");
    assert!(response.contains("Retry-After") || response.contains("retry-after"), "{response}");
}

#[test]
fn a_trailing_slash_names_the_same_issuer_and_the_same_audience() {
    let issuer = Issuer::start();
    let (ws, home) = workspace();
    let slashed = format!("{}/", issuer.url);
    let serve = HttpServe::start(ws.path(), home.path(), &["--oauth-issuer", &slashed]);
    let good = issuer.claims(&serve.url(), "mcp:tools");
    let response = with_token(&serve.addr, &issuer.es256(&good, Some("ec-1")));
    assert_eq!(status(&response), 200, "{response}");
    // The endpoint with a trailing slash is this server too (it answers there).
    let slashed_audience = issuer.claims(&format!("{}/", serve.url()), "mcp:tools");
    let response = with_token(&serve.addr, &issuer.es256(&slashed_audience, Some("ec-1")));
    assert_eq!(status(&response), 200, "{response}");
    // Another path on the same host is another issuer.
    let mut other = good.clone();
    other["iss"] = json!(format!("{}/other", issuer.url));
    let response = with_token(&serve.addr, &issuer.es256(&other, Some("ec-1")));
    assert_eq!(status(&response), 401, "{response}");
}
