//! The model over HTTP: one request per [`Model::send`], with the API's own headers,
//! errors that keep their causes, and the waits the API asks for.

use super::model::cause_chain;
use super::retry::retry_after;
use super::{Body, Model, ModelError};
use crate::provider::Api;
use bytes::Bytes;
use serde_json::Value;
use std::time::Duration;
use toolwright_core::BoxFuture;

/// The most of an error body kept (its message is at the start).
const ERROR_BODY_LIMIT: usize = 64 * 1024;

/// A model behind Anthropic's or OpenAI's HTTP API (or anything that speaks one of
/// them: a proxy, a local server, a gateway).
///
/// ```no_run
/// use toolwright::agent::HttpModel;
/// use toolwright::provider::Api;
/// # fn run() -> Result<(), toolwright::agent::ModelError> {
/// let model = HttpModel::from_env(Api::Anthropic)?.with_model("claude-sonnet-4-5");
/// let local = HttpModel::new(Api::OpenAiChat, "sk-local", "qwen3").with_base_url("http://127.0.0.1:8080/v1");
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct HttpModel {
    api: Api,
    /// The base URL; `url` is it with the endpoint's path for the model.
    base: String,
    url: String,
    model: String,
    headers: Vec<(&'static str, String)>,
    client: reqwest::Client,
}

impl HttpModel {
    /// `model` at the API's documented address, with `key`.
    pub fn new(api: Api, key: &str, model: impl Into<String>) -> HttpModel {
        let model = model.into();
        HttpModel {
            api,
            base: api.default_base_url().to_owned(),
            url: format!("{}{}", api.default_base_url(), api.endpoint(&model)),
            model,
            headers: api.auth_headers(key),
            client: default_client(),
        }
    }

    /// The key and base URL from the environment (`ANTHROPIC_API_KEY` and
    /// `ANTHROPIC_BASE_URL`, or `OPENAI_API_KEY` and `OPENAI_BASE_URL`), and the
    /// default model ([`HttpModel::default_model`]).
    pub fn from_env(api: Api) -> Result<HttpModel, ModelError> {
        let (key_var, base_var) = api.env_vars();
        let key = std::env::var(key_var)
            .ok()
            .filter(|k| !k.trim().is_empty())
            .ok_or(ModelError::MissingKey { var: key_var, api })?;
        let model = HttpModel::new(api, key.trim(), HttpModel::default_model(api));
        Ok(match std::env::var(base_var).ok().filter(|b| !b.trim().is_empty()) {
            Some(base) => model.with_base_url(base.trim()),
            None => model,
        })
    }

    /// The model used when none is named: `claude-sonnet-4-5`, `gpt-4.1`,
    /// `gemini-2.5-flash`.
    pub fn default_model(api: Api) -> &'static str {
        match api {
            Api::Anthropic => "claude-sonnet-4-5",
            Api::Gemini => "gemini-2.5-flash",
            _ => "gpt-4.1",
        }
    }

    /// Another model.
    pub fn with_model(mut self, model: impl Into<String>) -> HttpModel {
        self.model = model.into();
        // Gemini names the model in the path.
        self.url = format!("{}{}", self.base, self.api.endpoint(&self.model));
        self
    }

    /// Another base URL (`https://api.anthropic.com`, `https://api.openai.com/v1`):
    /// the endpoint's path is appended.
    pub fn with_base_url(mut self, base: &str) -> HttpModel {
        self.base = base.trim_end_matches('/').to_owned();
        self.url = format!("{}{}", self.base, self.api.endpoint(&self.model));
        self
    }

    /// Another HTTP client (a proxy, other timeouts).
    pub fn with_client(mut self, client: reqwest::Client) -> HttpModel {
        self.client = client;
        self
    }

    /// One more header on every request (`anthropic-beta`, `OpenAI-Organization`).
    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> HttpModel {
        self.headers.push((name, value.into()));
        self
    }

    /// Where requests go.
    pub fn url(&self) -> &str {
        &self.url
    }

    async fn send_once(&self, body: &Value) -> Result<Box<dyn Body>, ModelError> {
        let bytes = serde_json::to_vec(body).expect("a JSON value serializes");
        let mut request = self.client.post(&self.url).header("content-type", "application/json").body(bytes);
        for (name, value) in &self.headers {
            request = request.header(*name, value);
        }
        let response = request
            .send()
            .await
            .map_err(|e| ModelError::Transport { url: self.url.clone(), cause: cause_chain(&e) })?;
        let status = response.status();
        if status.is_success() {
            return Ok(Box::new(HttpBody { url: self.url.clone(), response }));
        }
        let retry_after = retry_after(response.headers());
        let text = read_limited(response, ERROR_BODY_LIMIT).await;
        let message = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v["error"]["message"].as_str().or_else(|| v["message"].as_str()).map(str::to_owned))
            .unwrap_or_else(|| if text.trim().is_empty() { "(no body)".to_owned() } else { text.trim().to_owned() });
        Err(ModelError::Status { url: self.url.clone(), status: status.as_u16(), message, retry_after })
    }
}

impl Model for HttpModel {
    fn api(&self) -> Api {
        self.api
    }

    fn endpoint(&self) -> Option<&str> {
        Some(&self.url)
    }

    fn name(&self) -> &str {
        &self.model
    }

    fn send<'a>(&'a self, body: &'a Value) -> BoxFuture<'a, Result<Box<dyn Body>, ModelError>> {
        Box::pin(self.send_once(body))
    }
}

/// Connecting may take 30 s; a response may go quiet for 5 minutes (a long
/// thought streams no bytes, though the APIs ping).
fn default_client() -> reqwest::Client {
    toolwright_core::tls::install_crypto();
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(30))
        .read_timeout(Duration::from_secs(300))
        .build()
        .unwrap_or_default()
}

/// The start of an error body, at most `limit` bytes.
async fn read_limited(mut response: reqwest::Response, limit: usize) -> String {
    let mut kept = Vec::new();
    while kept.len() < limit {
        match response.chunk().await {
            Ok(Some(chunk)) => kept.extend_from_slice(&chunk[..chunk.len().min(limit - kept.len())]),
            _ => break,
        }
    }
    String::from_utf8_lossy(&kept).into_owned()
}

struct HttpBody {
    url: String,
    response: reqwest::Response,
}

impl Body for HttpBody {
    fn chunk(&mut self) -> BoxFuture<'_, Result<Option<Bytes>, ModelError>> {
        Box::pin(async move {
            self.response
                .chunk()
                .await
                .map_err(|e| ModelError::Interrupted { url: self.url.clone(), cause: cause_chain(&e) })
        })
    }
}
