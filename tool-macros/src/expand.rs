//! Generates the code for one `#[tool]`: the item with its derives, the static spec,
//! `ToolInfo`, field checks and the `inventory` submission. On error the item and
//! placeholder impls are still emitted next to `compile_error!`, so one mistake gives
//! one message.

use crate::attr::{self, Flag, ToolAttrs};
use crate::check;
use crate::ctxt::Ctxt;
use crate::model::{AccessKind, Container, Shape, has_word, without_access_attrs};
use heck::ToSnakeCase;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Path};

pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(item.clone()) {
        Ok(input) => input,
        Err(_) => {
            let error =
                syn::Error::new(Span::call_site(), "`#[tool]` goes on a struct with named fields").to_compile_error();
            return quote!(#error #item);
        }
    };
    let mut cx = Ctxt::default();
    let attrs = ToolAttrs::parse(&mut cx, args);
    let container = Container::from_ast(&mut cx, &input);
    let spec = SpecValues::resolve(&mut cx, &attrs, &container);
    let krate = attrs.krate.clone().unwrap_or_else(|| syn::parse_quote!(::toolwright));

    let generic = !input.generics.params.is_empty();
    let derived = check::Derived { serde: !container.derives_deserialize, schemars: !container.derives_json_schema };
    // (Only a struct that can be a tool is worth the look: the others get placeholders anyway.)
    let unknown_keys =
        matches!(container.shape, Some(Shape::Named(_))) && check::attribute_keys(&mut cx, &input, &derived);
    let body = match &container.shape {
        Some(shape) if !generic && !unknown_keys => tool_impls(&container, shape, &spec, &krate),
        _ => placeholder_impls(&container, &spec, &krate, &derived),
    };
    let errors = cx.into_compile_errors();
    quote! {
        #body
        #errors
    }
}

/// The spec's values after checking, with fallbacks where a value was wrong.
struct SpecValues {
    name: String,
    aliases: Vec<(String, bool)>,
    title: Option<String>,
    icons: Vec<String>,
    description: String,
    read_only: bool,
    concurrency_safe: bool,
    destructive: bool,
    idempotent: bool,
    open_world: bool,
    /// Where `partial_input` was set, if it is on.
    partial_input: Option<Span>,
    timeout_secs: Option<u64>,
    /// `(bytes, is_tokens)`.
    output_limit: Option<(usize, bool)>,
    rule_name: Option<String>,
    /// `#[tool(pure)]`: the tool touches nothing outside its input.
    pure: bool,
    /// `#[tool(defer)]`: offered through the tool search only.
    defer: bool,
}

impl SpecValues {
    fn resolve(cx: &mut Ctxt, attrs: &ToolAttrs, container: &Container) -> SpecValues {
        let ident = container.ident;
        let name = match &attrs.name {
            Some(lit) => {
                let name = lit.value();
                if !attr::is_portable_name(&name) {
                    cx.error_spanned_by(lit, format!("invalid tool name `{name}`: {}", NAME_RULE));
                }
                name
            }
            None => {
                let name = ident.to_string().trim_start_matches("r#").to_snake_case();
                if !attr::is_portable_name(&name) {
                    cx.error_spanned_by(
                        ident,
                        format!("the tool name derived from `{ident}` is `{name}`, which is invalid: {NAME_RULE}; set one with `#[tool(name = \"...\")]`"),
                    );
                }
                name
            }
        };
        let mut aliases: Vec<(String, bool)> = Vec::new();
        for (lit, advertised) in &attrs.aliases {
            let alias = lit.value();
            if !attr::is_portable_name(&alias) {
                cx.error_spanned_by(lit, format!("invalid alias `{alias}`: {NAME_RULE}"));
            } else if alias == name {
                cx.error_spanned_by(lit, format!("the alias `{alias}` is the tool's own name; remove it"));
            } else if aliases.iter().any(|(a, _)| *a == alias) {
                cx.error_spanned_by(lit, format!("the alias `{alias}` is listed twice"));
            }
            aliases.push((alias, *advertised));
        }
        let description = match &attrs.description {
            Some(lit) => {
                let text = lit.value().trim().to_owned();
                if text.is_empty() {
                    cx.error_spanned_by(
                        lit,
                        "the tool description is empty; the model reads it to decide when to call the tool",
                    );
                }
                text
            }
            None => {
                if container.doc.is_empty() {
                    cx.error_spanned_by(
                        ident,
                        format!("tool `{ident}` has no description: add a doc comment (`/// What the tool does.`) above the struct, or `#[tool(description = \"...\")]`"),
                    );
                }
                container.doc.clone()
            }
        };
        let title = attrs.title.as_ref().map(|lit| {
            let title = lit.value();
            if title.trim().is_empty() {
                cx.error_spanned_by(lit, "the tool title is empty");
            }
            title
        });
        let icons = attrs
            .icons
            .iter()
            .map(|lit| {
                let icon = lit.value();
                if let Err(why) = attr::check_icon(&icon) {
                    cx.error_spanned_by(lit, format!("icon `{icon}`: {why}"));
                }
                icon
            })
            .collect();
        check_contradiction(cx, attrs.read_only, attrs.destructive);
        let timeout_secs = positive(cx, attrs.timeout_secs.as_ref(), "timeout_secs");
        let bytes = positive(cx, attrs.max_output_bytes.as_ref(), "max_output_bytes");
        let tokens = positive(cx, attrs.max_output_tokens.as_ref(), "max_output_tokens");
        if let (Some(_), Some(lit)) = (bytes, &attrs.max_output_tokens) {
            cx.error_spanned_by(lit, "give `max_output_bytes` or `max_output_tokens`, not both");
        }
        let output_limit = bytes.map(|b| (b as usize, false)).or(tokens.map(|t| (t as usize, true)));
        let rule_name = attrs.rule_name.as_ref().map(|lit| {
            let rule_name = lit.value();
            if rule_name.is_empty() || !rule_name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
                cx.error_spanned_by(
                    lit,
                    format!("invalid rule name `{rule_name}`: a rule name is the name permission rules use for the tool (`Read`, `Bash`), letters, digits, `_` or `-`"),
                );
            }
            rule_name
        });
        if attrs.pure.value
            && let Some(field) = container.access_fields().next()
        {
            let span = field.access[0].1;
            cx.error_at(span, "`#[access(..)]` contradicts `#[tool(pure)]`: a pure tool touches nothing outside its input; remove one of them");
        }
        SpecValues {
            rule_name,
            pure: attrs.pure.value,
            defer: attrs.defer.value,
            timeout_secs,
            output_limit,
            name,
            aliases,
            title,
            icons,
            description,
            read_only: attrs.read_only.value,
            concurrency_safe: attrs.concurrency_safe.value,
            destructive: attrs.destructive.value,
            idempotent: attrs.idempotent.value,
            open_world: attrs.open_world.value,
            partial_input: attrs.partial_input.value.then(|| attrs.partial_input.span.unwrap_or_else(Span::call_site)),
        }
    }
}

/// A positive integer attribute value, or an error on its literal.
fn positive(cx: &mut Ctxt, lit: Option<&syn::LitInt>, key: &str) -> Option<u64> {
    let lit = lit?;
    match lit.base10_parse::<u64>() {
        Ok(0) => {
            cx.error_spanned_by(lit, format!("`{key}` must be at least 1"));
            None
        }
        Ok(n) => Some(n),
        Err(e) => {
            cx.error_spanned_by(lit, format!("`{key}` must be a whole number: {e}"));
            None
        }
    }
}

const NAME_RULE: &str = "names must match ^[A-Za-z_][A-Za-z0-9_-]{0,62}$ (a letter or `_` first, then letters, digits, `_` or `-`, at most 63 in all: Gemini's limit, the strictest), the one rule every provider accepts";

fn check_contradiction(cx: &mut Ctxt, read_only: Flag, destructive: Flag) {
    if read_only.value && destructive.value {
        let span = destructive.span.unwrap_or_else(Span::call_site);
        cx.error_at(span, "`read_only` and `destructive` contradict each other: a read-only tool changes nothing, so it cannot destroy anything");
    }
}

/// `static` spec + `ToolInfo` impl, shared by the real and the placeholder expansion.
/// The placeholder leaves out the partial-input hook, whose missing impl would be a
/// second error.
fn spec_and_info(container: &Container, spec: &SpecValues, krate: &Path, placeholder: bool) -> TokenStream {
    let p = quote!(#krate::__private);
    let ident = container.ident;
    let (impl_generics, ty_generics, where_clause) = container.input.generics.split_for_impl();
    let name = &spec.name;
    let description = &spec.description;
    let aliases = spec.aliases.iter().map(|(a, advertised)| {
        if *advertised { quote!(#p::Alias::advertised(#a)) } else { quote!(#p::Alias::hidden(#a)) }
    });
    let title = match &spec.title {
        Some(t) => quote!(::core::option::Option::Some(#p::Cow::Borrowed(#t))),
        None => quote!(::core::option::Option::None),
    };
    let icons = spec.icons.iter().map(|icon| quote!(#p::Cow::Borrowed(#icon)));
    let SpecValues { read_only, concurrency_safe, destructive, idempotent, open_world, .. } = *spec;
    let timeout = match spec.timeout_secs {
        Some(secs) => quote!(::core::option::Option::Some(#p::Duration::from_secs(#secs))),
        None => quote!(::core::option::Option::None),
    };
    let output_limit = match spec.output_limit {
        Some((n, false)) => quote!(::core::option::Option::Some(#p::OutputLimit::Bytes(#n))),
        Some((n, true)) => quote!(::core::option::Option::Some(#p::OutputLimit::Tokens(#n))),
        None => quote!(::core::option::Option::None),
    };
    // A missing `impl PartialInput` is reported on the `partial_input` key.
    let partial_input = spec.partial_input.filter(|_| !placeholder).map(|span| {
        quote_spanned! {span=>
            const PARTIAL_INPUT: ::core::option::Option<#p::PartialInputFn> =
                ::core::option::Option::Some(#p::partial_input_of::<Self>);
        }
    });
    // `line!()` spanned at the struct name reports the struct's line.
    let line = quote_spanned!(ident.span()=> ::core::line!());
    let rule_name = match &spec.rule_name {
        Some(r) => quote!(::core::option::Option::Some(#p::Cow::Borrowed(#r))),
        None => quote!(::core::option::Option::None),
    };
    let declared_access = (!placeholder).then(|| declared_access(container, spec, &p));
    // Constrained inputs are built from the tree the check walked (one parse);
    // others keep the default, which instantiates one deserializer, not two.
    let parse_input = (!placeholder && container.has_constraints()).then(|| {
        quote! {
            fn parse_input(
                __validator: &#p::Validator,
                __raw: &[u8],
            ) -> ::core::result::Result<Self, #p::InputError> {
                __validator.parse_walked::<Self>(__raw)
            }
        }
    });
    let defer = if spec.defer { quote!(#p::Defer::Always) } else { quote!(#p::Defer::Never) };
    quote! {
        static __TOOLWRIGHT_SPEC: #p::ToolSpec = #p::ToolSpec {
            name: #p::Cow::Borrowed(#name),
            aliases: #p::Cow::Borrowed(&[#(#aliases),*]),
            title: #title,
            icons: #p::Cow::Borrowed(&[#(#icons),*]),
            description: #p::Cow::Borrowed(#description),
            flags: #p::Flags {
                read_only: #read_only,
                concurrency_safe: #concurrency_safe,
                destructive: #destructive,
                idempotent: #idempotent,
                open_world: #open_world,
            },
            origin: #p::ToolOrigin::Source { file: #p::Cow::Borrowed(::core::file!()), line: #line },
            timeout: #timeout,
            output_limit: #output_limit,
            rule_name: #rule_name,
            defer: #defer,
        };

        #[automatically_derived]
        impl #impl_generics #p::ToolInfo for #ident #ty_generics #where_clause {
            const SPEC: &'static #p::ToolSpec = &__TOOLWRIGHT_SPEC;
            #partial_input
            #declared_access
            #parse_input
        }
    }
}

/// `ToolInfo::declared_access`, from `#[tool(pure)]` and the fields' `#[access(..)]`;
/// nothing (the default, undeclared) when neither is given.
fn declared_access(container: &Container, spec: &SpecValues, p: &TokenStream) -> Option<TokenStream> {
    let fields: Vec<_> = container.access_fields().collect();
    if fields.is_empty() && !spec.pure {
        return None;
    }
    let pushes = fields.iter().flat_map(|field| {
        let ident = field.ident.as_ref();
        let ty = &field.ty;
        field.access.iter().map(move |(kind, span)| {
            let fact = match kind {
                AccessKind::Read => quote!(#p::Access::Read(::std::borrow::ToOwned::to_owned(__value))),
                AccessKind::Write => quote!(#p::Access::Write(::std::borrow::ToOwned::to_owned(__value))),
                AccessKind::Search => quote!(#p::Access::Search(::std::borrow::ToOwned::to_owned(__value))),
                AccessKind::Fetch => quote!(#p::fetch_of(__value)),
                AccessKind::Command => quote!(#p::Access::Command(#p::CommandLine::new(__value))),
            };
            // A field of the wrong type is reported at the `#[access(..)]` key.
            quote_spanned! {*span=>
                <#ty as #p::AccessPaths>::each_path(&self.#ident, &mut |__value: &str| __access.push(#fact));
            }
        })
    });
    Some(quote! {
        fn declared_access(&self) -> #p::Accesses {
            let mut __access = #p::Accesses::none();
            #(#pushes)*
            __access
        }
    })
}

fn tool_impls(container: &Container, shape: &Shape, spec: &SpecValues, krate: &Path) -> TokenStream {
    let p = quote!(#krate::__private);
    let ident = container.ident;
    let input = container.input;
    let krate_text = quote!(#krate).to_string().replace(' ', "");

    let (item, extra_impls) = match shape {
        Shape::Named(_) => {
            let mut derives = Vec::new();
            let mut helpers: Vec<syn::Attribute> = Vec::new();
            if !container.derives_deserialize {
                derives.push(quote!(#p::serde::Deserialize));
                let path = format!("{krate_text}::__private::serde");
                helpers.push(syn::parse_quote!(#[serde(crate = #path)]));
            }
            if !container.derives_json_schema {
                derives.push(quote!(#p::schemars::JsonSchema));
                let path = format!("{krate_text}::__private::schemars");
                helpers.push(syn::parse_quote!(#[schemars(crate = #path)]));
            }
            // Unknown fields are errors the model can read, unless a flattened field
            // needs them (serde cannot combine the two).
            if !container.denies_unknown_fields && !container.has_flatten() {
                helpers.push(syn::parse_quote!(#[serde(deny_unknown_fields)]));
            }
            // Our derive goes first and our helper attributes last, so every helper
            // (ours and the user's) comes after the derive that introduces it.
            let mut item = without_access_attrs(input);
            if !derives.is_empty() {
                item.attrs.insert(0, syn::parse_quote!(#[derive(#(#derives),*)]));
            }
            item.attrs.extend(helpers);
            let checks = field_checks(input, &p);
            (quote!(#checks #item), TokenStream::new())
        }
        Shape::Unit => {
            let name = &spec.name;
            let impls = quote! {
                #[automatically_derived]
                impl<'de> #p::serde::Deserialize<'de> for #ident {
                    fn deserialize<__D: #p::serde::Deserializer<'de>>(
                        deserializer: __D,
                    ) -> ::core::result::Result<Self, __D::Error> {
                        ::core::result::Result::map(#p::deserialize_no_params(deserializer, #name), |()| #ident)
                    }
                }

                #[automatically_derived]
                impl #p::schemars::JsonSchema for #ident {
                    fn schema_name() -> #p::Cow<'static, str> {
                        #p::Cow::Borrowed(::core::stringify!(#ident))
                    }
                    fn json_schema(_: &mut #p::schemars::SchemaGenerator) -> #p::schemars::Schema {
                        #p::no_params_schema()
                    }
                }
            };
            (quote!(#input), impls)
        }
    };
    let info = spec_and_info(container, spec, krate, false);
    // A missing `impl Tool` is reported here, at the struct's name.
    let descriptor = quote_spanned!(ident.span()=> #p::ToolDescriptor::of::<#ident>());
    quote! {
        #item

        const _: () = {
            #extra_impls
            #info
            #p::inventory::submit! { #descriptor }
        };
    }
}

/// Checks each field's type is an input type, on the field's own span, before
/// serde's and schemars' derives use it: a type that is not gets, first, an error
/// on the field that names `#[toolwright::input]`. Fields serde or schemars do
/// not read with the type's own impls (skipped, `with`, `deserialize_with`,
/// `schema_with`) are left alone.
fn field_checks(item: &syn::DeriveInput, p: &TokenStream) -> TokenStream {
    let syn::Data::Struct(data) = &item.data else { return TokenStream::new() };
    let checks = data.fields.iter().filter_map(|field| {
        if has_word(&field.attrs, "serde", &["skip", "skip_deserializing", "with", "deserialize_with"])
            || has_word(&field.attrs, "schemars", &["with", "schema_with"])
        {
            return None;
        }
        let ty = &field.ty;
        Some(quote_spanned!(ty.span()=> #p::input_field::<#ty>();))
    });
    quote! {
        const _: () = {
            #(#checks)*
        };
    }
}

/// For an item that cannot be a tool: the item unchanged, plus impls that let the
/// user's `impl Tool` compile, so the only error is the one that explains the mistake.
fn placeholder_impls(container: &Container, spec: &SpecValues, krate: &Path, derived: &check::Derived) -> TokenStream {
    let info = spec_and_info(container, spec, krate, true);
    // The derives are not run: their attributes go, and a user's own derive stays.
    let input = check::without_derive_attrs(&without_access_attrs(container.input), derived);
    let derives = check::placeholder_derives(container.input, krate, derived);
    quote! {
        #input

        const _: () = {
            #derives
            #info
        };
    }
}
