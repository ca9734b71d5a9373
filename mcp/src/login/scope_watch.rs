//! A logged-in server's HTTP client that notices a `403 insufficient_scope`: the
//! scope the server names is written beside the login, so that the next `toolwright
//! mcp login` asks for it (step-up, with a person at the browser), while the call
//! itself fails with what to run. Everything else passes through to rmcp's client.

use super::CredentialFile;
use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use std::collections::HashMap;
use std::sync::Arc;

/// `inner`, watching for scope the server wants.
#[derive(Clone)]
pub(crate) struct ScopeWatch<C> {
    pub inner: C,
    pub file: CredentialFile,
    pub server: String,
    pub url: String,
}

impl<C> ScopeWatch<C> {
    fn noticed<T, E: std::error::Error + Send + Sync + 'static>(&self, result: &Result<T, StreamableHttpError<E>>) {
        if let Err(StreamableHttpError::InsufficientScope(error)) = result {
            let scope = error.required_scope.clone().or_else(|| scope_of(&error.www_authenticate_header));
            if let Some(scope) = scope
                && let Err(e) = self.file.want_scopes(&self.server, &self.url, &scope)
            {
                tracing::warn!(server = %self.server, "noting the scope the server asked for: {e}");
            }
        }
    }
}

/// The `scope="..."` of a Bearer challenge.
pub(super) fn scope_of(challenge: &str) -> Option<String> {
    let at = challenge.find("scope=\"")? + "scope=\"".len();
    let rest = &challenge[at..];
    Some(rest[..rest.find('"')?].to_owned()).filter(|s| !s.trim().is_empty())
}

impl<C: StreamableHttpClient + Sync> StreamableHttpClient for ScopeWatch<C> {
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let result = self.inner.post_message(uri, message, session_id, auth_header, custom_headers).await;
        self.noticed(&result);
        result
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let result = self
            .inner
            .post_message_with_response_limits(uri, message, session_id, auth_header, custom_headers, limits)
            .await;
        self.noticed(&result);
        result
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.inner.delete_session(uri, session_id, auth_header, custom_headers).await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>, StreamableHttpError<Self::Error>> {
        self.inner.get_stream(uri, session_id, last_event_id, auth_header, custom_headers).await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>, StreamableHttpError<Self::Error>> {
        self.inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_scope_of_a_challenge() {
        let challenge = r#"Bearer scope="mcp:basic mcp:write", resource_metadata="https://x/.well-known", error="insufficient_scope""#;
        assert_eq!(super::scope_of(challenge).as_deref(), Some("mcp:basic mcp:write"));
        assert_eq!(super::scope_of("Bearer error=\"insufficient_scope\""), None);
        assert_eq!(super::scope_of("Bearer scope=\"\""), None);
    }
}
