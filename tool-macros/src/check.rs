//! Checks of the serde and schemars attributes on a tool or an input type, made before their derives
//! see them. A key either derive does not know makes it give up on its impl, and
//! every use of the tool then fails too (`JsonSchema` or `Deserialize` is not
//! implemented, once for each use); caught here, the key is the one error, with
//! the nearest known key as a suggestion.

use crate::ctxt::Ctxt;
use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, Data, DeriveInput};

/// Keys serde reads on a struct.
const SERDE_CONTAINER: &[&str] = &[
    "rename",
    "rename_all",
    "rename_all_fields",
    "deny_unknown_fields",
    "tag",
    "content",
    "untagged",
    "bound",
    "default",
    "remote",
    "transparent",
    "from",
    "try_from",
    "into",
    "crate",
    "expecting",
    "variant_identifier",
    "field_identifier",
];

/// Keys serde reads on a field.
const SERDE_FIELD: &[&str] = &[
    "rename",
    "alias",
    "default",
    "flatten",
    "skip",
    "skip_serializing",
    "skip_deserializing",
    "skip_serializing_if",
    "serialize_with",
    "deserialize_with",
    "with",
    "borrow",
    "bound",
    "getter",
];

/// Keys serde reads on an enum's variant.
const SERDE_VARIANT: &[&str] = &[
    "rename",
    "alias",
    "rename_all",
    "skip",
    "skip_serializing",
    "skip_deserializing",
    "serialize_with",
    "deserialize_with",
    "with",
    "bound",
    "borrow",
    "other",
    "untagged",
];

/// serde's keys that schemars also takes in `#[schemars(..)]`.
const SCHEMARS_SERDE: &[&str] = &[
    "rename",
    "rename_all",
    "rename_all_fields",
    "deny_unknown_fields",
    "tag",
    "content",
    "untagged",
    "default",
    "skip",
    "skip_serializing",
    "skip_serializing_if",
    "skip_deserializing",
    "flatten",
    "remote",
    "transparent",
    "into",
    "from",
    "try_from",
    "bound",
];

/// schemars' own keys on a struct (schemars 1, the version toolwright derives with).
const SCHEMARS_CONTAINER: &[&str] =
    &["title", "description", "example", "extend", "transform", "crate", "inline", "with", "schema_with"];

/// schemars' own keys on a field, its validation keys among them.
const SCHEMARS_FIELD: &[&str] = &[
    "title",
    "description",
    "example",
    "extend",
    "transform",
    "with",
    "schema_with",
    "length",
    "range",
    "required",
    "pattern",
    "regex",
    "contains",
    "inner",
    "email",
    "url",
    "ip",
    "ipv4",
    "ipv6",
];

/// schemars' own keys on an enum's variant.
const SCHEMARS_VARIANT: &[&str] = &["title", "description", "example", "extend", "transform", "with", "schema_with"];

/// Which derives the macro itself adds: only their attributes are checked (a
/// user's own derive may be another version with other keys).
pub(crate) struct Derived {
    pub(crate) serde: bool,
    pub(crate) schemars: bool,
}

/// Records an error for each unknown key; returns whether there was one.
pub(crate) fn attribute_keys(cx: &mut Ctxt, input: &DeriveInput, derived: &Derived) -> bool {
    let mut found = false;
    let schemars_container = [SCHEMARS_CONTAINER, SCHEMARS_SERDE].concat();
    let schemars_field = [SCHEMARS_FIELD, SCHEMARS_SERDE].concat();
    if derived.serde {
        found |= unknown_keys(cx, &input.attrs, "serde", SERDE_CONTAINER);
    }
    if derived.schemars {
        found |= unknown_keys(cx, &input.attrs, "schemars", &schemars_container);
    }
    let schemars_variant = [SCHEMARS_VARIANT, SCHEMARS_SERDE].concat();
    let mut fields: Vec<&syn::Field> = Vec::new();
    match &input.data {
        Data::Struct(data) => fields.extend(&data.fields),
        Data::Enum(data) => {
            for variant in &data.variants {
                if derived.serde {
                    found |= unknown_keys(cx, &variant.attrs, "serde", SERDE_VARIANT);
                }
                if derived.schemars {
                    found |= unknown_keys(cx, &variant.attrs, "schemars", &schemars_variant);
                }
                fields.extend(&variant.fields);
            }
        }
        Data::Union(_) => {}
    }
    for field in fields {
        if derived.serde {
            found |= unknown_keys(cx, &field.attrs, "serde", SERDE_FIELD);
        }
        if derived.schemars {
            found |= unknown_keys(cx, &field.attrs, "schemars", &schemars_field);
        }
    }
    found
}

fn unknown_keys(cx: &mut Ctxt, attrs: &[Attribute], ns: &str, known: &[&str]) -> bool {
    let mut found = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident(ns)) {
        // What does not parse as `key`, `key = value` or `key(..)` (schemars'
        // `!key`, say) is left to the derive.
        let Some(keys) = crate::model::meta_keys(attr) else { continue };
        for path in keys {
            let key = path.get_ident().map(ToString::to_string).unwrap_or_default();
            if known.contains(&key.as_str()) {
                continue;
            }
            found = true;
            let shown = quote::quote!(#path).to_string().replace(' ', "");
            let nearest = known
                .iter()
                .map(|k| (strsim::damerau_levenshtein(k, &key), *k))
                .filter(|(distance, _)| *distance <= 2.max(key.len() / 3))
                .min();
            let hint = match nearest {
                Some((_, k)) => format!("; did you mean `{k}`?"),
                None => format!("; it takes {}", listed(known)),
            };
            cx.error_spanned_by(&path, format!("unknown {ns} attribute `{shown}`{hint}"));
        }
    }
    found
}

fn listed(keys: &[&str]) -> String {
    let mut keys: Vec<&str> = keys.to_vec();
    keys.sort_unstable();
    keys.dedup();
    keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
}

/// The item without serde's and schemars' attributes, for when their derives are
/// left out (the attributes would be unknown without them).
pub(crate) fn without_derive_attrs(input: &DeriveInput, derived: &Derived) -> DeriveInput {
    let mut item = input.clone();
    let ours = |a: &Attribute| {
        (derived.serde && a.path().is_ident("serde")) || (derived.schemars && a.path().is_ident("schemars"))
    };
    item.attrs.retain(|a| !ours(a));
    match &mut item.data {
        Data::Struct(data) => data.fields.iter_mut().for_each(|f| f.attrs.retain(|a| !ours(a))),
        Data::Enum(data) => {
            for variant in data.variants.iter_mut() {
                variant.attrs.retain(|a| !ours(a));
                variant.fields.iter_mut().for_each(|f| f.attrs.retain(|a| !ours(a)));
            }
        }
        Data::Union(_) => {}
    }
    item
}

/// `Deserialize` (always an error: the item did not compile) and `JsonSchema` impls
/// standing in for the derives left out, so that uses of the item compile and the
/// one error is the one that explains the mistake.
pub(crate) fn placeholder_derives(input: &DeriveInput, krate: &syn::Path, derived: &Derived) -> TokenStream {
    let p = quote!(#krate::__private);
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let mut de_generics = input.generics.clone();
    de_generics.params.insert(0, syn::parse_quote!('de));
    let (de_impl_generics, _, _) = de_generics.split_for_impl();
    let deserialize = derived.serde.then(|| {
        quote! {
            #[automatically_derived]
            impl #de_impl_generics #p::serde::Deserialize<'de> for #ident #ty_generics #where_clause {
                fn deserialize<__D: #p::serde::Deserializer<'de>>(
                    _: __D,
                ) -> ::core::result::Result<Self, __D::Error> {
                    ::core::result::Result::Err(<__D::Error as #p::serde::de::Error>::custom("did not compile"))
                }
            }
        }
    });
    let json_schema = derived.schemars.then(|| {
        quote! {
            #[automatically_derived]
            impl #impl_generics #p::schemars::JsonSchema for #ident #ty_generics #where_clause {
                fn schema_name() -> #p::Cow<'static, str> {
                    #p::Cow::Borrowed(::core::stringify!(#ident))
                }
                fn json_schema(_: &mut #p::schemars::SchemaGenerator) -> #p::schemars::Schema {
                    #p::no_params_schema()
                }
            }
        }
    });
    quote!(#deserialize #json_schema)
}
