//! The error context every phase of the derive reports into: each mistake is recorded once,
//! where it is found, and all of them come out together as one `syn::Error`. Dropping a
//! context whose errors were never taken is a bug of the derive, and panics.

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

/// Collects the errors of one expansion.
#[derive(Debug)]
pub struct Ctxt {
    /// `None` once [`Ctxt::check`] has taken the errors.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub fn new() -> Ctxt {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Record an error at the span of `tokens` (their first to their last token).
    pub fn error_spanned_by(&self, tokens: impl ToTokens, message: impl Display) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Record an error at `span`.
    pub fn error_at(&self, span: Span, message: impl Display) {
        self.syn_error(syn::Error::new(span, message));
    }

    /// Record an error syn reported.
    pub fn syn_error(&self, error: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("an error is recorded before the context is checked")
            .push(error);
    }

    /// Whether any error has been recorded so far.
    pub fn has_errors(&self) -> bool {
        self.errors.borrow().as_ref().is_some_and(|e| !e.is_empty())
    }

    /// Take the errors: `Ok` when there are none, else every one of them combined.
    pub fn check(self) -> syn::Result<()> {
        let errors = self
            .errors
            .borrow_mut()
            .take()
            .expect("a context is checked once");
        let mut errors = errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for e in errors {
            combined.combine(e);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("hurray-derive: an error context was dropped without being checked");
        }
    }
}
