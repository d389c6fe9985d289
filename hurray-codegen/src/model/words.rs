//! The enumerated words of the spec files: every key whose value is one of a closed set of
//! words (`kind = "float"`, `action = "strict"`) reads into an enum of the model, through one
//! table per enum. Lowering reports a word outside the table at the word's span; there is no
//! fallback value, so a word can never become a valid but wrong fact.

/// An enum whose values are written as words in the spec files.
pub trait Word: Copy + Sized + 'static {
    /// What the word names, for messages (`element kind`).
    const WHAT: &'static str;
    /// Every value, in the order messages list them.
    fn values() -> &'static [Self];
    /// The value's word.
    fn word(self) -> &'static str;
    /// What the value means (its doc comment), empty when it has none.
    fn meaning(self) -> &'static str;
    /// The value a word names.
    fn from_word(word: &str) -> Option<Self> {
        Self::values().iter().copied().find(|v| v.word() == word)
    }
    /// Every word, for messages (`float, signed, …`).
    fn words() -> Vec<&'static str> {
        Self::values().iter().map(|v| v.word()).collect()
    }
}

/// An enum of the model and its words, one table: `words! { /// doc  pub enum Name: "what" {
/// Variant = "word", … } }`.
macro_rules! words {
    ($(
        $(#[$meta:meta])*
        pub enum $name:ident: $what:literal {
            $( $(#[doc = $vdoc:literal])* $variant:ident = $word:expr ),* $(,)?
        }
    )*) => {$(
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[doc = $vdoc])* $variant, )*
        }

        impl $crate::model::words::Word for $name {
            const WHAT: &'static str = $what;
            fn values() -> &'static [Self] {
                &[$($name::$variant),*]
            }
            fn word(self) -> &'static str {
                match self {
                    $($name::$variant => $word,)*
                }
            }
            fn meaning(self) -> &'static str {
                match self {
                    $($name::$variant => concat!("" $(, $vdoc)*).trim_ascii(),)*
                }
            }
        }
    )*};
}
pub(crate) use words;
