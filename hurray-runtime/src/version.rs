//! Versions on the three kinds of axis.

use std::fmt;

/// A version on one axis. On a scheme axis `minor` is the `scheme_version` byte and `major`
/// the descriptor major (RES-6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u8,
    pub minor: u8,
}

impl Version {
    pub const fn new(major: u8, minor: u8) -> Version {
        Version { major, minor }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// How an axis shows its versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AxisStyle {
    /// `1.0`.
    MajorMinor,
    /// `1`: the scheme_version byte.
    Scheme,
}

impl AxisStyle {
    /// The version as the axis writes it.
    pub fn show(self, v: Version) -> String {
        match self {
            AxisStyle::MajorMinor => format!("{}.{}", v.major, v.minor),
            AxisStyle::Scheme => v.minor.to_string(),
        }
    }

    /// Parse a version written in the axis's style.
    pub fn parse(self, s: &str) -> Option<Version> {
        match self {
            AxisStyle::MajorMinor => {
                let (a, b) = s.split_once('.')?;
                Some(Version::new(a.parse().ok()?, b.parse().ok()?))
            }
            AxisStyle::Scheme => Some(Version::new(1, s.parse().ok()?)),
        }
    }
}
