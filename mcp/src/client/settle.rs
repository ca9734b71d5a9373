//! After the handshake: on the 2026-07-28 revision, what the stateless session would
//! lose with this server ([`crate::revision`]), and following its tool list changes
//! through a subscription when it has them.

use super::{Handler, Server};
use crate::revision;
use rmcp::RoleClient;
use rmcp::service::RunningService;

impl Server {
    /// `None` when `service` may stay as it is (a session revision, or a stateless
    /// one that loses nothing, its tool changes followed); else what it would lose.
    pub(super) async fn settle(&self, service: &RunningService<RoleClient, Handler>) -> Option<String> {
        if !revision::is_stateless(service.peer()) {
            return None;
        }
        let Some(info) = service.peer().peer_info() else { return Some("the server's discover result".into()) };
        if let Some(loss) = revision::stateless_loss(&info) {
            return Some(loss.to_owned());
        }
        if !revision::tools_change(&info) {
            tracing::debug!(server = %self.name, "mounted on the 2026-07-28 revision, stateless");
            return None;
        }
        let me = self.me.clone();
        let peer = service.peer().clone();
        let followed = revision::follow_tool_changes(service.peer(), move || {
            let Some(server) = me.upgrade() else { return };
            let peer = peer.clone();
            // Not inline: listing waits for a response the service delivers.
            tokio::spawn(async move {
                if let Err(e) = server.sync_tools(&peer).await {
                    server.warn(format!("MCP server `{}`: re-listing tools after list_changed: {e}", server.name));
                }
            });
        })
        .await;
        followed.err().map(|e| format!("tool list changes (subscriptions/listen failed: {e})"))
    }
}
