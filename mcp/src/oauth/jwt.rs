//! Access tokens as JWTs (RFC 9068) checked against the issuer's JWKS: an
//! allow-listed asymmetric algorithm, a `kid` naming a signing key of that
//! algorithm's family, the signature, `iss`, `aud` (this server's canonical URL,
//! RFC 8707), `exp` and `nbf` within the leeway.

use super::{OAuthRefusal, OAuthResource, Scopes, metadata};
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use std::time::{Duration, Instant};
use toolwright_core::Caller;

/// Keys are fetched again after this long, or sooner for a `kid` not seen yet
/// (key rotation) but never more often than [`REFETCH_GAP`].
const KEYS_FRESH: Duration = Duration::from_secs(300);
const REFETCH_GAP: Duration = Duration::from_secs(5);
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// Checks the tokens of one HTTP server.
pub(crate) struct Verifier {
    resource: OAuthResource,
    client: reqwest::Client,
    keys: tokio::sync::Mutex<KeyCache>,
}

#[derive(Default)]
struct KeyCache {
    keys: Vec<Jwk>,
    fetched: Option<Instant>,
    /// From the issuer's metadata when not configured.
    jwks_uri: Option<String>,
}

#[derive(serde::Deserialize)]
struct Claims {
    sub: Option<String>,
    client_id: Option<String>,
    scope: Option<Scopes>,
    scp: Option<Scopes>,
}

impl Verifier {
    pub(crate) fn new(resource: OAuthResource) -> Verifier {
        crate::login::install_crypto();
        let client = reqwest::Client::builder()
            .timeout(FETCH_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        Verifier { resource, client, keys: tokio::sync::Mutex::new(KeyCache::default()) }
    }

    pub(crate) fn resource(&self) -> &OAuthResource {
        &self.resource
    }

    /// The caller a request's token stands for, with every required scope.
    pub(crate) async fn check(&self, parts: &http::request::Parts) -> Result<Caller, OAuthRefusal> {
        let token = super::bearer_of(parts)?;
        let caller = match &self.resource.introspection {
            Some(introspection) => introspection.check(&self.client, &self.resource, token).await?,
            None => self.check_jwt(token).await?,
        };
        self.resource.scoped(caller)
    }

    async fn check_jwt(&self, token: &str) -> Result<Caller, OAuthRefusal> {
        let invalid = |why: &str| OAuthRefusal::Invalid(why.to_owned());
        if token.split('.').count() != 3 {
            return Err(invalid("not a signed JWT (three base64url parts)"));
        }
        // `alg: none` and unknown names fail here: the header names no algorithm we know.
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| invalid("the JWT header is unreadable or names an unknown algorithm"))?;
        if !self.resource.algorithms.contains(&header.alg) {
            return Err(OAuthRefusal::Invalid(format!("the algorithm {:?} is not accepted", header.alg)));
        }
        let kid = header.kid.as_deref().ok_or_else(|| invalid("the JWT header has no `kid`"))?;
        let jwk = self.key(kid).await?;
        if !fits(&jwk, header.alg) {
            return Err(OAuthRefusal::Invalid(format!("the key `{kid}` is not a {:?} signing key", header.alg)));
        }
        let key = DecodingKey::from_jwk(&jwk).map_err(|_| invalid("the issuer's key cannot be used"))?;
        let mut validation = Validation::new(header.alg);
        validation.leeway = self.resource.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_issuer(&self.resource.issuer_forms());
        validation.set_audience(&self.resource.audience_forms());
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let data = jsonwebtoken::decode::<Claims>(token, &key, &validation).map_err(|e| {
            use jsonwebtoken::errors::ErrorKind as K;
            OAuthRefusal::Invalid(match e.kind() {
                K::InvalidSignature => "the signature does not verify".into(),
                K::ExpiredSignature => "the token has expired".into(),
                K::ImmatureSignature => "the token is not valid yet (nbf)".into(),
                K::InvalidIssuer => format!("the issuer is not `{}`", self.resource.issuer),
                K::InvalidAudience => format!("the audience is not this server (`{}`)", self.resource.resource),
                K::MissingRequiredClaim(claim) => format!("the token has no `{claim}` claim"),
                K::InvalidAlgorithm => "the algorithm does not fit the key".into(),
                _ => "the token is malformed".into(),
            })
        })?;
        let claims = data.claims;
        let subject = claims.sub.or(claims.client_id).ok_or_else(|| invalid("the token names no `sub`"))?;
        let mut scopes = Scopes::into_vec(claims.scope);
        scopes.extend(Scopes::into_vec(claims.scp));
        Ok(Caller { subject, scopes })
    }

    /// The signing key `kid`, fetching the JWKS when stale or when `kid` is new.
    async fn key(&self, kid: &str) -> Result<Jwk, OAuthRefusal> {
        let mut cache = self.keys.lock().await;
        let find = |cache: &KeyCache| cache.keys.iter().find(|k| k.common.key_id.as_deref() == Some(kid)).cloned();
        let age = cache.fetched.map(|t| t.elapsed());
        if let Some(key) = find(&cache)
            && age.is_some_and(|a| a < KEYS_FRESH)
        {
            return Ok(key);
        }
        if age.is_none_or(|a| a >= REFETCH_GAP) {
            match self.fetch_keys(&mut cache).await {
                Ok(keys) => {
                    cache.keys = keys;
                    cache.fetched = Some(Instant::now());
                }
                // Keys we still hold serve while the issuer is away.
                Err(e) if cache.keys.is_empty() => return Err(OAuthRefusal::Unavailable(e)),
                Err(e) => tracing::warn!("refreshing the issuer's keys: {e}"),
            }
        }
        find(&cache).ok_or_else(|| OAuthRefusal::Invalid(format!("no signing key `{kid}` at the issuer")))
    }

    async fn fetch_keys(&self, cache: &mut KeyCache) -> Result<Vec<Jwk>, String> {
        let uri = match (&self.resource.jwks_uri, &cache.jwks_uri) {
            (Some(uri), _) => uri.to_string(),
            (None, Some(uri)) => uri.clone(),
            (None, None) => {
                let doc = metadata::discover(&self.client, &self.resource.issuer).await?;
                let uri = doc
                    .get("jwks_uri")
                    .and_then(|v| v.as_str())
                    .ok_or_else(|| format!("the metadata of `{}` has no jwks_uri", self.resource.issuer))?;
                super::checked_url("the issuer's jwks_uri", uri).map_err(|e| e.to_string())?;
                cache.jwks_uri = Some(uri.to_owned());
                uri.to_owned()
            }
        };
        let doc = metadata::fetch_json(&self.client, &uri).await?;
        let listed = doc.get("keys").and_then(|k| k.as_array()).ok_or_else(|| format!("{uri}: no `keys` list"))?;
        // One key of a type this crate does not read leaves the others usable.
        Ok(listed.iter().filter_map(|k| serde_json::from_value::<Jwk>(k.clone()).ok()).collect())
    }
}

/// Whether `jwk` may verify `alg`: meant for signatures, of the algorithm's key
/// family and curve, and naming no other algorithm.
fn fits(jwk: &Jwk, alg: Algorithm) -> bool {
    if jwk.common.public_key_use.as_ref().is_some_and(|u| *u != PublicKeyUse::Signature) {
        return false;
    }
    if let Some(named) = &jwk.common.key_algorithm
        && format!("{named:?}") != format!("{alg:?}")
    {
        return false;
    }
    match (&jwk.algorithm, alg) {
        (
            AlgorithmParameters::RSA(_),
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512,
        ) => true,
        (AlgorithmParameters::EllipticCurve(p), Algorithm::ES256) => p.curve == EllipticCurve::P256,
        (AlgorithmParameters::EllipticCurve(p), Algorithm::ES384) => p.curve == EllipticCurve::P384,
        (AlgorithmParameters::OctetKeyPair(p), Algorithm::EdDSA) => p.curve == EllipticCurve::Ed25519,
        _ => false,
    }
}
