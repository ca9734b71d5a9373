//! Collects every error of one `#[tool]` so they are reported together.

use quote::ToTokens;
use std::fmt::Display;

#[derive(Default)]
pub(crate) struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    /// An error spanning the tokens of `obj`.
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&mut self, obj: T, message: M) {
        self.errors.push(syn::Error::new_spanned(obj.into_token_stream(), message));
    }

    /// An error at one span.
    pub(crate) fn error_at<M: Display>(&mut self, span: proc_macro2::Span, message: M) {
        self.errors.push(syn::Error::new(span, message));
    }

    pub(crate) fn syn_error(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// All errors as `compile_error!` invocations.
    pub(crate) fn into_compile_errors(self) -> proc_macro2::TokenStream {
        self.errors.into_iter().map(|e| e.to_compile_error()).collect()
    }
}
