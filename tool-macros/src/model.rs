//! The annotated item, parsed into what expansion needs, keeping syn nodes for spans.

use crate::ctxt::Ctxt;
use syn::{Attribute, Data, DeriveInput, Fields, Ident, Meta};

/// A tool struct's field, as far as expansion cares.
pub(crate) struct Field {
    /// `#[serde(flatten)]`: serde cannot also deny unknown fields.
    pub(crate) flatten: bool,
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
                Fields::Named(named) => Some(Shape::Named(named.named.iter().map(Field::from_ast).collect())),
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
}

impl Field {
    fn from_ast(field: &syn::Field) -> Field {
        Field { flatten: has_word(&field.attrs, "serde", &["flatten"]) }
    }
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
fn derives(attrs: &[Attribute], name: &str) -> bool {
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
fn has_word(attrs: &[Attribute], ns: &str, words: &[&str]) -> bool {
    attrs.iter().filter(|a| a.path().is_ident(ns)).any(|a| {
        let mut found = false;
        let _ = a.parse_nested_meta(|meta| {
            found |= words.iter().any(|w| meta.path.is_ident(w));
            if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<syn::Expr>()?;
            } else if meta.input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in meta.input);
                content.parse::<proc_macro2::TokenStream>()?;
            }
            Ok(())
        });
        found
    })
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
