//! Mounting a streamable HTTP server: its headers (and its helper's), its login's
//! token when `toolwright mcp login` left one, and the revision it is spoken to in
//! ([`crate::revision`]).

use super::{Handler, Server};
use crate::revision;
use rmcp::service::{ClientLifecycleMode, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientServiceExt as _, RoleClient};
use std::collections::BTreeMap;

type Running = RunningService<RoleClient, Handler>;

impl Server {
    /// Connects to a streamable HTTP server, on the stateless revision where the
    /// server offers it and nothing is lost, else on the session revision.
    pub(super) async fn start_http(
        &self,
        url: &str,
        headers: &BTreeMap<String, String>,
        headers_helper: Option<&crate::config::HeadersHelper>,
        oauth: &crate::config::OAuthSettings,
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
            Some(file) => crate::login::authorized_client(&self.name, url, oauth, file).await?,
            None => None,
        };
        let service = self.serve_http(&client, &config, revision::preferred()).await?;
        if !revision::is_stateless(service.peer()) {
            return Ok(service);
        }
        let info = service.peer().peer_info().ok_or("the server's discover result is missing")?;
        let loss = match revision::stateless_loss(&info) {
            Some(loss) => Some(loss.to_owned()),
            None if revision::tools_change(&info) => {
                let me = self.me.clone();
                let peer = service.peer().clone();
                let followed = revision::follow_tool_changes(service.peer(), move || {
                    let Some(server) = me.upgrade() else { return };
                    let peer = peer.clone();
                    // Not inline: listing waits for a response the service delivers.
                    tokio::spawn(async move {
                        if let Err(e) = server.sync_tools(&peer).await {
                            server.warn(format!(
                                "MCP server `{}`: re-listing tools after list_changed: {e}",
                                server.name
                            ));
                        }
                    });
                })
                .await;
                followed.err().map(|e| format!("tool list changes (subscriptions/listen failed: {e})"))
            }
            None => None,
        };
        let Some(loss) = loss else {
            tracing::debug!(server = %self.name, "mounted on the 2026-07-28 revision, stateless");
            return Ok(service);
        };
        let _ = service.cancel().await;
        tracing::info!(
            server = %self.name,
            "its 2026-07-28 revision would lose {loss}; mounted on the session revision instead"
        );
        self.serve_http(&client, &config, revision::session()).await
    }

    async fn serve_http(
        &self,
        client: &Option<crate::login::ScopeWatch<rmcp::transport::AuthClient<reqwest::Client>>>,
        config: &StreamableHttpClientTransportConfig,
        lifecycle: ClientLifecycleMode,
    ) -> Result<Running, String> {
        let handler = Handler { server: self.me.clone() };
        let served = match client {
            Some(client) => {
                let transport = StreamableHttpClientTransport::with_client(client.clone(), config.clone());
                handler.serve_with_lifecycle(transport, lifecycle).await
            }
            None => {
                let transport = StreamableHttpClientTransport::from_config(config.clone());
                handler.serve_with_lifecycle(transport, lifecycle).await
            }
        };
        served.map_err(|e| crate::login::unauthorized_advice(&self.name, e.to_string()))
    }
}
