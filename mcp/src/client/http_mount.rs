//! Mounting a streamable HTTP server: its headers (and its helper's) and its login's
//! token when `toolwright mcp login` left one.

use super::{Handler, Server};
use rmcp::service::{ClientLifecycleMode, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientServiceExt as _, RoleClient};
use std::collections::BTreeMap;

type Running = RunningService<RoleClient, Handler>;

impl Server {
    /// Connects to a streamable HTTP server with `lifecycle`.
    pub(super) async fn start_http(
        &self,
        url: &str,
        headers: &BTreeMap<String, String>,
        headers_helper: Option<&crate::config::HeadersHelper>,
        oauth: &crate::config::OAuthSettings,
        lifecycle: ClientLifecycleMode,
    ) -> Result<Running, String> {
        crate::login::install_crypto();
        let mut headers = headers.clone();
        if let Some(helper) = headers_helper {
            headers.extend(crate::headers_helper::run(helper, &self.name, url).await?);
        }
        let mut custom = std::collections::HashMap::new();
        for (key, value) in &headers {
            let name = http::HeaderName::try_from(key.as_str()).map_err(|e| format!("header `{key}`: {e}"))?;
            let value = http::HeaderValue::try_from(value.as_str()).map_err(|e| format!("header `{key}`: {e}"))?;
            custom.insert(name, value);
        }
        let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom);
        let client = match &self.options.credentials {
            _ if oauth.client_credentials => {
                Some(crate::login::client_credentials::client(&self.name, url, oauth).await?)
            }
            Some(file) => crate::login::authorized_client(&self.name, url, oauth, file).await?,
            None => None,
        };
        let handler = Handler { server: self.me.clone() };
        let served = match client {
            Some(client) => {
                let transport = StreamableHttpClientTransport::with_client(client, config);
                handler.serve_with_lifecycle(transport, lifecycle).await
            }
            None => {
                let transport = StreamableHttpClientTransport::from_config(config);
                handler.serve_with_lifecycle(transport, lifecycle).await
            }
        };
        served.map_err(|e| crate::login::unauthorized_advice(&self.name, e.to_string()))
    }
}
