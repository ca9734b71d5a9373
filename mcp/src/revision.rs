//! Which revision a mounted HTTP server is spoken to in. A server that offers
//! 2026-07-28 (`server/discover`) is used statelessly, each request standing alone,
//! where that keeps what users rely on: tool list changes come through a
//! `subscriptions/listen` subscription instead of session notifications. Where it
//! would lose something (a server that offers resource subscriptions, which this
//! client follows per resource on the session revision; a subscription the server
//! refuses), the server is spoken to on the session revision (2025-11-25) instead,
//! and the log says which and why. A server that does not offer 2026-07-28 gets the
//! session revision as before (rmcp's `Auto` lifecycle falls back). Stdio servers are
//! started on the session revision: a fallback would start the process again, and a
//! stdio server's discover answer can understate what it sends.

use rmcp::model::{ProtocolVersion, ServerNotification, ServerPeerInfo};
use rmcp::service::ClientLifecycleMode;
use rmcp::{Peer, RoleClient};

/// The lifecycle to try first: the current revision, falling back to the session one.
pub(crate) fn preferred() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
    }
}

/// The session revision, for a server the stateless one would lose something with.
pub(crate) fn session() -> ClientLifecycleMode {
    ClientLifecycleMode::Initialize
}

/// Whether `peer` was reached on a stateless revision.
pub(crate) fn is_stateless(peer: &Peer<RoleClient>) -> bool {
    peer.peer_info().is_some_and(|info| info.protocol_version >= ProtocolVersion::V_2026_07_28)
}

/// What the stateless revision would lose with this server, if anything.
pub(crate) fn stateless_loss(info: &ServerPeerInfo) -> Option<&'static str> {
    let subscribes = info.capabilities.resources.as_ref().and_then(|r| r.subscribe).unwrap_or(false);
    subscribes.then_some("resource updates (this client follows a read resource with resources/subscribe)")
}

/// Whether the server says its tool list changes.
pub(crate) fn tools_change(info: &ServerPeerInfo) -> bool {
    info.capabilities.tools.as_ref().and_then(|t| t.list_changed).unwrap_or(false)
}

/// Opens the subscription for tool list changes; each one calls `changed`. The
/// subscription ends with the connection.
pub(crate) async fn follow_tool_changes(
    peer: &Peer<RoleClient>,
    changed: impl Fn() + Send + 'static,
) -> Result<(), String> {
    let mut subscription = peer.listen(crate::listen::tool_list_changes()).await.map_err(|e| e.to_string())?;
    tokio::spawn(async move {
        while let Ok(Some(notification)) = subscription.next().await {
            if matches!(notification, ServerNotification::ToolListChangedNotification(_)) {
                changed();
            }
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ServerCapabilities;

    #[test]
    fn resource_subscriptions_keep_the_session_revision_and_list_changes_do_not() {
        let subscribing = ServerCapabilities::builder().enable_resources().enable_resources_subscribe().build();
        let info = ServerPeerInfo::new(ProtocolVersion::V_2026_07_28, subscribing);
        assert!(stateless_loss(&info).is_some_and(|loss| loss.contains("resource updates")));
        let changing = ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build();
        let info = ServerPeerInfo::new(ProtocolVersion::V_2026_07_28, changing);
        assert_eq!(stateless_loss(&info), None);
        assert!(tools_change(&info));
    }
}
