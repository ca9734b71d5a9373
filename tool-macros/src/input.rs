//! `#[input]`: a type used inside a tool's input (a nested struct, an enum) gets the
//! same derives as the tool itself, through toolwright's re-exports, so the user's
//! crate needs neither serde nor schemars.

use crate::ctxt::Ctxt;
use crate::model::{derives, has_word};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Data, DeriveInput, Fields, Path};

pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut input: DeriveInput = match syn::parse2(item.clone()) {
        Ok(input) => input,
        Err(_) => {
            let error = syn::Error::new(Span::call_site(), "`#[input]` goes on a struct or an enum").to_compile_error();
            return quote!(#error #item);
        }
    };
    let mut cx = Ctxt::default();
    let krate = parse_args(&mut cx, args);
    if let Data::Union(union) = &input.data {
        // The item alone, without derives that would only repeat the error.
        cx.error_spanned_by(union.union_token, "`#[input]` goes on a struct or an enum: serde cannot read a union");
        let errors = cx.into_compile_errors();
        return quote!(#input #errors);
    }
    let derived = crate::check::Derived {
        serde: !derives(&input.attrs, "Deserialize"),
        schemars: !derives(&input.attrs, "JsonSchema"),
    };
    if crate::check::attribute_keys(&mut cx, &input, &derived) {
        // The item without the derives that would give up on it, and impls that
        // let its uses compile, so that the unknown key is the one error.
        let item = crate::check::without_derive_attrs(&input, &derived);
        let placeholders = crate::check::placeholder_derives(&input, &krate, &derived);
        let errors = cx.into_compile_errors();
        return quote!(#item const _: () = { #placeholders }; #errors);
    }
    let krate_text = quote!(#krate).to_string().replace(' ', "");
    let mut derive_paths = Vec::new();
    let mut helpers: Vec<syn::Attribute> = Vec::new();
    if !derives(&input.attrs, "Deserialize") {
        derive_paths.push(quote!(#krate::__private::serde::Deserialize));
        let path = format!("{krate_text}::__private::serde");
        helpers.push(syn::parse_quote!(#[serde(crate = #path)]));
    }
    if !derives(&input.attrs, "JsonSchema") {
        derive_paths.push(quote!(#krate::__private::schemars::JsonSchema));
        let path = format!("{krate_text}::__private::schemars");
        helpers.push(syn::parse_quote!(#[schemars(crate = #path)]));
    }
    // As on a tool: a parameter the model invents is an error naming it, unless a
    // flattened field needs the unknown ones.
    if let Data::Struct(data) = &input.data
        && matches!(data.fields, Fields::Named(_))
        && !has_word(&input.attrs, "serde", &["deny_unknown_fields"])
        && !data.fields.iter().any(|f| has_word(&f.attrs, "serde", &["flatten"]))
    {
        helpers.push(syn::parse_quote!(#[serde(deny_unknown_fields)]));
    }
    if !derive_paths.is_empty() {
        input.attrs.insert(0, syn::parse_quote!(#[derive(#(#derive_paths),*)]));
    }
    input.attrs.extend(helpers);
    let errors = cx.into_compile_errors();
    quote! {
        #input
        #errors
    }
}

/// `crate = path` is the only key.
fn parse_args(cx: &mut Ctxt, args: TokenStream) -> Path {
    let mut krate: Option<Path> = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("crate") {
            if krate.is_some() {
                return Err(meta.error("`crate` is given twice"));
            }
            krate = Some(meta.value()?.parse()?);
            Ok(())
        } else {
            Err(meta.error("unknown key for `#[input]`: the only key is `crate = path`"))
        }
    });
    if let Err(error) = syn::parse::Parser::parse2(parser, args) {
        cx.syn_error(error);
    }
    krate.unwrap_or_else(|| syn::parse_quote!(::toolwright))
}
