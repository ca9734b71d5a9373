//! `toolwright mcp login|logout|list`: OAuth logins to the mounted HTTP servers,
//! kept in the user's credentials file (never beside the workspace), and each
//! server's transport and login state.

use super::mounts::McpArgs;
use super::turn::TrustArgs;
use std::time::Duration;
use toolwright::mcp::login::{self, CredentialFile, LoginRequest};
use toolwright::mcp::{McpConfig, McpMounts, MountOptions, OAuthSettings, ServerTransport};

#[derive(clap::Args)]
pub struct McpCommandArgs {
    #[command(subcommand)]
    command: McpCommand,
}

#[derive(clap::Subcommand)]
enum McpCommand {
    /// Log in to a server with OAuth: discover its authorization server, register,
    /// open the authorization page in a browser (`$BROWSER`, else xdg-open; the URL
    /// is printed too) and wait for its redirect to 127.0.0.1.
    Login(LoginArgs),
    /// Forget a server's login.
    Logout(ServerArgs),
    /// Each server of the config: its transport and login state.
    List(ConfigArgs),
}

#[derive(clap::Args)]
struct ConfigArgs {
    #[command(flatten)]
    mcp: McpArgs,
    #[command(flatten)]
    trust: TrustArgs,
}

#[derive(clap::Args)]
struct ServerArgs {
    /// The server's name in the config.
    server: String,
    #[command(flatten)]
    config: ConfigArgs,
}

#[derive(clap::Args)]
struct LoginArgs {
    #[command(flatten)]
    target: ServerArgs,
    /// Print the authorization URL only; start no browser.
    #[arg(long)]
    no_browser: bool,
    /// How long to wait for the browser's redirect, in seconds.
    #[arg(long, default_value_t = 300, value_name = "SECONDS")]
    timeout: u64,
}

pub fn run(args: McpCommandArgs) -> Result<String, String> {
    let text = match args.command {
        McpCommand::Login(args) => login_command(args)?,
        McpCommand::Logout(args) => logout(args)?,
        McpCommand::List(args) => list(args)?,
    };
    Ok(text + "\n")
}

fn credentials() -> Result<CredentialFile, String> {
    CredentialFile::default_location().map_err(|e| e.to_string())
}

impl ConfigArgs {
    fn load(&self) -> Result<McpConfig, String> {
        let cwd = std::env::current_dir().map_err(|e| format!("the working directory: {e}"))?;
        let trusted = self.trust.trust(&cwd).is_trusted();
        let config = self.mcp.config(&cwd, trusted, |w| say!("toolwright: warning: {w}"))?;
        let config = config.ok_or("no MCP servers: no .mcp.json here, and no --mcp-config")?;
        for warning in &config.warnings {
            say!("toolwright: warning: {warning}");
        }
        Ok(config)
    }
}

fn http_server<'a>(config: &'a McpConfig, name: &str) -> Result<(&'a str, &'a OAuthSettings), String> {
    let server = config.servers.get(name).ok_or_else(|| {
        let names: Vec<&str> = config.servers.keys().map(String::as_str).collect();
        format!("no MCP server `{name}` in the config (it has: {})", names.join(", "))
    })?;
    match &server.transport {
        ServerTransport::Http { url, oauth, .. } => Ok((url, oauth)),
        _ => Err(login::LoginError::NotHttp(name.to_owned()).to_string()),
    }
}

fn login_command(args: LoginArgs) -> Result<String, String> {
    let config = args.target.config.load()?;
    let name = args.target.server.as_str();
    let (url, settings) = http_server(&config, name)?;
    let file = credentials()?;
    let request = LoginRequest::new(name, url, settings.clone())
        .client_secret(std::env::var("MCP_CLIENT_SECRET").ok())
        .client_name(crate::program())
        .timeout(Duration::from_secs(args.timeout));
    let no_browser = args.no_browser;
    // Machine to machine: every connection asks for its own token; nothing to keep.
    let machine = settings.client_credentials;
    let tools = super::turn::block_on(async {
        if !machine {
            login::login(&request, &file, |url| present(url, no_browser)).await.map_err(|e| e.to_string())?;
        }
        // Mount it as every command will: the token works, and the tools are there.
        let mut one = McpConfig::default();
        one.servers.insert(name.to_owned(), config.servers[name].clone());
        let registry = std::sync::Arc::new(toolwright::Registry::builder().build().map_err(|e| e.to_string())?);
        let mounts = McpMounts::mount(registry, &one, MountOptions::default().credentials(Some(file.clone()))).await;
        let warnings = mounts.warnings();
        let tools = mounts.tools(name).len();
        mounts.shutdown().await;
        match warnings.into_iter().next() {
            Some(warning) if tools == 0 => Err(format!("mounting failed: {warning}")),
            _ => Ok(tools),
        }
    })??;
    if machine {
        return Ok(format!(
            "`{name}` takes the client credentials grant ({tools} tools): every connection asks for its own token, and nothing is kept"
        ));
    }
    Ok(format!("logged in to `{name}` ({tools} tools); the login is kept in {}", file.path().display()))
}

/// Shows the authorization URL: on stderr always, and in a browser unless asked not to.
fn present(url: &str, no_browser: bool) {
    say!("toolwright: open this URL to log in:\n  {url}");
    if no_browser {
        return;
    }
    let browser = std::env::var("BROWSER")
        .ok()
        .and_then(|b| b.split(':').map(str::trim).find(|c| !c.is_empty()).map(str::to_owned));
    let (program, mut arguments) = match &browser {
        Some(command) => {
            let mut words = command.split_whitespace().map(str::to_owned);
            let Some(program) = words.next() else { return };
            (program, words.collect::<Vec<_>>())
        }
        None => ("xdg-open".to_owned(), Vec::new()),
    };
    // The URL is one argument, never shell text.
    if arguments.iter().any(|a| a.contains("%s")) {
        arguments = arguments.into_iter().map(|a| a.replace("%s", url)).collect();
    } else {
        arguments.push(url.to_owned());
    }
    let started = std::process::Command::new(&program)
        .args(&arguments)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn();
    match started {
        // Reaped whenever it exits; the login does not wait for it.
        Ok(mut child) => drop(std::thread::spawn(move || child.wait())),
        Err(e) if browser.is_some() => say!("toolwright: warning: $BROWSER `{program}`: {e}"),
        Err(_) => {}
    }
}

fn logout(args: ServerArgs) -> Result<String, String> {
    let file = credentials()?;
    let removed = file.remove(&args.server).map_err(|e| e.to_string())?;
    Ok(match removed {
        0 => format!("no login for `{}`", args.server),
        _ => format!("logged out of `{}`", args.server),
    })
}

fn list(args: ConfigArgs) -> Result<String, String> {
    let config = args.load()?;
    let file = credentials()?;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let mut lines = Vec::new();
    for (name, server) in &config.servers {
        let (transport, state) = match &server.transport {
            ServerTransport::Stdio { command, .. } => {
                (format!("stdio `{command}`"), "no login (its environment)".into())
            }
            ServerTransport::Http { url, headers, headers_helper, .. } => {
                let state = match file.get(name, url).map_err(|e| e.to_string())? {
                    _ if matches!(&server.transport, ServerTransport::Http { oauth, .. } if oauth.client_credentials) => {
                        "client credentials (machine to machine, at each connection)".to_owned()
                    }
                    Some(login) => login_state(&login, now),
                    None if !headers.is_empty() || headers_helper.is_some() => "headers".to_owned(),
                    None => match super::turn::block_on(login::needs_login(url))? {
                        Ok(true) => format!("needs login: `{} mcp login {name}`", crate::program()),
                        Ok(false) => "none".to_owned(),
                        Err(e) => format!("unknown ({e})"),
                    },
                };
                (format!("http {url}"), state)
            }
            _ => ("unknown".to_owned(), String::new()),
        };
        lines.push(format!("{name}\t{transport}\t{state}"));
    }
    Ok(lines.join("\n"))
}

fn login_state(login: &login::Login, now: u64) -> String {
    match login.expires_at() {
        Some(at) if at > now => {
            let minutes = (at - now).div_ceil(60);
            format!(
                "logged in, the token valid for {minutes} more min{}",
                if login.can_refresh() { " (then renews itself)" } else { "" }
            )
        }
        Some(_) if login.can_refresh() => "logged in (token expired; renews on next use)".to_owned(),
        Some(_) => format!("needs login: the token expired (`{} mcp login {}`)", crate::program(), login.server),
        None => "logged in".to_owned(),
    }
}
