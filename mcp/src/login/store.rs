//! Where logins are kept: one JSON file of the user's, mode 0600 in a 0700 folder,
//! outside every workspace, replaced whole by a rename so that a crash leaves the old
//! file or the new one, never half of either.

use super::LoginError;
use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// The largest credentials file read (logins are a few KiB each).
const MAX_FILE_BYTES: u64 = 4 << 20;

/// The environment variable that moves the credentials file (tests, several users).
pub const CREDENTIALS_FILE_ENV: &str = "TOOLWRIGHT_MCP_CREDENTIALS";

/// One server's login: its tokens and client, for one server name and one URL (the
/// resource the tokens were issued for).
#[derive(Clone, Serialize, Deserialize)]
pub struct Login {
    /// The server's name in the config.
    pub server: String,
    /// The server's URL: the resource the tokens are for.
    pub url: String,
    /// The client and tokens, as rmcp's authorization manager keeps them.
    pub credentials: StoredCredentials,
    /// A pre-registered client's secret (from `MCP_CLIENT_SECRET` at login).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// Scopes the server asked for since (a call's `403 insufficient_scope`): the next
    /// login asks for them too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wanted_scopes: Vec<String>,
    /// A 2025-03-26 server's authorization metadata (it has no protected resource
    /// metadata to discover it by again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legacy_metadata: Option<rmcp::transport::auth::AuthorizationMetadata>,
}

impl std::fmt::Debug for Login {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Login")
            .field("server", &self.server)
            .field("url", &self.url)
            .field("client_id", &self.credentials.client_id)
            .finish_non_exhaustive()
    }
}

impl Login {
    /// When the access token stops working (seconds since the epoch), if the server said.
    pub fn expires_at(&self) -> Option<u64> {
        use oauth2::TokenResponse as _;
        let token = self.credentials.token_response.as_ref()?;
        Some(self.credentials.token_received_at? + token.expires_in()?.as_secs())
    }

    /// Whether a refresh token was issued (so an expired access token renews itself).
    pub fn can_refresh(&self) -> bool {
        use oauth2::TokenResponse as _;
        self.credentials.token_response.as_ref().is_some_and(|t| t.refresh_token().is_some())
    }
}

/// The credentials file.
#[derive(Debug, Clone)]
pub struct CredentialFile {
    path: PathBuf,
    // One writer at a time within the process: a refresh and a login racing.
    lock: Arc<Mutex<()>>,
}

impl CredentialFile {
    /// The file at `path`.
    pub fn at(path: impl Into<PathBuf>) -> Self {
        CredentialFile { path: path.into(), lock: Arc::new(Mutex::new(())) }
    }

    /// `$TOOLWRIGHT_MCP_CREDENTIALS`, else `$XDG_STATE_HOME/toolwright/mcp-credentials.json`,
    /// else `~/.local/state/toolwright/mcp-credentials.json`.
    pub fn default_location() -> Result<Self, LoginError> {
        if let Some(path) = std::env::var_os(CREDENTIALS_FILE_ENV).filter(|p| !p.is_empty()) {
            return Ok(Self::at(path));
        }
        let state = match std::env::var_os("XDG_STATE_HOME").filter(|p| Path::new(p).is_absolute()) {
            Some(dir) => PathBuf::from(dir),
            None => match std::env::var_os("HOME").filter(|p| Path::new(p).is_absolute()) {
                Some(home) => PathBuf::from(home).join(".local/state"),
                None => return Err(LoginError::NoHome),
            },
        };
        Ok(Self::at(state.join("toolwright/mcp-credentials.json")))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn key(server: &str, url: &str) -> String {
        format!("{server} {url}")
    }

    /// Whether there is a file to read: none yet, or a regular file. Anything else (a
    /// device, a pipe, a link, a folder) is refused, never read from nor replaced.
    fn present(&self) -> Result<bool, LoginError> {
        match std::fs::symlink_metadata(&self.path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(LoginError::Store { path: self.path.clone(), message: e.to_string() }),
            Ok(meta) if meta.file_type().is_file() => Ok(true),
            Ok(_) => Err(LoginError::Store {
                path: self.path.clone(),
                message: "is not a regular file (a link, a device, a pipe or a folder); it is neither read \
                          nor replaced: name a file of its own"
                    .into(),
            }),
        }
    }

    fn read(&self) -> Result<BTreeMap<String, Login>, LoginError> {
        if !self.present()? {
            return Ok(BTreeMap::new());
        }
        let fail = |e: std::io::Error| LoginError::Store { path: self.path.clone(), message: e.to_string() };
        let mut text = String::new();
        let file = std::fs::File::open(&self.path).map_err(fail)?;
        std::io::Read::read_to_string(&mut std::io::Read::take(file, MAX_FILE_BYTES + 1), &mut text).map_err(fail)?;
        if text.len() as u64 > MAX_FILE_BYTES {
            return Err(LoginError::Store {
                path: self.path.clone(),
                message: format!("is over {MAX_FILE_BYTES} bytes: not a credentials file"),
            });
        }
        serde_json::from_str(&text).map_err(|e| LoginError::Store {
            path: self.path.clone(),
            message: format!("not a credentials file ({e}); move it away and log in again"),
        })
    }

    fn write(&self, logins: &BTreeMap<String, Login>) -> Result<(), LoginError> {
        let fail = |e: std::io::Error| LoginError::Store { path: self.path.clone(), message: e.to_string() };
        self.present()?;
        let dir = self.path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if !dir.exists() {
            std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(fail)?;
        }
        let temp = dir.join(format!(
            ".{}.{}.tmp",
            self.path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default(),
            std::process::id()
        ));
        let _ = std::fs::remove_file(&temp);
        let mut file =
            std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&temp).map_err(fail)?;
        let text = serde_json::to_string_pretty(logins).unwrap_or_default();
        let written = file.write_all(text.as_bytes()).and_then(|()| file.sync_all());
        drop(file);
        if let Err(e) = written.and_then(|()| std::fs::rename(&temp, &self.path)) {
            let _ = std::fs::remove_file(&temp);
            return Err(fail(e));
        }
        // A file that was there before keeps no wider mode than ours.
        std::fs::set_permissions(&self.path, std::fs::Permissions::from_mode(0o600)).map_err(fail)?;
        Ok(())
    }

    /// The login for `server` at `url`, if there is one.
    pub fn get(&self, server: &str, url: &str) -> Result<Option<Login>, LoginError> {
        Ok(self.read()?.remove(&Self::key(server, url)))
    }

    /// Every login, in the order of their servers' names.
    pub fn all(&self) -> Result<Vec<Login>, LoginError> {
        Ok(self.read()?.into_values().collect())
    }

    /// Keeps `login`, replacing the one for the same server and URL.
    pub fn put(&self, login: Login) -> Result<(), LoginError> {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let mut logins = self.read()?;
        logins.insert(Self::key(&login.server, &login.url), login);
        self.write(&logins)
    }

    /// Notes that `server` at `url` asked for `scopes` (space-separated) that its
    /// login lacks, for the next login to ask for; nothing without a login.
    pub fn want_scopes(&self, server: &str, url: &str, scopes: &str) -> Result<(), LoginError> {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let mut logins = self.read()?;
        let Some(login) = logins.get_mut(&Self::key(server, url)) else { return Ok(()) };
        let before = login.wanted_scopes.len();
        for scope in scopes.split_whitespace() {
            if !login.wanted_scopes.iter().any(|s| s == scope) {
                login.wanted_scopes.push(scope.to_owned());
            }
        }
        if login.wanted_scopes.len() == before {
            return Ok(());
        }
        self.write(&logins)
    }

    /// Forgets every login of `server` (whatever its URL); how many there were.
    pub fn remove(&self, server: &str) -> Result<usize, LoginError> {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let mut logins = self.read()?;
        let before = logins.len();
        logins.retain(|_, login| login.server != server);
        let removed = before - logins.len();
        if removed > 0 {
            self.write(&logins)?;
        }
        Ok(removed)
    }

    /// The store rmcp's authorization manager reads and refreshes for one server.
    pub(crate) fn for_server(&self, server: &str, url: &str) -> ServerCredentials {
        ServerCredentials { file: self.clone(), server: server.to_owned(), url: url.to_owned() }
    }
}

/// One server's entry in the file, as rmcp's [`CredentialStore`]: a refreshed token
/// lands in the file, so the next run starts with it.
pub(crate) struct ServerCredentials {
    file: CredentialFile,
    server: String,
    url: String,
}

fn store_error(e: LoginError) -> AuthError {
    AuthError::InternalError(e.to_string())
}

#[async_trait::async_trait]
impl CredentialStore for ServerCredentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        Ok(self.file.get(&self.server, &self.url).map_err(store_error)?.map(|login| login.credentials))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        // A refresh keeps the secret; a new login (new client or scopes) starts afresh.
        let before = self.file.get(&self.server, &self.url).map_err(store_error)?;
        let same_client = before.as_ref().is_some_and(|b| b.credentials.client_id == credentials.client_id);
        let (client_secret, wanted_scopes, legacy_metadata) = match before {
            Some(before) if same_client => {
                let granted = &credentials.granted_scopes;
                let wanted = before.wanted_scopes.into_iter().filter(|s| !granted.contains(s)).collect();
                (before.client_secret, wanted, before.legacy_metadata)
            }
            _ => (None, Vec::new(), None),
        };
        self.file
            .put(Login {
                server: self.server.clone(),
                url: self.url.clone(),
                credentials,
                client_secret,
                wanted_scopes,
                legacy_metadata,
            })
            .map_err(store_error)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        let _guard = self.file.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let mut logins = self.file.read().map_err(store_error)?;
        if logins.remove(&CredentialFile::key(&self.server, &self.url)).is_some() {
            self.file.write(&logins).map_err(store_error)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn login(server: &str, url: &str) -> Login {
        Login {
            server: server.into(),
            url: url.into(),
            credentials: StoredCredentials::new("client-1".into(), None, vec![], None),
            client_secret: None,
            wanted_scopes: Vec::new(),
            legacy_metadata: None,
        }
    }

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn the_file_is_the_users_alone_and_replaced_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/toolwright/mcp-credentials.json");
        let file = CredentialFile::at(&path);
        file.put(login("a", "https://a.example/mcp")).unwrap();
        file.put(login("b", "https://b.example/mcp")).unwrap();
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(path.parent().unwrap()), 0o700);
        // Nothing is left beside it.
        let names: Vec<_> =
            std::fs::read_dir(path.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("mcp-credentials.json")]);
        assert_eq!(file.all().unwrap().len(), 2);
        assert!(file.get("a", "https://a.example/mcp").unwrap().is_some());
        // A login is for one server at one URL.
        assert!(file.get("a", "https://elsewhere.example/mcp").unwrap().is_none());
        // A 403's scope is noted for the next login, once.
        file.want_scopes("a", "https://a.example/mcp", "mcp:write mcp:basic").unwrap();
        file.want_scopes("a", "https://a.example/mcp", "mcp:write").unwrap();
        let wanted = file.get("a", "https://a.example/mcp").unwrap().unwrap().wanted_scopes;
        assert_eq!(wanted, ["mcp:write", "mcp:basic"]);
        assert_eq!(file.remove("a").unwrap(), 1);
        assert_eq!(file.remove("a").unwrap(), 0);
        assert_eq!(file.all().unwrap().len(), 1);
    }

    #[test]
    fn a_wider_file_is_narrowed_and_a_broken_one_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("credentials.json");
        std::fs::write(&path, "{}").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let file = CredentialFile::at(&path);
        file.put(login("a", "https://a.example/mcp")).unwrap();
        assert_eq!(mode(&path), 0o600);
        std::fs::write(&path, "not json").unwrap();
        let err = file.get("a", "https://a.example/mcp").unwrap_err().to_string();
        assert!(err.starts_with(&path.display().to_string()) && err.contains("log in again"), "{err}");
        // Debug output names the login, never its tokens.
        assert!(!format!("{:?}", login("a", "u")).contains("token"));
    }

    #[test]
    fn a_device_or_a_link_is_neither_read_nor_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.json");
        std::fs::write(&target, "{}").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        for path in [Path::new("/dev/null"), Path::new("/dev/zero"), link.as_path(), dir.path()] {
            let file = CredentialFile::at(path);
            let err = file.put(login("a", "https://a.example/mcp")).unwrap_err().to_string();
            assert!(err.contains("not a regular file"), "{}: {err}", path.display());
            assert!(file.get("a", "https://a.example/mcp").is_err(), "{}", path.display());
        }
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "{}");
        assert!(std::os::unix::fs::FileTypeExt::is_char_device(&std::fs::metadata("/dev/null").unwrap().file_type()));
    }
}
