//! The permission seam: a policy decides allow / deny / ask, an approver answers asks.
//!
//! The rule engine (Claude Code settings) plugs in here as a [`PermissionPolicy`].

use crate::access::{Access, Accesses};
use crate::future::BoxFuture;
use crate::spec::Flags;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// What the policy says about one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionDecision {
    /// Run it.
    Allow,
    /// Do not run it; the reason is shown to the model.
    Deny(String),
    /// Ask the approver; the text says what is being asked. A hook's allow, or an
    /// earlier "always allow" for the tool, answers it without asking.
    Ask(String),
    /// Ask the approver, whatever hooks say: an explicit ask rule matched, or the call
    /// could not be checked against the rules. Only the approver answers it.
    AskRule(String),
}

/// One call, as the policy and approver see it.
#[derive(Debug, Clone, Copy)]
pub struct PermissionRequest<'a> {
    /// The tool's own name.
    pub tool: &'a str,
    /// The tool's rule name ([`ToolSpec::rule_name`](crate::ToolSpec::rule_name)):
    /// Claude Code's name for it, which rules may use instead of `tool`.
    pub rule_name: Option<&'a str>,
    /// What the call touches: the facts a policy decides on.
    pub access: &'a Accesses,
    /// The name the model used (maybe an alias).
    pub invoked_name: &'a str,
    /// The provider's call id.
    pub call_id: &'a str,
    /// The arguments as JSON text (for approvers and hooks to show; a policy decides on
    /// [`access`](Self::access)).
    pub input: &'a str,
    /// The flags for this input (scheduling facts: `read_only` means the call changes
    /// nothing, not that it needs no permission).
    pub flags: Flags,
    /// The working directory.
    pub cwd: &'a Path,
    /// The tool's own one-line summary of the call, if it gives one.
    pub own_summary: Option<&'a str>,
    /// The turn's extensions: what the host put there for approvers (an MCP server
    /// puts the client's peer, so that an ask can become an elicitation).
    pub extensions: &'a crate::extensions::Extensions,
}

impl<'a> PermissionRequest<'a> {
    /// One line saying what the call does: the tool's own summary, or the name and
    /// input.
    pub fn summary(&self) -> std::borrow::Cow<'a, str> {
        match self.own_summary {
            Some(s) => std::borrow::Cow::Borrowed(s),
            None => std::borrow::Cow::Owned(crate::summary::default_summary(self.tool, self.input)),
        }
    }
}

/// Decides whether a call may run.
pub trait PermissionPolicy: Send + Sync {
    /// The decision for `request`.
    fn check(&self, request: &PermissionRequest<'_>) -> PermissionDecision;

    /// Whether `tool` is offered at all to the caller these extensions describe (a
    /// served registry lists only these, per caller). Defaults to every tool.
    fn offers(&self, tool: &str, extensions: &crate::extensions::Extensions) -> bool {
        let _ = (tool, extensions);
        true
    }

    /// The permission mode as Claude Code names it (`default`, `acceptEdits`, `plan`,
    /// ...), for hooks' `permission_mode`. Defaults to none (hooks get `default`).
    fn mode_name(&self) -> Option<&str> {
        None
    }

    /// The permission mode for a call with these extensions (a subagent's turn may
    /// carry a mode of its own). Defaults to [`mode_name`](Self::mode_name).
    fn mode_name_in(&self, extensions: &crate::extensions::Extensions) -> Option<&str> {
        let _ = extensions;
        self.mode_name()
    }

    /// The user answered "always allow" for `request`: remember it in the policy's
    /// own terms (a rule keyed on what the call does) and return true. The default
    /// returns false, and the executor then stops asking about the whole tool.
    fn remember(&self, request: &PermissionRequest<'_>) -> bool {
        let _ = request;
        false
    }

    /// What the tools of an allowed call must not read while they walk directories
    /// (a search of `.` must skip `secrets/` when reading it is denied). The executor
    /// asks for it once the call is allowed and hands it to the call's context, so
    /// every entry point gets it without wiring. Defaults to none.
    fn read_filter(&self, cwd: &Path) -> Option<Arc<dyn ReadFilter>> {
        let _ = cwd;
        None
    }

    /// What the tools of an allowed call must leave out of what they find on the web
    /// (a web search's results on a domain the rules deny fetching): the executor
    /// hands it to the context of calls that fetch or declare nothing. Defaults to
    /// none.
    fn fetch_filter(&self) -> Option<Arc<dyn FetchFilter>> {
        None
    }

    /// How an allowed call's commands are confined by the operating system. The
    /// executor asks for it for calls that run commands and hands it to the call's
    /// context. `None` (the default): the shell's default, confined where the
    /// kernel allows it ([`Sandbox::default`](crate::sandbox::Sandbox)).
    fn sandbox(&self, cwd: &Path) -> Option<Arc<crate::sandbox::Sandbox>> {
        let _ = cwd;
        None
    }
}

/// Paths a walking tool skips: what the permission rules deny reading. Built-in tools
/// ask it for every entry they walk and every file they open.
pub trait ReadFilter: Send + Sync + std::fmt::Debug {
    /// Why reading `path` (absolute) is denied, if it is.
    fn denied(&self, path: &Path, is_dir: bool) -> Option<String>;
}

/// URLs a tool leaves out of what it shows: what the permission rules deny fetching.
pub trait FetchFilter: Send + Sync + std::fmt::Debug {
    /// Why fetching `url` is denied, if it is.
    fn denied(&self, url: &url::Url) -> Option<String>;
}

/// The default: calls that touch nothing, or only read and search inside the working
/// directory, run; everything else asks. Being `read_only` is not enough: a read-only
/// fetch can still send data anywhere, and a read-only tool that declares nothing may
/// read anything.
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultPolicy;

impl PermissionPolicy for DefaultPolicy {
    fn check(&self, request: &PermissionRequest<'_>) -> PermissionDecision {
        let reads_inside = |path: &str| inside(request.cwd, path);
        let harmless = request.access.is_declared()
            && request.access.iter().all(|fact| match fact {
                Access::Read(path) | Access::Search(path) => reads_inside(path),
                _ => false,
            });
        if harmless {
            PermissionDecision::Allow
        } else {
            PermissionDecision::Ask(format!("Allow {}?", request.summary()))
        }
    }
}

/// Whether `path`, named from `cwd`, stays inside `cwd`: `..` folded, symlinks
/// resolved where the path exists.
pub fn inside(cwd: &Path, path: &str) -> bool {
    let mut lexical = PathBuf::from(cwd);
    if path.starts_with('~') {
        return false;
    }
    for component in Path::new(path).components() {
        match component {
            Component::ParentDir => {
                lexical.pop();
            }
            Component::Normal(name) => lexical.push(name),
            Component::RootDir => lexical = PathBuf::from("/"),
            Component::CurDir | Component::Prefix(_) => {}
        }
    }
    if !lexical.starts_with(cwd) {
        return false;
    }
    // A link inside may point outside: the real path of the nearest existing
    // ancestor decides (a new file below a linked directory is created where it points).
    let Ok(root) = cwd.canonicalize() else { return false };
    let mut existing = lexical.as_path();
    let mut rest = Vec::new();
    loop {
        match existing.canonicalize() {
            Ok(mut real) => {
                real.extend(rest.iter().rev());
                return real.starts_with(root);
            }
            Err(_) => match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_owned());
                    existing = parent;
                }
                _ => return false,
            },
        }
    }
}

/// Allows every call (trusted sandboxes, tests, benchmarks).
#[derive(Debug, Clone, Copy, Default)]
pub struct AllowAll;

impl PermissionPolicy for AllowAll {
    fn check(&self, _request: &PermissionRequest<'_>) -> PermissionDecision {
        PermissionDecision::Allow
    }
}

impl<F: Fn(&PermissionRequest<'_>) -> PermissionDecision + Send + Sync> PermissionPolicy for F {
    fn check(&self, request: &PermissionRequest<'_>) -> PermissionDecision {
        self(request)
    }
}

/// In a call's extensions: the call is never put to the approver, and what would
/// ask is denied, saying why no one was asked. A skill's `!` commands run so (Claude
/// Code never prompts for them: only what a rule allows runs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoQuestions(pub std::borrow::Cow<'static, str>);

/// The approver's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Run this call.
    AllowOnce,
    /// Run this call, and do not ask again for this tool in this executor.
    AlwaysAllow,
    /// A person was asked and said no, with an optional reason for the model.
    Deny(Option<String>),
    /// Nobody could be asked (no terminal, a client without elicitation, a setting that
    /// answers no): the call does not run, and the result says why no one answered.
    Unanswered(String),
}

/// Answers the policy's asks: a prompt on a TTY, a UI dialog, an MCP elicitation.
pub trait Approver: Send + Sync {
    /// The answer for `request`; `question` is the policy's text.
    fn approve<'a>(&'a self, request: &'a PermissionRequest<'a>, question: &'a str) -> BoxFuture<'a, Approval>;
}

/// A closure that answers at once is an approver (and so is a `Box` of one).
impl<F> Approver for F
where
    F: Fn(&PermissionRequest<'_>, &str) -> Approval + Send + Sync,
{
    fn approve<'a>(&'a self, request: &'a PermissionRequest<'a>, question: &'a str) -> BoxFuture<'a, Approval> {
        let answer = self(request, question);
        Box::pin(std::future::ready(answer))
    }
}

impl<A: Approver + ?Sized> Approver for Arc<A> {
    fn approve<'a>(&'a self, request: &'a PermissionRequest<'a>, question: &'a str) -> BoxFuture<'a, Approval> {
        (**self).approve(request, question)
    }
}

/// Nobody is there to answer (a headless agent, a CI job): every ask is
/// [`Approval::Unanswered`], so the call does not run and the model is told why.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unattended;

impl Approver for Unattended {
    fn approve<'a>(&'a self, _request: &'a PermissionRequest<'a>, _question: &'a str) -> BoxFuture<'a, Approval> {
        Box::pin(std::future::ready(Approval::Unanswered("no one is there to answer (an unattended run)".into())))
    }
}
