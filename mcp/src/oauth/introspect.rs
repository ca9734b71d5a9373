//! Tokens checked by asking the issuer (RFC 7662): for opaque tokens, or to see a
//! revoked token as revoked at once.

use super::{OAuthRefusal, OAuthResource, Scopes};
use std::time::{SystemTime, UNIX_EPOCH};
use toolwright_core::Caller;

/// Where to introspect, as which client.
#[derive(Clone)]
pub(super) struct Introspection {
    pub(super) endpoint: url::Url,
    pub(super) client_id: String,
    pub(super) secret: String,
}

#[derive(serde::Deserialize)]
struct Answer {
    active: bool,
    sub: Option<String>,
    username: Option<String>,
    client_id: Option<String>,
    scope: Option<Scopes>,
    aud: Option<Audience>,
    iss: Option<String>,
    exp: Option<u64>,
    nbf: Option<u64>,
}

#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Audience {
    One(String),
    Many(Vec<String>),
}

impl Introspection {
    pub(super) async fn check(
        &self,
        client: &reqwest::Client,
        resource: &OAuthResource,
        token: &str,
    ) -> Result<Caller, OAuthRefusal> {
        let invalid = |why: String| OAuthRefusal::Invalid(why);
        let body = format!("token={}&token_type_hint=access_token", form_encode(token));
        let response = client
            .post(self.endpoint.clone())
            .basic_auth(&self.client_id, Some(&self.secret))
            .header(http::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(http::header::ACCEPT, "application/json")
            .body(body)
            .send()
            .await
            .map_err(|e| OAuthRefusal::Unavailable(format!("introspection at {}: {e}", self.endpoint)))?;
        let doc =
            super::metadata::read_json(self.endpoint.as_str(), response).await.map_err(OAuthRefusal::Unavailable)?;
        let answer: Answer = serde_json::from_value(doc)
            .map_err(|e| OAuthRefusal::Unavailable(format!("introspection at {}: {e}", self.endpoint)))?;
        if !answer.active {
            return Err(invalid("the token is not active (revoked, expired or unknown)".into()));
        }
        if let Some(iss) = &answer.iss
            && !resource.issuer_forms().contains(iss)
        {
            return Err(invalid(format!("the issuer is not `{}`", resource.issuer)));
        }
        // The audience is checked when the issuer says it (RFC 7662 lists it as optional).
        let audience_ok = match &answer.aud {
            None => true,
            Some(Audience::One(a)) => resource.audience_forms().contains(a),
            Some(Audience::Many(list)) => list.iter().any(|a| resource.audience_forms().contains(a)),
        };
        if !audience_ok {
            return Err(invalid(format!("the audience is not this server (`{}`)", resource.resource)));
        }
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        let leeway = resource.leeway.as_secs();
        if answer.exp.is_some_and(|exp| exp.saturating_add(leeway) < now) {
            return Err(invalid("the token has expired".into()));
        }
        if answer.nbf.is_some_and(|nbf| nbf > now.saturating_add(leeway)) {
            return Err(invalid("the token is not valid yet (nbf)".into()));
        }
        let subject = answer
            .sub
            .or(answer.username)
            .or(answer.client_id)
            .ok_or_else(|| invalid("the introspection answer names no subject".into()))?;
        Ok(Caller { subject, scopes: Scopes::into_vec(answer.scope) })
    }
}

/// `application/x-www-form-urlencoded` for a token (RFC 6750's token68 characters
/// and anything else a client sends).
fn form_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
