//! The annotated item, parsed into what expansion needs, keeping syn nodes for spans.

use crate::ctxt::Ctxt;
use proc_macro2::Span;
use syn::{Attribute, Data, DeriveInput, Fields, Ident, Meta};

/// The helper attribute on fields that says what the field names for the call.
pub(crate) const ACCESS_ATTR: &str = "access";

/// What `#[access(..)]` says a field names.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum AccessKind {
    /// A file the call reads.
    Read,
    /// A file the call creates or changes.
    Write,
    /// A directory the call lists or searches.
    Search,
    /// A URL the call fetches.
    Fetch,
    /// A shell command the call runs.
    Command,
}

const ACCESS_KINDS: &[(&str, AccessKind)] = &[
    ("read", AccessKind::Read),
    ("write", AccessKind::Write),
    ("search", AccessKind::Search),
    ("fetch", AccessKind::Fetch),
    ("command", AccessKind::Command),
];

/// A tool struct's field, as far as expansion cares.
pub(crate) struct Field {
    /// `#[serde(flatten)]`: serde cannot also deny unknown fields.
    pub(crate) flatten: bool,
    /// The field's name (a named field's).
    pub(crate) ident: Option<Ident>,
    /// The field's type.
    pub(crate) ty: syn::Type,
    /// `#[access(kind)]`, where it was written.
    pub(crate) access: Vec<(AccessKind, Span)>,
    /// Carries `#[schemars(..)]` (a length, a range, a pattern, ...): the input is
    /// checked against constraints serde does not know.
    pub(crate) constrained: bool,
}

/// The shape of the tool's input.
pub(crate) enum Shape {
    /// `struct X { .. }`, possibly empty.
    Named(Vec<Field>),
    /// `struct X;`: a tool without parameters.
    Unit,
}

pub(crate) struct Container<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) input: &'a DeriveInput,
    /// `None` when the item is not a struct with named fields (an error was recorded).
    pub(crate) shape: Option<Shape>,
    pub(crate) doc: String,
    pub(crate) derives_deserialize: bool,
    pub(crate) derives_json_schema: bool,
    pub(crate) denies_unknown_fields: bool,
}

impl<'a> Container<'a> {
    pub(crate) fn from_ast(cx: &mut Ctxt, input: &'a DeriveInput) -> Container<'a> {
        let shape = match &input.data {
            Data::Struct(s) => match &s.fields {
                Fields::Named(named) => {
                    Some(Shape::Named(named.named.iter().map(|field| Field::from_ast(cx, field)).collect()))
                }
                Fields::Unit => Some(Shape::Unit),
                Fields::Unnamed(fields) => {
                    cx.error_spanned_by(
                        fields,
                        "`#[tool]` needs a struct with named fields: the field names are the tool's parameter names",
                    );
                    None
                }
            },
            Data::Enum(e) => {
                cx.error_spanned_by(
                    e.enum_token,
                    "`#[tool]` cannot be used on an enum: a tool's input is an object with named parameters; make a struct and put the enum in a field",
                );
                None
            }
            Data::Union(u) => {
                cx.error_spanned_by(
                    u.union_token,
                    "`#[tool]` cannot be used on a union; use a struct with named fields",
                );
                None
            }
        };
        if !input.generics.params.is_empty() {
            cx.error_spanned_by(
                &input.generics,
                "`#[tool]` structs cannot be generic: each tool is registered once, in a static, at link time; make a concrete struct for each instantiation",
            );
        }
        Container {
            ident: &input.ident,
            input,
            shape,
            doc: doc_comment(&input.attrs),
            derives_deserialize: derives(&input.attrs, "Deserialize"),
            derives_json_schema: derives(&input.attrs, "JsonSchema"),
            denies_unknown_fields: has_word(&input.attrs, "serde", &["deny_unknown_fields"]),
        }
    }

    pub(crate) fn has_flatten(&self) -> bool {
        matches!(&self.shape, Some(Shape::Named(fields)) if fields.iter().any(|f| f.flatten))
    }

    /// The fields with `#[access(..)]`.
    pub(crate) fn access_fields(&self) -> impl Iterator<Item = &Field> {
        let fields = match &self.shape {
            Some(Shape::Named(fields)) => fields.as_slice(),
            _ => &[],
        };
        fields.iter().filter(|f| !f.access.is_empty())
    }

    /// Whether a field carries `#[schemars(..)]` constraints.
    pub(crate) fn has_constraints(&self) -> bool {
        matches!(&self.shape, Some(Shape::Named(fields)) if fields.iter().any(|f| f.constrained))
    }
}

impl Field {
    fn from_ast(cx: &mut Ctxt, field: &syn::Field) -> Field {
        let mut access = Vec::new();
        for attr in field.attrs.iter().filter(|a| a.path().is_ident(ACCESS_ATTR)) {
            let parsed = attr.parse_nested_meta(|meta| {
                let word = meta.path.get_ident().map(Ident::to_string).unwrap_or_default();
                match ACCESS_KINDS.iter().find(|(name, _)| *name == word) {
                    Some((_, kind)) if access.iter().any(|(k, _)| k == kind) => {
                        cx.error_spanned_by(&meta.path, format!("`#[access({word})]` is given twice"));
                    }
                    Some((_, kind)) => {
                        access.push((*kind, meta.path.get_ident().map_or_else(Span::call_site, Ident::span)))
                    }
                    None => {
                        let names: Vec<&str> = ACCESS_KINDS.iter().map(|(n, _)| *n).collect();
                        let nearest = names
                            .iter()
                            .map(|n| (crate::attr::edit_distance(&word, n), *n))
                            .min()
                            .filter(|(d, _)| *d <= 2)
                            .map(|(_, n)| format!("; did you mean `{n}`?"))
                            .unwrap_or_default();
                        cx.error_spanned_by(
                            &meta.path,
                            format!("unknown access `{word}`{nearest}\nvalid kinds: {}", names.join(", ")),
                        );
                    }
                }
                Ok(())
            });
            if let Err(e) = parsed {
                cx.syn_error(e);
            }
        }
        Field {
            flatten: has_word(&field.attrs, "serde", &["flatten"]),
            constrained: field.attrs.iter().any(|a| a.path().is_ident("schemars")),
            ident: field.ident.clone(),
            ty: field.ty.clone(),
            access,
        }
    }
}

/// The item with the `#[access(..)]` helper attributes taken off its fields (they are
/// `#[tool]`'s, not real attributes).
pub(crate) fn without_access_attrs(input: &DeriveInput) -> DeriveInput {
    let mut item = input.clone();
    if let Data::Struct(s) = &mut item.data {
        for field in s.fields.iter_mut() {
            field.attrs.retain(|a| !a.path().is_ident(ACCESS_ATTR));
        }
    }
    item
}

/// The doc comment, one leading space per line removed, soft-wrapped lines of a
/// paragraph joined (see [`reflow`]).
fn doc_comment(attrs: &[Attribute]) -> String {
    let mut lines = Vec::new();
    for attr in attrs {
        if let Meta::NameValue(nv) = &attr.meta
            && nv.path.is_ident("doc")
            && let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = &nv.value
        {
            // `split`, not `lines`: an empty `///` line is a paragraph break to keep.
            for line in s.value().split('\n') {
                lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned());
            }
        }
    }
    reflow(&lines).trim().to_owned()
}

/// Joins the source's soft line breaks with spaces, so the model reads paragraphs,
/// not 90-column lines. Blank lines (paragraph breaks), list items, table rows,
/// headings, indented lines and fenced code keep their own lines.
pub(crate) fn reflow(lines: &[String]) -> String {
    let mut out = String::new();
    let mut in_fence = false;
    let mut previous_joins = false;
    for line in lines {
        let trimmed = line.trim_start();
        let fence = trimmed.starts_with("```");
        let structural = fence
            || in_fence
            || trimmed.is_empty()
            || line.starts_with(' ')
            || line.starts_with('\t')
            || trimmed.starts_with(['-', '*', '+', '|', '#', '>'])
            || trimmed.split_once(". ").is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if out.is_empty() && trimmed.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(if previous_joins && !structural { ' ' } else { '\n' });
        }
        out.push_str(line);
        if fence {
            in_fence = !in_fence;
        }
        // A line may take the next one onto it if it is ordinary prose or a list
        // item (whose continuation lines are indented, so stay separate anyway).
        previous_joins = !in_fence && !fence && !trimmed.is_empty() && !trimmed.starts_with(['|', '#']);
    }
    out
}

/// Whether `#[derive(..)]` lists a derive whose last path segment is `name`.
pub(crate) fn derives(attrs: &[Attribute], name: &str) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("derive")).any(|a| {
        let mut found = false;
        let _ = a.parse_nested_meta(|meta| {
            found |= meta.path.segments.last().is_some_and(|s| s.ident == name);
            Ok(())
        });
        found
    })
}

/// Whether an `#[ns(...)]` attribute mentions one of `words` as a key.
pub(crate) fn has_word(attrs: &[Attribute], ns: &str, words: &[&str]) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident(ns))
        .filter_map(meta_keys)
        .any(|keys| keys.iter().any(|key| words.iter().any(|w| key.is_ident(w))))
}

/// The keys of an attribute written `ns(key, key = value, key(..))`, or `None`
/// when it is not written so.
pub(crate) fn meta_keys(attr: &Attribute) -> Option<Vec<syn::Path>> {
    let mut keys = Vec::new();
    attr.parse_nested_meta(|meta| {
        keys.push(meta.path.clone());
        if meta.input.peek(syn::Token![=]) {
            meta.value()?.parse::<syn::Expr>()?;
        } else if meta.input.peek(syn::token::Paren) {
            let content;
            syn::parenthesized!(content in meta.input);
            content.parse::<proc_macro2::TokenStream>()?;
        }
        Ok(())
    })
    .ok()?;
    Some(keys)
}

#[cfg(test)]
mod tests {
    use super::reflow;

    fn doc(text: &str) -> String {
        reflow(&text.split('\n').map(str::to_owned).collect::<Vec<_>>())
    }

    #[test]
    fn paragraphs_join_and_breaks_stay() {
        assert_eq!(doc("Read a file.\n\nLines are\nnumbered."), "Read a file.\n\nLines are numbered.");
    }

    #[test]
    fn lists_tables_and_code_keep_their_lines() {
        let text =
            "Modes:\n- content\n- count\n\n| a | b |\n|---|---|\n\n```\nlet x = 1;\nlet y = 2;\n```\n1. one\n2. two";
        assert_eq!(doc(text), text);
    }
}
