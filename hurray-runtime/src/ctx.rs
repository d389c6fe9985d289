//! The reader's configuration and the context every parse carries: the version the reader
//! acts at on each axis, the data's declared versions, strict or permissive mode, private
//! values agreed out of band, and the warnings collected on the way.

use std::fmt;

use crate::error::Error;
use crate::generated::axes::Axis;
use crate::generated::rules::{Action, Rule};
use crate::version::Version;
use crate::wire::{FlagSet, TagClass, TagSpace, TagValue};

/// How a reader is configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReaderConfig {
    versions: Vec<Version>,
    permissive: bool,
    agreed: Vec<(&'static str, u32)>,
    agreed_extension_layouts: Vec<u64>,
    network: bool,
}

/// A reader configuration the spec does not allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

impl Default for ReaderConfig {
    fn default() -> Self {
        ReaderConfig::new()
    }
}

impl ReaderConfig {
    /// A strict reader at the spec's current version on every axis.
    pub fn new() -> ReaderConfig {
        ReaderConfig {
            versions: Axis::ALL.iter().map(|a| a.current()).collect(),
            permissive: false,
            agreed: Vec::new(),
            agreed_extension_layouts: Vec::new(),
            network: false,
        }
    }

    /// Permissive mode (RES-8, RES-9): unknown type tags, unknown schemes and unagreed private
    /// values are accepted where the spec allows, and the tensor is marked not dereferenceable.
    pub fn permissive(mut self, on: bool) -> ReaderConfig {
        self.permissive = on;
        self
    }

    /// Whether the reader runs in permissive mode (RES-8, RES-9).
    pub fn is_permissive(&self) -> bool {
        self.permissive
    }

    /// Act as a reader of an older version on one axis: everything newer is unknown to it.
    pub fn with_version(mut self, axis: Axis, v: Version) -> Result<ReaderConfig, ConfigError> {
        let (initial, current) = (axis.initial(), axis.current());
        if v.major != current.major {
            return Err(ConfigError(format!(
                "axis {} supports major {} only, not {}",
                axis.name(),
                current.major,
                axis.style().show(v)
            )));
        }
        if v < initial || v > current {
            return Err(ConfigError(format!(
                "axis {} reads versions {}…{}; {} is outside",
                axis.name(),
                axis.style().show(initial),
                axis.style().show(current),
                axis.style().show(v)
            )));
        }
        self.versions[axis.index()] = v;
        Ok(self)
    }

    /// Parse `AXIS=VERSION` (`descriptor=1.0`, `scheme.mxfp=1`).
    pub fn with_version_str(self, spec: &str) -> Result<ReaderConfig, ConfigError> {
        let (name, ver) = spec
            .split_once('=')
            .ok_or_else(|| ConfigError(format!("`{spec}`: expected AXIS=VERSION")))?;
        let axis = Axis::from_name(name).ok_or_else(|| {
            ConfigError(format!(
                "no axis `{name}`; axes: {}",
                Axis::ALL
                    .iter()
                    .map(|a| a.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
        let v = axis
            .style()
            .parse(ver)
            .map_err(|_| ConfigError(format!("`{ver}` is not a version of axis {name}")))?;
        self.with_version(axis, v)
    }

    /// The highest version this reader supports on `axis`.
    pub fn version(&self, axis: Axis) -> Version {
        self.versions[axis.index()]
    }

    /// Agree on a private value of a tag space out of band (commitment 2).
    pub fn agree<T: TagSpace>(mut self, raw: u32) -> ReaderConfig {
        self.agreed.push((T::NAME, raw));
        self
    }

    /// Agree on a private extension layout id (EX-1).
    pub fn agree_extension_layout(mut self, id: u64) -> ReaderConfig {
        self.agreed_extension_layouts.push(id);
        self
    }

    /// Whether the private value `raw` of the tag space named `space` was agreed out of band.
    pub fn is_agreed(&self, space: &str, raw: u32) -> bool {
        self.agreed.iter().any(|(s, v)| *s == space && *v == raw)
    }

    /// Whether the private extension layout id `id` was agreed out of band (EX-1).
    pub fn is_extension_layout_agreed(&self, id: u64) -> bool {
        self.agreed_extension_layouts.contains(&id)
    }

    /// The data arrived over a network transport: every sync_mode must be producer-synced (BH-10).
    pub fn network(mut self, on: bool) -> ReaderConfig {
        self.network = on;
        self
    }

    /// Whether the data arrived over a network transport (BH-10).
    pub fn is_network(&self) -> bool {
        self.network
    }
}

/// A finding that does not reject the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// The rule the finding concerns.
    pub rule: Rule,
    /// Absolute byte offset of the field it concerns.
    pub offset: u64,
    /// What was found, in one sentence.
    pub detail: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "warning[{}]: {} (rule {}) (at byte {})",
            self.rule.code(),
            self.detail,
            self.rule.id(),
            self.offset
        )
    }
}

/// The state of one parse. Internal: the generated parsers and the semantic layer share it.
#[doc(hidden)]
#[derive(Debug)]
pub struct Ctx<'c> {
    /// The reader's configuration.
    pub config: &'c ReaderConfig,
    data: Vec<Option<Version>>,
    warnings: Vec<Warning>,
    dereferenceable: bool,
}

impl<'c> Ctx<'c> {
    /// A context for one parse under `config`.
    pub fn new(config: &'c ReaderConfig) -> Ctx<'c> {
        Ctx {
            config,
            data: vec![None; Axis::ALL.len()],
            warnings: Vec::new(),
            dereferenceable: true,
        }
    }

    /// The reader's version on `axis`.
    pub fn reader(&self, axis: Axis) -> Version {
        self.config.version(axis)
    }

    /// The version the data declares on `axis` (the reader's, until the data says).
    pub fn data(&self, axis: Axis) -> Version {
        self.data[axis.index()].unwrap_or_else(|| self.reader(axis))
    }

    /// The version whose fields this parse interprets: the older of data and reader.
    pub fn acting(&self, axis: Axis) -> Version {
        self.data(axis).min(self.reader(axis))
    }

    /// The data declares `version` on `axis` (CD3, CD4).
    pub fn enter(&mut self, axis: Axis, version: Version, offset: u64) -> Result<(), Error> {
        let r = self.reader(axis);
        if let Some((too_high, too_low)) = axis.major_rules() {
            if version.major > r.major {
                return Err(Error::new(
                    too_high,
                    offset,
                    format!(
                        "{} major version {} is above this reader's {} (CD3)",
                        axis.name(),
                        version.major,
                        r.major
                    ),
                ));
            }
            if version.major < r.major {
                return Err(Error::new(
                    too_low,
                    offset,
                    format!(
                        "{} major version {} is below this reader's {}; no migration is defined (CD4)",
                        axis.name(),
                        version.major,
                        r.major
                    ),
                ));
            }
        }
        self.data[axis.index()] = Some(version);
        Ok(())
    }

    /// Forget the data's version on `axis` (a scheme axis between descriptors).
    pub fn leave(&mut self, axis: Axis) {
        self.data[axis.index()] = None;
    }

    /// A rule is broken: reject, or in permissive mode accept what the rule allows and mark
    /// the tensor not dereferenceable.
    pub fn violation(
        &mut self,
        rule: Rule,
        offset: u64,
        detail: impl Into<String>,
    ) -> Result<(), Error> {
        match rule.action() {
            Action::Reject => Err(Error::new(rule, offset, detail)),
            Action::Strict | Action::Validate if !self.config.is_permissive() => {
                Err(Error::new(rule, offset, detail))
            }
            Action::Strict | Action::Validate => {
                self.dereferenceable = false;
                self.warn(rule, offset, detail);
                Ok(())
            }
            Action::Warn | Action::Obligation => {
                self.warn(rule, offset, detail);
                Ok(())
            }
        }
    }

    /// Record a warning.
    pub fn warn(&mut self, rule: Rule, offset: u64, detail: impl Into<String>) {
        self.warnings.push(Warning {
            rule,
            offset,
            detail: detail.into(),
        });
    }

    /// The tensor's data must not be dereferenced (permissive acceptance of something unknown).
    pub fn mark_not_dereferenceable(&mut self) {
        self.dereferenceable = false;
    }

    /// False once something was accepted without being understood.
    pub fn dereferenceable(&self) -> bool {
        self.dereferenceable
    }

    /// The warnings collected so far.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// Take the warnings collected so far.
    pub fn take_warnings(&mut self) -> Vec<Warning> {
        std::mem::take(&mut self.warnings)
    }

    /// Check a tag value against the acting version: allocated, known to the reader, and not
    /// newer than the data declares; private values need an agreement.
    pub fn tag<T: TagSpace>(
        &mut self,
        v: TagValue<T>,
        offset: u64,
        rule: Option<Rule>,
    ) -> Result<TagClass<T>, Error> {
        let class = v.class();
        match class {
            TagClass::Known(t) => {
                let (reader, data) = (self.reader(T::AXIS), self.data(T::AXIS));
                if t.since() > reader {
                    self.violation(
                        rule.unwrap_or(T::REJECT_UNKNOWN),
                        offset,
                        format!(
                            "{} `{}` ({:#04x}) is defined at {}, after this reader's {}",
                            T::NAME,
                            t.name(),
                            v.raw(),
                            T::AXIS.style().show(t.since()),
                            T::AXIS.style().show(reader)
                        ),
                    )?;
                } else if t.since() > data {
                    return Err(Error::new(
                        Rule::Ver10,
                        offset,
                        format!(
                            "{} `{}` is defined at {}, after the data's declared {}",
                            T::NAME,
                            t.name(),
                            T::AXIS.style().show(t.since()),
                            T::AXIS.style().show(data)
                        ),
                    ));
                }
            }
            TagClass::Invalid => {
                return Err(Error::new(
                    rule.unwrap_or(T::REJECT_INVALID),
                    offset,
                    format!("{:#04x} is an invalid {} value", v.raw(), T::NAME),
                ));
            }
            TagClass::Private => {
                if !self.config.is_agreed(T::NAME, v.raw()) {
                    self.violation(
                        rule.unwrap_or(T::REJECT_PRIVATE),
                        offset,
                        format!(
                            "{} {:#04x} is implementation-private and not agreed with this reader",
                            T::NAME,
                            v.raw()
                        ),
                    )?;
                }
            }
            TagClass::UnallocatedPublic { .. } | TagClass::Reserved => {
                let what = if matches!(class, TagClass::Reserved) {
                    "reserved"
                } else {
                    "unallocated"
                };
                self.violation(
                    rule.unwrap_or(T::REJECT_UNKNOWN),
                    offset,
                    format!(
                        "{} {:#04x} is {what} at {}",
                        T::NAME,
                        v.raw(),
                        T::AXIS.style().show(self.reader(T::AXIS))
                    ),
                )?;
            }
        }
        Ok(class)
    }

    /// Check flags: every set bit allocated, known to the reader, not newer than the data.
    pub fn flags<F: FlagSet>(&mut self, f: F, offset: u64) -> Result<(), Error> {
        let bits = f.bits();
        let known = F::known_at(self.reader(F::AXIS));
        if bits & !known != 0 {
            let unknown = bits & !known;
            return Err(Error::new(
                F::RULE,
                offset,
                format!(
                    "{} has bit(s) {:#x} set that are reserved at {}",
                    F::NAME,
                    unknown,
                    F::AXIS.style().show(self.reader(F::AXIS))
                ),
            ));
        }
        let data_known = F::known_at(self.data(F::AXIS));
        if bits & !data_known != 0 {
            return Err(Error::new(
                Rule::Ver10,
                offset,
                format!(
                    "{} bit(s) {:#x} are defined after the data's declared {}",
                    F::NAME,
                    bits & !data_known,
                    F::AXIS.style().show(self.data(F::AXIS))
                ),
            ));
        }
        Ok(())
    }

    /// The end of a length-prefixed structure on `axis`: at a version the reader knows the
    /// length must match exactly (RES-7); from a newer one the rest is skipped (CD2).
    pub fn surplus<'a>(
        &mut self,
        axis: Axis,
        rest: &'a [u8],
        offset: u64,
        what: &str,
    ) -> Result<&'a [u8], Error> {
        if rest.is_empty() {
            return Ok(rest);
        }
        let (data, reader) = (self.data(axis), self.reader(axis));
        if data <= reader {
            // A scheme payload's surplus breaks the scheme rule H7; any other structure's LEN-1.
            let rule = if axis.style() == crate::version::AxisStyle::Scheme {
                Rule::H7
            } else {
                Rule::Len1
            };
            Err(Error::new(
                rule,
                offset,
                format!(
                    "{} surplus byte(s) at the end of {what}, whose {} version {} this reader knows",
                    rest.len(),
                    axis.name(),
                    axis.style().show(data)
                ),
            ))
        } else {
            Ok(rest)
        }
    }
}
