//! The words of the tool search: splitting names and text into terms, a light
//! English stemmer, the words a query says that add nothing, and the groups of
//! words that mean the same thing to a model asking for a tool.

/// Lowercase stemmed words: split on anything but letters and digits, and at
/// camelCase humps (`createIssue`, `HTTPServer`).
pub(super) fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut previous: Option<char> = None;
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            flush(&mut current, &mut out);
            previous = None;
            continue;
        }
        let hump = previous.is_some_and(|p| {
            (p.is_lowercase() && c.is_uppercase())
                || (p.is_uppercase() && c.is_uppercase() && chars.get(i + 1).is_some_and(|n| n.is_lowercase()))
                || (p.is_alphabetic() != c.is_alphabetic())
        });
        if hump {
            flush(&mut current, &mut out);
        }
        current.extend(c.to_lowercase());
        previous = Some(c);
    }
    flush(&mut current, &mut out);
    out.into_iter()
}

fn flush(current: &mut String, out: &mut Vec<String>) {
    if !current.is_empty() {
        out.push(stem(current));
        current.clear();
    }
}

/// A light English stemmer: plurals, `-ing`, `-ed`, `-ies`, then a final `e`, so
/// `create`, `creates`, `created` and `creating` are one term.
pub(super) fn stem(word: &str) -> String {
    if word.len() <= 3 || word.bytes().any(|b| b.is_ascii_digit()) {
        return word.to_owned();
    }
    let mut base = word.to_owned();
    let mut stripped = false;
    for (suffix, replacement) in [("ies", "y"), ("sses", "ss"), ("ches", "ch"), ("shes", "sh"), ("xes", "x")] {
        if let Some(rest) = word.strip_suffix(suffix) {
            base = format!("{rest}{replacement}");
            stripped = true;
            break;
        }
    }
    if !stripped
        && let Some(rest) = word.strip_suffix("ion")
        && rest.len() >= 4
        && rest.ends_with('t')
    {
        // creat(ion), select(ion): the verb's stem.
        base = rest.to_owned();
        stripped = true;
    }
    if !stripped {
        for suffix in ["ing", "ed"] {
            // Not `string` to `str`: what is left must hold a vowel.
            if let Some(rest) = word.strip_suffix(suffix)
                && rest.len() >= 3
                && rest.contains(['a', 'e', 'i', 'o', 'u', 'y'])
            {
                base = rest.to_owned();
                // runn(ing), dropp(ed): one of a doubled consonant.
                let b = base.as_bytes();
                if base.len() > 3 && b[b.len() - 1] == b[b.len() - 2] && !matches!(b[b.len() - 1], b'l' | b's' | b'z') {
                    base.pop();
                }
                stripped = true;
                break;
            }
        }
    }
    if !stripped && base.ends_with('s') && !base.ends_with("ss") && !base.ends_with("us") && !base.ends_with("is") {
        base.pop();
    }
    // Not `note` to `not`, which descriptions say in every other sentence.
    if base.len() > 3 && base.ends_with('e') && base != "note" {
        base.pop();
    }
    base
}

/// Words a query says that add nothing to the match.
pub(super) const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "to", "for", "of", "in", "on", "at", "by", "and", "or", "with", "from", "into", "my", "me", "i",
    "it", "is", "be", "this", "that", "these", "those", "some", "all", "please", "can", "you", "what", "which", "how",
    "do", "doe", "does", "want", "need", "would", "like", "our", "we", "us", "about", "as", "its", "their", "there",
    "tool", "use", "using", "are", "was", "were", "been", "have", "has", "had", "did",
];

/// The first words of a question: it asks to learn something, so a tool that
/// reads answers it before one that changes something.
pub(super) const QUESTION_WORDS: &[&str] = &[
    "which", "what", "who", "whom", "whose", "where", "when", "why", "how", "is", "are", "was", "were", "did", "does",
    "do", "has", "have", "any",
];

/// Verbs that name a tool which only reads (`list_channels`, `get_issue`);
/// compared once [`stem`]med.
pub(super) const READ_VERBS: &[&str] = &[
    "list", "get", "search", "find", "query", "read", "fetch", "retrieve", "view", "describe", "show", "count",
    "check", "inspect", "lookup", "explain", "analyze", "status", "whoami", "browse", "tree", "info", "history", "log",
];

/// Verbs that name a tool which changes something.
#[rustfmt::skip]
pub(super) const WRITE_VERBS: &[&str] = &[
    "create", "add", "new", "make", "insert", "delete", "remove", "drop", "destroy", "update", "edit", "modify", "set",
    "patch", "rename", "send", "post", "run", "execute", "exec", "trigger", "move", "copy", "write", "put", "upload",
    "install", "uninstall", "deploy", "merge", "close", "cancel", "kill", "stop", "start", "rollback", "restore",
    "push", "publish", "approve", "reject", "clear", "archive", "assign", "upgrade", "apply", "scale", "rerun", "fork",
];

/// What a verb in a tool's name says the tool does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum VerbKind {
    /// `list`, `get`, `search`, ...
    Reads,
    /// `create`, `delete`, `send`, ...
    Writes,
}

/// What the stemmed `term` says a tool named with it does, by the verb tables;
/// `None` when it is no verb they know.
pub(super) fn verb_kind(term: &str) -> Option<VerbKind> {
    // The tables stemmed once per process, not once per word of every tool.
    static STEMMED: std::sync::OnceLock<(Vec<String>, Vec<String>)> = std::sync::OnceLock::new();
    let (reads, writes) = STEMMED.get_or_init(|| {
        let stemmed = |verbs: &[&str]| verbs.iter().map(|v| stem(v)).collect();
        (stemmed(READ_VERBS), stemmed(WRITE_VERBS))
    });
    if writes.iter().any(|v| v == term) {
        Some(VerbKind::Writes)
    } else if reads.iter().any(|v| v == term) {
        Some(VerbKind::Reads)
    } else {
        None
    }
}

/// The verbs and nouns tools are named with, in groups that mean the same thing
/// to a model asking.
pub(super) const SYNONYMS: &[&[&str]] = &[
    &["create", "add", "new", "make", "open", "start", "insert"],
    &["delete", "remove", "drop", "destroy", "erase", "clear", "archive", "close", "cancel"],
    &["list", "show", "enumerate", "all", "browse", "index"],
    &["get", "fetch", "read", "retrieve", "view", "load", "describe", "detail", "info", "inspect", "download", "look"],
    &["search", "find", "query", "lookup", "look", "filter", "locate", "grep"],
    &["update", "edit", "modify", "change", "set", "patch", "rename", "alter", "adjust", "configure"],
    &["send", "post", "message", "notify", "publish", "reply", "dm", "email", "mail"],
    &["run", "execute", "exec", "invoke", "trigger", "launch", "dispatch", "call"],
    &["issue", "bug", "ticket", "problem", "defect", "task"],
    &["pull", "pr", "merge", "request"],
    &["repo", "repository", "project", "codebase"],
    &["file", "document", "doc", "page"],
    &["message", "chat", "conversation", "thread", "post"],
    &["channel", "room", "group"],
    &["user", "member", "person", "people", "account", "profile"],
    &["comment", "note", "annotation", "remark", "reply"],
    &["image", "picture", "photo", "screenshot"],
    &["event", "meeting", "appointment", "calendar", "schedule"],
    &["folder", "directory", "dir"],
    &["download", "export", "save"],
    &["upload", "import", "attach"],
    &["navigate", "go", "visit", "browse", "url"],
    &["click", "press", "tap"],
    &["type", "fill", "enter", "input"],
    &["table", "database", "db", "sql"],
    &["record", "row", "entry", "item"],
    &["branch", "ref"],
    &["commit", "revision"],
    &["diff", "change", "difference", "compare", "modification"],
    &["size", "big", "large", "length", "metadata"],
    &["local", "nearby", "near", "place", "business", "shop", "store", "restaurant"],
    &["relation", "link", "connect", "relationship", "edge"],
    &["sum", "add", "total", "plus", "calculate", "number"],
    &["current", "now", "today", "present"],
    &["react", "emoji", "reaction"],
    &["status", "state", "health"],
    &["log", "logs", "history", "audit"],
    &["payment", "charge", "invoice", "bill", "billing"],
    &["customer", "client", "contact"],
    &["weather", "forecast", "temperature", "rain", "snow", "sunny", "wind", "climate"],
    &["translate", "translation", "language"],
    &["summary", "summarize", "summarise", "overview"],
    &["stop", "kill", "terminate", "abort", "halt", "interrupt"],
    &["track", "progress", "monitor"],
    &["login", "authenticate", "signin", "auth"],
    // The verbs and objects of software work as a thesaurus lists them.
    &["delete", "trash", "discard", "purge", "wipe", "forget", "unlink", "rm"],
    &["get", "see", "check", "display"],
    &["search", "seek", "discover"],
    &["update", "mark", "amend", "revise", "tweak", "toggle"],
    &["reply", "respond", "answer"],
    &["send", "tell", "announce", "broadcast", "share", "forward", "ping"],
    &["run", "kick", "fire", "spawn", "perform"],
    &["stop", "shut", "end", "quit", "exit"],
    &["move", "relocate", "transfer", "mv"],
    &["copy", "duplicate", "clone", "cp", "fork"],
    &["deploy", "publish", "release", "ship", "rollout"],
    &["install", "setup"],
    &["uninstall", "remove"],
    &["approve", "accept", "confirm"],
    &["reject", "decline", "deny"],
    &["merge", "land", "combine", "integrate"],
    &["book", "schedule", "reserve", "arrange"],
    &["save", "store", "write", "persist", "keep", "remember", "record"],
    &["count", "many", "tally", "total"],
    &["restart", "reboot", "reload", "refresh"],
    &["wait", "pause", "sleep"],
    &["undo", "revert", "rollback", "restore"],
    &["assign", "delegate", "allocate"],
    &["subscribe", "follow", "watch"],
    &["user", "who", "team", "staff", "colleague"],
    &["error", "exception", "crash", "failure", "fault", "bug"],
    &["build", "compile", "pipeline", "ci", "job", "workflow"],
    &["secret", "credential", "key", "token", "password"],
    &["config", "configuration", "setting", "option", "preference"],
    &["column", "field", "attribute", "property"],
    &["web", "internet", "online", "site", "website"],
    &["comment", "feedback", "review"],
    &["event", "invite", "invitation"],
    &["free", "available", "availability", "busy"],
    &["size", "space", "disk", "storage", "usage"],
    &["location", "where", "address", "coordinate", "latitude", "longitude"],
    &["route", "direction", "drive", "travel", "trip"],
    &["screenshot", "capture", "snapshot"],
    &["container", "pod"],
    &["embedding", "embed", "vector"],
    &["model", "llm", "ai"],
    &["test", "spec"],
    &["version", "release", "tag"],
    &["process", "program", "task"],
    // File types as people name them and as patterns and names spell them.
    &["python", "py"],
    &["markdown", "md"],
    &["javascript", "js"],
    &["typescript", "ts"],
    &["yaml", "yml"],
];

/// The stemmed terms that mean the same as the stemmed `term`, in table order,
/// without repeats.
pub(super) fn synonyms(term: &str) -> Vec<String> {
    // The table stemmed once per process, not once per query word.
    static STEMMED: std::sync::OnceLock<Vec<Vec<String>>> = std::sync::OnceLock::new();
    let groups = STEMMED.get_or_init(|| SYNONYMS.iter().map(|group| group.iter().map(|w| stem(w)).collect()).collect());
    let mut out: Vec<String> = Vec::new();
    for stems in groups {
        if stems.iter().any(|s| s == term) {
            for s in stems {
                if s != term && !out.contains(s) {
                    out.push(s.clone());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_names_and_stem() {
        let w: Vec<String> = words("mcp__github__createIssue HTTPServer issues creating stored").collect();
        assert_eq!(w, ["mcp", "github", "creat", "issu", "http", "server", "issu", "creat", "stor"]);
        for (a, b) in
            [("opened", "open"), ("edited", "edit"), ("queries", "query"), ("running", "run"), ("added", "add")]
        {
            assert_eq!(stem(a), stem(b), "{a} {b}");
        }
        // Words that only end like a suffix keep it.
        for word in ["string", "thing", "spring", "shred"] {
            assert_eq!(stem(word), word);
        }
        assert_ne!(stem("string"), stem("store"));
        assert_ne!(stem("notes"), stem("not"), "a note is not a negation");
        assert_eq!(stem("notes"), stem("note"));
    }

    #[test]
    fn synonyms_are_stemmed_and_listed_once() {
        let found = synonyms(&stem("remove"));
        assert!(found.contains(&stem("delete")), "{found:?}");
        assert!(!found.contains(&stem("remove")));
        let unique: std::collections::HashSet<&String> = found.iter().collect();
        assert_eq!(unique.len(), found.len());
        // `add` is in two groups: creating and summing.
        let add = synonyms("add");
        assert!(add.contains(&stem("create")) && add.contains(&stem("sum")), "{add:?}");
    }
}
