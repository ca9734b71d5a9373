//! A local OAuth authorization server on 127.0.0.1 for tests: RFC 8414 metadata,
//! a JWKS with an ES256 and an EdDSA key, RFC 7662 introspection, and tokens
//! signed with its keys (or with keys it does not publish).
#![allow(dead_code)] // each test file uses a part of it

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, Ed25519KeyPair, KeyPair};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

pub struct Issuer {
    /// `http://127.0.0.1:PORT`, the `iss` of its tokens.
    pub url: String,
    ec: Vec<u8>,
    ed: Vec<u8>,
    /// The public P-256 point, uncompressed.
    pub ec_public: Vec<u8>,
    /// Introspection answers by token.
    answers: Arc<Mutex<HashMap<String, Value>>>,
    /// The `Authorization` headers introspection requests came with.
    pub introspected_with: Arc<Mutex<Vec<String>>>,
}

pub fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// A fresh P-256 key (PKCS#8) and its public point.
pub fn ec_key() -> (Vec<u8>, Vec<u8>) {
    let rng = SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap();
    (pkcs8.as_ref().to_vec(), pair.public_key().as_ref().to_vec())
}

impl Issuer {
    pub fn start() -> Issuer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (ec, ec_public) = ec_key();
        let ed = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).unwrap().as_ref().to_vec();
        let ed_public = Ed25519KeyPair::from_pkcs8(&ed).unwrap().public_key().as_ref().to_vec();
        let jwks = json!({"keys": [
            {"kty": "EC", "crv": "P-256", "kid": "ec-1", "use": "sig", "alg": "ES256",
             "x": B64.encode(&ec_public[1..33]), "y": B64.encode(&ec_public[33..65])},
            {"kty": "OKP", "crv": "Ed25519", "kid": "ed-1", "use": "sig", "x": B64.encode(&ed_public)},
            // A key type the server does not read must not hide the others.
            {"kty": "XYZ", "kid": "odd"},
        ]});
        let metadata = json!({
            "issuer": url, "jwks_uri": format!("{url}/jwks"),
            "authorization_endpoint": format!("{url}/authorize"), "token_endpoint": format!("{url}/token"),
            "introspection_endpoint": format!("{url}/introspect"),
        });
        let answers: Arc<Mutex<HashMap<String, Value>>> = Arc::default();
        let introspected_with: Arc<Mutex<Vec<String>>> = Arc::default();
        let (a, w) = (Arc::clone(&answers), Arc::clone(&introspected_with));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                reader.read_line(&mut line).unwrap_or(0);
                let path = line.split(' ').nth(1).unwrap_or("").to_owned();
                let (mut length, mut auth) = (0usize, String::new());
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
                        break;
                    }
                    let (key, value) = header.split_once(':').unwrap_or(("", ""));
                    if key.eq_ignore_ascii_case("content-length") {
                        length = value.trim().parse().unwrap_or(0);
                    }
                    if key.eq_ignore_ascii_case("authorization") {
                        auth = value.trim().to_owned();
                    }
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                let (status, doc) = match path.as_str() {
                    "/.well-known/oauth-authorization-server" => ("200 OK", metadata.clone()),
                    "/jwks" => ("200 OK", jwks.clone()),
                    "/introspect" => {
                        w.lock().unwrap().push(auth);
                        let form = String::from_utf8_lossy(&body).into_owned();
                        let token = form
                            .split('&')
                            .find_map(|p| p.strip_prefix("token="))
                            .unwrap_or("")
                            .replace("%2E", ".")
                            .replace("%2D", "-");
                        let answer = a.lock().unwrap().get(&token).cloned().unwrap_or(json!({"active": false}));
                        ("200 OK", answer)
                    }
                    _ => ("404 Not Found", json!({})),
                };
                let body = doc.to_string();
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        Issuer { url, ec, ed, ec_public, answers, introspected_with }
    }

    /// Claims that this issuer would put in a token for `audience`.
    pub fn claims(&self, audience: &str, scope: &str) -> Value {
        json!({"iss": self.url, "sub": "alice", "aud": audience, "scope": scope,
               "iat": now(), "exp": now() + 600, "client_id": "cli"})
    }

    /// `claims` signed with the ES256 key, as `kid`.
    pub fn es256(&self, claims: &Value, kid: Option<&str>) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = kid.map(str::to_owned);
        jsonwebtoken::encode(&header, claims, &EncodingKey::from_ec_der(&self.ec)).unwrap()
    }

    /// `claims` signed with the EdDSA key (`ed-1`).
    pub fn eddsa(&self, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some("ed-1".into());
        jsonwebtoken::encode(&header, claims, &EncodingKey::from_ed_der(&self.ed)).unwrap()
    }

    /// What introspection answers for `token`.
    pub fn answer(&self, token: &str, answer: Value) {
        self.answers.lock().unwrap().insert(token.to_owned(), answer);
    }
}

/// A token with `header` and `claims` as given and `signature` (base64url) after.
pub fn forged(header: &Value, claims: &Value, signature: &[u8]) -> String {
    format!("{}.{}.{}", B64.encode(header.to_string()), B64.encode(claims.to_string()), B64.encode(signature))
}
