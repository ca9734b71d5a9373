//! The keys of `#[tool(...)]`, parsed into [`ToolAttrs`] with their spans.

use crate::ctxt::Ctxt;
use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::{Expr, ExprArray, Lit, LitBool, LitInt, LitStr, Path};

pub(crate) const NAME: &str = "name";
pub(crate) const DESCRIPTION: &str = "description";
pub(crate) const TITLE: &str = "title";
pub(crate) const ALIASES: &str = "aliases";
pub(crate) const ADVERTISED_ALIASES: &str = "advertised_aliases";
pub(crate) const CRATE: &str = "crate";
pub(crate) const READ_ONLY: &str = "read_only";
pub(crate) const CONCURRENCY_SAFE: &str = "concurrency_safe";
pub(crate) const DESTRUCTIVE: &str = "destructive";
pub(crate) const IDEMPOTENT: &str = "idempotent";
pub(crate) const OPEN_WORLD: &str = "open_world";
pub(crate) const TIMEOUT_SECS: &str = "timeout_secs";
pub(crate) const MAX_OUTPUT_BYTES: &str = "max_output_bytes";
pub(crate) const MAX_OUTPUT_TOKENS: &str = "max_output_tokens";
pub(crate) const PARTIAL_INPUT: &str = "partial_input";
pub(crate) const RULE_NAME: &str = "rule_name";
pub(crate) const PURE: &str = "pure";
pub(crate) const DEFER: &str = "defer";
pub(crate) const ICONS: &str = "icons";

const ALL_KEYS: &[&str] = &[
    NAME,
    DESCRIPTION,
    TITLE,
    ALIASES,
    ADVERTISED_ALIASES,
    CRATE,
    READ_ONLY,
    CONCURRENCY_SAFE,
    DESTRUCTIVE,
    IDEMPOTENT,
    OPEN_WORLD,
    TIMEOUT_SECS,
    MAX_OUTPUT_BYTES,
    MAX_OUTPUT_TOKENS,
    PARTIAL_INPUT,
    RULE_NAME,
    PURE,
    DEFER,
    ICONS,
];

/// A boolean flag and where it was set.
#[derive(Default, Clone, Copy)]
pub(crate) struct Flag {
    pub(crate) value: bool,
    pub(crate) span: Option<Span>,
}

#[derive(Default)]
pub(crate) struct ToolAttrs {
    pub(crate) name: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    /// `(literal, advertised)`, in the order written.
    pub(crate) aliases: Vec<(LitStr, bool)>,
    /// Icon URIs, in the order written.
    pub(crate) icons: Vec<LitStr>,
    pub(crate) krate: Option<Path>,
    pub(crate) read_only: Flag,
    pub(crate) concurrency_safe: Flag,
    pub(crate) destructive: Flag,
    pub(crate) idempotent: Flag,
    pub(crate) open_world: Flag,
    pub(crate) partial_input: Flag,
    pub(crate) pure: Flag,
    pub(crate) defer: Flag,
    pub(crate) rule_name: Option<LitStr>,
    pub(crate) timeout_secs: Option<LitInt>,
    pub(crate) max_output_bytes: Option<LitInt>,
    pub(crate) max_output_tokens: Option<LitInt>,
    seen: Vec<String>,
}

impl ToolAttrs {
    /// Parses the attribute's arguments, recording every problem in `cx`.
    pub(crate) fn parse(cx: &mut Ctxt, args: TokenStream) -> ToolAttrs {
        let mut attrs = ToolAttrs::default();
        let parser = syn::meta::parser(|meta| attrs.parse_key(cx, meta));
        if let Err(e) = parser.parse2(args) {
            cx.syn_error(e);
        }
        attrs
    }

    fn parse_key(&mut self, cx: &mut Ctxt, meta: ParseNestedMeta) -> syn::Result<()> {
        let key = meta.path.get_ident().map(|i| i.to_string()).unwrap_or_else(|| path_text(&meta.path));
        if !ALL_KEYS.contains(&key.as_str()) {
            cx.error_spanned_by(&meta.path, unknown_key_message(&key));
            return skip_value(&meta);
        }
        if self.seen.contains(&key) {
            cx.error_spanned_by(&meta.path, format!("duplicate `#[tool]` key `{key}`"));
            return skip_value(&meta);
        }
        self.seen.push(key.clone());
        match key.as_str() {
            NAME => self.name = Some(meta.value()?.parse()?),
            DESCRIPTION => self.description = Some(meta.value()?.parse()?),
            TITLE => self.title = Some(meta.value()?.parse()?),
            RULE_NAME => self.rule_name = Some(meta.value()?.parse()?),
            CRATE => self.krate = Some(meta.value()?.call(Path::parse_mod_style)?),
            TIMEOUT_SECS => self.timeout_secs = Some(meta.value()?.parse()?),
            MAX_OUTPUT_BYTES => self.max_output_bytes = Some(meta.value()?.parse()?),
            MAX_OUTPUT_TOKENS => self.max_output_tokens = Some(meta.value()?.parse()?),
            ICONS => {
                let list: ExprArray = meta.value()?.parse()?;
                for elem in list.elems {
                    match elem {
                        Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => self.icons.push(s),
                        other => cx.error_spanned_by(
                            other,
                            "an icon must be a string literal, as in `icons = [\"https://example.com/search.svg\"]`",
                        ),
                    }
                }
            }
            ALIASES | ADVERTISED_ALIASES => {
                let advertised = key == ADVERTISED_ALIASES;
                let list: ExprArray = meta.value()?.parse()?;
                for elem in list.elems {
                    match elem {
                        Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) => self.aliases.push((s, advertised)),
                        other => {
                            cx.error_spanned_by(other, "an alias must be a string literal, as in `aliases = [\"cat\"]`")
                        }
                    }
                }
            }
            _ => {
                let value =
                    if meta.input.peek(syn::Token![=]) { meta.value()?.parse::<LitBool>()?.value } else { true };
                let flag = Flag { value, span: Some(meta.path.get_ident().map_or_else(Span::call_site, |i| i.span())) };
                match key.as_str() {
                    READ_ONLY => self.read_only = flag,
                    CONCURRENCY_SAFE => self.concurrency_safe = flag,
                    DESTRUCTIVE => self.destructive = flag,
                    IDEMPOTENT => self.idempotent = flag,
                    PARTIAL_INPUT => self.partial_input = flag,
                    PURE => self.pure = flag,
                    DEFER => self.defer = flag,
                    _ => self.open_world = flag,
                }
            }
        }
        Ok(())
    }
}

fn path_text(path: &Path) -> String {
    path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().join("::")
}

/// Consumes `= value` after a key that was rejected, so parsing can go on.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _content;
        syn::parenthesized!(_content in meta.input);
        let _: TokenStream = _content.parse()?;
    }
    Ok(())
}

fn unknown_key_message(key: &str) -> String {
    let nearest = ALL_KEYS.iter().map(|k| (edit_distance(key, k), *k)).min().filter(|(d, _)| *d <= 3);
    let hint = match nearest {
        Some((_, k)) => format!("; did you mean `{k}`?"),
        None => String::new(),
    };
    format!("unknown `#[tool]` key `{key}`{hint}\nvalid keys: {}", ALL_KEYS.join(", "))
}

/// Levenshtein distance, for "did you mean".
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The rule every provider accepts: `^[A-Za-z_][A-Za-z0-9_-]{0,62}$` (Gemini's
/// older API allows 63 characters in all; the others 64).
pub(crate) fn is_portable_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && name.len() <= 63
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// An icon MCP clients can show: an `https` URL, or a base64 `data:image/...` URI
/// (the MCP spec's two forms; plain `http` would let anyone on the path swap it).
pub(crate) fn check_icon(icon: &str) -> Result<(), &'static str> {
    if let Some(rest) = icon.strip_prefix("https://") {
        if rest.is_empty() || rest.starts_with('/') || icon.contains(char::is_whitespace) {
            return Err("not an https URL with a host");
        }
        return Ok(());
    }
    if let Some(rest) = icon.strip_prefix("data:image/") {
        return if rest.contains(";base64,") {
            Ok(())
        } else {
            Err("a data URI here is `data:image/<type>;base64,...`")
        };
    }
    Err("an icon is an `https://` URL or a `data:image/...;base64,` URI")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_pick_the_nearest_key() {
        assert!(unknown_key_message("readonly").contains("did you mean `read_only`?"));
        assert!(unknown_key_message("alias").contains("did you mean `aliases`?"));
        assert!(!unknown_key_message("zzzzzzzzzz").contains("did you mean"));
    }

    #[test]
    fn portable_names() {
        assert!(is_portable_name("read_file"));
        assert!(is_portable_name("_x-1"));
        assert!(!is_portable_name(""));
        assert!(!is_portable_name("1x"));
        assert!(!is_portable_name("a.b"));
        assert!(!is_portable_name(&"a".repeat(64)), "one past Gemini's limit");
        assert!(is_portable_name(&"a".repeat(63)));
    }
}
