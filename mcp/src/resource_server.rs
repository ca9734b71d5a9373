//! A mounted server as the resources see it: the client's `Server` behind the
//! `ResourceServer` trait (kept apart so that the resources and the client do not
//! import each other).

use crate::client::Server;
use crate::resources::ResourceServer;
use rmcp::service::{Peer, RoleClient};
use std::sync::PoisonError;

impl ResourceServer for Server {
    fn name(&self) -> &str {
        &self.name
    }

    fn offers_resources(&self) -> bool {
        self.live_peer().and_then(|peer| peer.peer_info()).is_some_and(|info| info.capabilities.resources.is_some())
    }

    fn can_subscribe(&self) -> bool {
        self.live_peer()
            .and_then(|peer| peer.peer_info())
            .is_some_and(|info| info.capabilities.resources.as_ref().is_some_and(|r| r.subscribe == Some(true)))
    }

    fn peer(&self) -> futures::future::BoxFuture<'_, Result<Peer<RoleClient>, String>> {
        Box::pin(Server::peer(self))
    }

    fn updated(&self) -> std::collections::BTreeSet<String> {
        self.updated.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn seen(&self, uri: &str) {
        self.updated.lock().unwrap_or_else(PoisonError::into_inner).remove(uri);
    }
}
