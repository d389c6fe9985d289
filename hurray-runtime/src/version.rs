//! Versions on the three kinds of axis: the one version type of the Hurray tools
//! (`hurray-version`), shared with the code generator and the derive, so a version is parsed
//! and shown the same way everywhere.

pub use hurray_version::{AxisStyle, ParseVersionError, Version};
