//! The mounted servers' resources, as a client: listed (with their templates),
//! read (text and blobs, bounded), and the `resources/updated` notices a server
//! sends. [`McpMounts::resources`](crate::McpMounts::resources) hands them out; the
//! resource tools (`resource_tools.rs`) use them.

use rmcp::model::{ReadResourceRequestParams, ResourceContents};
use rmcp::service::{Peer, RoleClient};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

/// What a mounted server gives the resources (the client's `Server` implements it).
pub(crate) trait ResourceServer: Send + Sync {
    /// Its name as configured.
    fn name(&self) -> &str;
    /// Whether it is connected and declared `resources`.
    fn offers_resources(&self) -> bool;
    /// Whether it takes `resources/subscribe`.
    fn can_subscribe(&self) -> bool;
    /// Its peer, reconnecting if need be.
    fn peer(&self) -> futures::future::BoxFuture<'_, Result<Peer<RoleClient>, String>>;
    /// The resources it said changed since they were read.
    fn updated(&self) -> BTreeSet<String>;
    /// `uri` was read.
    fn seen(&self, uri: &str);
}

type Server = dyn ResourceServer;

/// How long a listing or a read may take.
const RESOURCE_TIMEOUT: Duration = Duration::from_secs(30);

/// One resource, or a resource template, of a mounted server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceEntry {
    /// The server's name as configured.
    pub server: String,
    /// Its URI (a template's `uriTemplate`).
    pub uri: String,
    /// Its name.
    pub name: String,
    /// Its MIME type, if the server says.
    pub mime_type: Option<String>,
    /// What it is, if the server says.
    pub description: Option<String>,
    /// Whether this is a template (`resources/templates/list`).
    pub template: bool,
    /// Whether the server said it changed (`notifications/resources/updated`).
    pub updated: bool,
}

/// What reading or listing resources ran into.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResourceError {
    /// No mounted server has this name.
    #[error("no MCP server is mounted as `{server}` (mounted: {known})")]
    UnknownServer {
        /// The name asked for.
        server: String,
        /// The mounted servers' names.
        known: String,
    },
    /// The server does not offer resources.
    #[error("the MCP server `{server}` offers no resources")]
    NoResources {
        /// The server.
        server: String,
    },
    /// The server could not be reached, or answered with an error.
    #[error("the MCP server `{server}`: {message}")]
    Server {
        /// The server.
        server: String,
        /// What went wrong.
        message: String,
    },
}

/// The resources of a set of mounted servers. Cheap to clone.
#[derive(Clone, Default)]
pub struct McpResources {
    servers: BTreeMap<String, Arc<Server>>,
}

impl std::fmt::Debug for McpResources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpResources").field("servers", &self.servers.keys().collect::<Vec<_>>()).finish()
    }
}

impl McpResources {
    pub(crate) fn new(servers: BTreeMap<String, Arc<Server>>) -> McpResources {
        McpResources { servers }
    }

    /// Whether a connected server offers resources.
    pub fn any(&self) -> bool {
        self.servers.values().any(|s| s.offers_resources())
    }

    fn server(&self, name: &str) -> Result<&Arc<Server>, ResourceError> {
        self.servers.get(name).ok_or_else(|| ResourceError::UnknownServer {
            server: name.to_owned(),
            known: self.servers.keys().cloned().collect::<Vec<_>>().join(", "),
        })
    }

    /// The resources and templates of `server`, or of every server that offers
    /// them; a server that cannot be listed is a problem, the others still list.
    pub async fn list(&self, server: Option<&str>) -> (Vec<ResourceEntry>, Vec<ResourceError>) {
        let servers: Vec<&Arc<Server>> = match server {
            Some(name) => match self.server(name) {
                Ok(server) => vec![server],
                Err(e) => return (Vec::new(), vec![e]),
            },
            None => self.servers.values().filter(|s| s.offers_resources()).collect(),
        };
        let (mut entries, mut problems) = (Vec::new(), Vec::new());
        for server in servers {
            match list_one(server).await {
                Ok(found) => entries.extend(found),
                Err(e) => problems.push(e),
            }
        }
        (entries, problems)
    }

    /// The contents of `uri` on `server`.
    pub async fn read(&self, server: &str, uri: &str) -> Result<Vec<ResourceContents>, ResourceError> {
        let found = self.server(server)?;
        let failed = |message: String| ResourceError::Server { server: server.to_owned(), message };
        let peer = found.peer().await.map_err(failed)?;
        if !found.offers_resources() {
            return Err(ResourceError::NoResources { server: server.to_owned() });
        }
        let read = tokio::time::timeout(RESOURCE_TIMEOUT, peer.read_resource(ReadResourceRequestParams::new(uri)));
        let result = read.await.map_err(|_| failed(format!("resources/read got no answer within 30 s ({uri})")))?;
        let result = result.map_err(|e| failed(format!("reading `{uri}`: {e}")))?;
        found.seen(uri);
        // Told of its changes from now on, where the server can (best effort: a read
        // never fails for it).
        if found.can_subscribe() {
            // The mounts speak the session revision (2025-11-25), where
            // `resources/subscribe` is the way; rmcp marks it legacy for 2026-07-28.
            #[allow(deprecated)]
            let subscribe = peer.subscribe(rmcp::model::SubscribeRequestParams::new(uri));
            let _ = tokio::time::timeout(Duration::from_secs(5), subscribe).await;
        }
        Ok(result.contents)
    }
}

async fn list_one(server: &Arc<Server>) -> Result<Vec<ResourceEntry>, ResourceError> {
    let name = server.name().to_owned();
    let failed = |message: String| ResourceError::Server { server: name.clone(), message };
    let peer = server.peer().await.map_err(failed)?;
    if !server.offers_resources() {
        return Err(ResourceError::NoResources { server: name.clone() });
    }
    let listed = tokio::time::timeout(RESOURCE_TIMEOUT, peer.list_all_resources())
        .await
        .map_err(|_| failed("resources/list got no answer within 30 s".to_owned()))?
        .map_err(|e| failed(format!("resources/list: {e}")))?;
    let updated = server.updated();
    let mut entries: Vec<ResourceEntry> = listed
        .into_iter()
        .map(|r| ResourceEntry {
            server: name.clone(),
            updated: updated.contains(&r.uri),
            uri: r.uri.clone(),
            name: r.name.clone(),
            mime_type: r.mime_type.clone(),
            description: r.description.clone(),
            template: false,
        })
        .collect();
    // Templates are optional: a server without them answers with an error.
    if let Ok(Ok(templates)) = tokio::time::timeout(RESOURCE_TIMEOUT, peer.list_all_resource_templates()).await {
        entries.extend(templates.into_iter().map(|t| ResourceEntry {
            server: name.clone(),
            uri: t.uri_template.clone(),
            name: t.name.clone(),
            mime_type: t.mime_type.clone(),
            description: t.description.clone(),
            template: true,
            updated: false,
        }));
    }
    Ok(entries)
}
