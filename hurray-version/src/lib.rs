//! `hurray-version`: the one version type every Hurray tool shares — the spec checker and code
//! generator (`hurray-codegen`), the generated runtime (`hurray-runtime`) and the derive
//! (`hurray-derive`) — with its one parse and its one display.
//!
//! A version lives on an axis (spec/README.md, `axis.style`). On a `major.minor` axis it is
//! written `"1.0"`; on a scheme axis it is the scheme's `scheme_version` byte, written as a bare
//! integer `2`, and read as a minor under the descriptor major (RES-6).
//!
//! ```
//! use hurray_version::{AxisStyle, Version};
//!
//! let v = AxisStyle::MajorMinor.parse("1.2")?;
//! assert_eq!(v, Version::new(1, 2));
//! assert_eq!(AxisStyle::MajorMinor.show(v), "1.2");
//!
//! let s = AxisStyle::Scheme.parse("2")?;
//! assert_eq!(s, Version::new(1, 2));
//! assert_eq!(AxisStyle::Scheme.show(s), "2");
//! assert_eq!(AxisStyle::Scheme.toml_literal(s), "2");
//! assert_eq!(AxisStyle::MajorMinor.toml_literal(v), "\"1.2\"");
//! # Ok::<(), hurray_version::ParseVersionError>(())
//! ```

use std::fmt;

/// A version on one axis. On a scheme axis `minor` is the `scheme_version` byte and `major`
/// the descriptor major it lives under (RES-6). Versions order by major, then minor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u8,
    pub minor: u8,
}

impl Version {
    /// The version `major.minor`.
    pub const fn new(major: u8, minor: u8) -> Version {
        Version { major, minor }
    }

    /// The next minor version under the same major, if the minor byte has room.
    pub fn next_minor(self) -> Option<Version> {
        Some(Version::new(self.major, self.minor.checked_add(1)?))
    }

    /// The first version of the next major, if the major byte has room.
    pub fn next_major(self) -> Option<Version> {
        Some(Version::new(self.major.checked_add(1)?, 0))
    }
}

/// `major.minor`, whatever the axis's style (use [`AxisStyle::show`] for the axis's own form).
impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// The major a scheme version lives under: the descriptor major of this format (RES-6).
pub const SCHEME_MAJOR: u8 = 1;

/// The major every version of a negotiated axis shares: it has none of its own, so every
/// version is minor-like and S2 binds across all of them (RES-53).
pub const NEGOTIATED_MAJOR: u8 = 1;

/// How an axis writes its versions (spec/README.md, `axis.style`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AxisStyle {
    /// `"1.0"`: a major and a minor byte.
    MajorMinor,
    /// `1`: the `scheme_version` byte, minor-like under the descriptor major (RES-6).
    Scheme,
    /// `1`: one number peers agree on per connection (the interchange protocol's
    /// `protocol_version`, RES-53), minor-like: it has no major.
    Negotiated,
}

/// A text that is not a version in the axis's style.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseVersionError {
    text: String,
    style: AxisStyle,
}

impl fmt::Display for ParseVersionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a version: {}", self.text, self.style.form())
    }
}

impl std::error::Error for ParseVersionError {}

/// One byte of a version: decimal digits only (no sign, no spaces), 0–255.
fn byte(s: &str) -> Option<u8> {
    if s.is_empty() || s.len() > 3 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

impl AxisStyle {
    /// Every style.
    pub const ALL: [AxisStyle; 3] = [
        AxisStyle::MajorMinor,
        AxisStyle::Scheme,
        AxisStyle::Negotiated,
    ];

    /// The style's word in `spec.toml` (`axis.style`) and in release records.
    pub fn word(self) -> &'static str {
        match self {
            AxisStyle::MajorMinor => "major.minor",
            AxisStyle::Scheme => "scheme",
            AxisStyle::Negotiated => "negotiated",
        }
    }

    /// Whether a version is one number, minor-like under a major no version field carries
    /// (a scheme axis, a negotiated axis).
    pub fn single_number(self) -> bool {
        self != AxisStyle::MajorMinor
    }

    /// The style a word names.
    pub fn from_word(word: &str) -> Option<AxisStyle> {
        AxisStyle::ALL.into_iter().find(|s| s.word() == word)
    }

    /// How a version of this style is written, for messages.
    pub fn form(self) -> &'static str {
        match self {
            AxisStyle::MajorMinor => {
                "write a version as a string \"MAJOR.MINOR\" (each 0–255), e.g. \"1.1\""
            }
            AxisStyle::Scheme => {
                "a scheme axis version is the scheme_version byte, an integer 1–255, e.g. 2"
            }
            AxisStyle::Negotiated => {
                "a negotiated axis version is one number, an integer 1–255, e.g. 2"
            }
        }
    }

    /// Parse a version written in this style: `"1.2"` on a major.minor axis, `"2"` on a
    /// scheme axis (the `scheme_version` byte, 1–255).
    pub fn parse(self, text: &str) -> Result<Version, ParseVersionError> {
        let parsed = match self {
            AxisStyle::MajorMinor => text
                .split_once('.')
                .and_then(|(a, b)| Some(Version::new(byte(a)?, byte(b)?))),
            AxisStyle::Scheme => byte(text)
                .filter(|n| *n >= 1)
                .map(|n| Version::new(SCHEME_MAJOR, n)),
            AxisStyle::Negotiated => byte(text)
                .filter(|n| *n >= 1)
                .map(|n| Version::new(NEGOTIATED_MAJOR, n)),
        };
        parsed.ok_or_else(|| ParseVersionError {
            text: text.to_string(),
            style: self,
        })
    }

    /// The version as the axis writes it: `1.2`, or `2` on a scheme axis.
    pub fn show(self, v: Version) -> String {
        match self {
            AxisStyle::MajorMinor => format!("{}.{}", v.major, v.minor),
            AxisStyle::Scheme | AxisStyle::Negotiated => v.minor.to_string(),
        }
    }

    /// The version as a TOML value in the spec files: `"1.2"` (a string), or `2` (an integer).
    pub fn toml_literal(self, v: Version) -> String {
        match self {
            AxisStyle::MajorMinor => format!("\"{}\"", self.show(v)),
            AxisStyle::Scheme | AxisStyle::Negotiated => self.show(v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_version_shows_and_parses_back() {
        for major in 0..=u8::MAX {
            for minor in 0..=u8::MAX {
                let v = Version::new(major, minor);
                assert_eq!(
                    AxisStyle::MajorMinor.parse(&AxisStyle::MajorMinor.show(v)),
                    Ok(v)
                );
                assert_eq!(v.to_string(), AxisStyle::MajorMinor.show(v));
            }
        }
        for minor in 1..=u8::MAX {
            let v = Version::new(SCHEME_MAJOR, minor);
            assert_eq!(AxisStyle::Scheme.parse(&AxisStyle::Scheme.show(v)), Ok(v));
            let v = Version::new(NEGOTIATED_MAJOR, minor);
            assert_eq!(
                AxisStyle::Negotiated.parse(&AxisStyle::Negotiated.show(v)),
                Ok(v)
            );
        }
    }

    #[test]
    fn malformed_versions_are_rejected() {
        for text in [
            "", "1", "1.", ".1", "1.2.3", "256.0", "1.256", "+1.0", "1.+0", " 1.0", "1.0 ", "a.b",
            "1,0", "0001.0",
        ] {
            assert!(AxisStyle::MajorMinor.parse(text).is_err(), "{text:?}");
        }
        for text in ["", "0", "256", "+1", "1.0", " 2", "x"] {
            assert!(AxisStyle::Scheme.parse(text).is_err(), "{text:?}");
            assert!(AxisStyle::Negotiated.parse(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn styles_round_trip_through_their_words() {
        for s in AxisStyle::ALL {
            assert_eq!(AxisStyle::from_word(s.word()), Some(s));
        }
        assert_eq!(AxisStyle::from_word("major"), None);
    }

    #[test]
    fn bumps_stop_at_the_byte() {
        assert_eq!(Version::new(1, 0).next_minor(), Some(Version::new(1, 1)));
        assert_eq!(Version::new(1, 255).next_minor(), None);
        assert_eq!(Version::new(1, 4).next_major(), Some(Version::new(2, 0)));
        assert_eq!(Version::new(255, 0).next_major(), None);
    }
}
