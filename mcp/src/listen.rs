//! `subscriptions/listen` for clients on the 2026-07-28 revision, which have no
//! session to receive `notifications/tools/list_changed` in: a client that listens
//! hears of each change to the runtime tools (the same changes a session client is
//! told of) until it cancels or goes away.

use rmcp::ErrorData;
use rmcp::model::SubscriptionFilter;
use rmcp::service::SubscriptionContext;
use toolwright_core::Registry;

/// Tool list changes: what a listener may hear of here, and what a mount listens
/// for on a stateless server ([`crate::revision::follow_tool_changes`]).
pub(crate) fn tool_list_changes() -> SubscriptionFilter {
    let mut filter = SubscriptionFilter::new();
    filter.tools_list_changed = Some(true);
    filter
}

/// Tells the listener of each change to `registry`'s tools until it goes away.
pub(crate) async fn run(registry: &Registry, context: SubscriptionContext) -> Result<(), ErrorData> {
    let mut changes = registry.changes();
    loop {
        tokio::select! {
            () = context.cancelled() => return Ok(()),
            changed = changes.changed() => {
                if changed.is_err() || context.sink().notify_tool_list_changed().await.is_err() {
                    return Ok(());
                }
            }
        }
    }
}
