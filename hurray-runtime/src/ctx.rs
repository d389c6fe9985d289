//! The reader's configuration and the context every parse carries: the version the reader
//! acts at on each axis, the data's declared versions, strict or permissive mode, private
//! values agreed out of band, the reader's resource limits, and the warnings collected on the
//! way. Neither allocates until there is something to keep (an agreement, a warning): a clean
//! read is allocation-free.

use std::fmt;

use crate::error::{Detail, Error};
use crate::generated::axes::Axis;
use crate::generated::rules::{Action, Rule};
pub use crate::limit::Limit;
pub use crate::tag_space::TagSpaceInfo;
use crate::version::Version;
use crate::wire::{FlagSet, TagClass, TagSpace, TagValue};

/// The number of version axes: every per-axis table is an array of this length.
const AXES: usize = Axis::ALL.len();

/// How a reader is configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReaderConfig {
    versions: [Version; AXES],
    permissive: bool,
    agreed: Vec<(&'static str, u32)>,
    agreed_extension_layouts: Vec<u64>,
    network: bool,
    limits: [u64; Limit::ALL.len()],
    /// A replay of bytes a parse already checked ([`Replay`]): nothing is rejected or kept.
    replay: bool,
}

/// A reader configuration the spec does not allow.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

impl Default for ReaderConfig {
    fn default() -> Self {
        ReaderConfig::new()
    }
}

impl ReaderConfig {
    /// A strict reader at the spec's current version on every axis.
    pub fn new() -> ReaderConfig {
        ReaderConfig {
            versions: std::array::from_fn(|i| Axis::ALL[i].current()),
            permissive: false,
            agreed: Vec::new(),
            agreed_extension_layouts: Vec::new(),
            network: false,
            limits: Limit::ALL.map(Limit::format_maximum),
            replay: false,
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

    /// Agree on a private value of the tag space named `space` (its name in the spec,
    /// `element_type`), for callers that name a space at run time, such as a command line:
    /// the name is looked up in the generated list of every tag space, and `raw` must lie in
    /// one of the space's private ranges (an allocated, reserved or invalid value is never
    /// agreed on).
    ///
    /// ```
    /// use hurray_runtime::ReaderConfig;
    /// use hurray_runtime::tags::ElementType;
    /// use hurray_runtime::TagSpace;
    ///
    /// let c = ReaderConfig::new().agree_named(ElementType::NAME, 0xF3)?;
    /// assert!(c.is_agreed(ElementType::NAME, 0xF3));
    /// assert!(ReaderConfig::new().agree_named(ElementType::NAME, 0x03).is_err());
    /// assert!(ReaderConfig::new().agree_named("no_such_space", 0xF3).is_err());
    /// # Ok::<(), hurray_runtime::ctx::ConfigError>(())
    /// ```
    pub fn agree_named(mut self, space: &str, raw: u32) -> Result<ReaderConfig, ConfigError> {
        let found = crate::generated::tags::SPACES
            .iter()
            .find(|s| s.name() == space)
            .ok_or_else(|| {
                ConfigError(format!(
                    "no tag space `{space}` with private values; spaces: {}",
                    agreeable_spaces()
                        .map(TagSpaceInfo::name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
        if !found.is_private(raw) {
            return Err(ConfigError(format!(
                "{raw:#04x} is not a private {space} value (private: {}); only private values are agreed out of band",
                found.private_ranges()
            )));
        }
        self.agreed.push((found.name(), raw));
        Ok(self)
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

    /// Set a resource limit (see [`Limit`]): input beyond it is refused with
    /// [`Error::limit_exceeded`], a policy of this reader rather than a rule of the format.
    pub fn limit(mut self, limit: Limit, max: u64) -> ReaderConfig {
        self.limits[limit as usize] = max;
        self
    }

    /// The value of a resource limit (by default [`Limit::format_maximum`], which no
    /// input can exceed).
    pub fn limit_of(&self, limit: Limit) -> u64 {
        self.limits[limit as usize]
    }

    /// Refuse `value` (found at absolute byte `offset`) when it exceeds `limit`.
    pub fn check_limit(&self, limit: Limit, value: u64, offset: u64) -> Result<(), Error> {
        let max = self.limit_of(limit);
        if value > max {
            return Err(Error::limit_exceeded(
                limit,
                offset,
                format!(
                    "{} is {value}, above this reader's limit of {max}",
                    limit.what()
                ),
            ));
        }
        Ok(())
    }
}

/// The spaces that have private values, in the generated order.
pub fn agreeable_spaces() -> impl Iterator<Item = &'static TagSpaceInfo> {
    crate::generated::tags::SPACES
        .iter()
        .filter(|s| !s.private().is_empty())
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
    versions: Versions,
    warnings: Vec<Warning>,
    dereferenceable: bool,
}

/// What a parse needs to walk again an entry of a sequence it already checked, without the
/// reader's configuration: the versions it acted at, its mode and the nesting depth. A
/// [`VarSeq`](crate::wire::VarSeq) keeps one to make the view of an entry on access; the
/// replay takes the same decisions as the parse (which values are known, which fields are
/// present) and rejects nothing, records nothing.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Replay {
    versions: Versions,
    permissive: bool,
    depth: u32,
}

impl Replay {
    /// The same replay at nesting depth `depth`.
    pub fn at_depth(self, depth: u32) -> Replay {
        Replay { depth, ..self }
    }

    /// Parse `bytes` (one entry at absolute `offset`) again with `parse`, which receives the
    /// nesting depth; `None` unless it reads exactly those bytes.
    pub fn parse<'a, T>(
        &self,
        bytes: &'a [u8],
        offset: u64,
        parse: impl FnOnce(&mut crate::wire::Reader<'a>, &mut Ctx<'_>, u32) -> Result<T, Error>,
    ) -> Option<T> {
        let mut config = ReaderConfig::new().permissive(self.permissive);
        config.replay = true;
        let mut ctx = Ctx::new(&config);
        ctx.versions = self.versions;
        let mut r = crate::wire::Reader::new(bytes, offset, Rule::Len1);
        let v = parse(&mut r, &mut ctx, self.depth).ok()?;
        (r.remaining() == 0).then_some(v)
    }
}

/// The versions a parse acts at: the reader's on every axis, and the data's where it has
/// declared one (arrays, so a context costs no allocation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Versions {
    reader: [Version; AXES],
    data: [Option<Version>; AXES],
}

impl<'c> Ctx<'c> {
    /// A context for one parse under `config`.
    pub fn new(config: &'c ReaderConfig) -> Ctx<'c> {
        Ctx {
            config,
            versions: Versions {
                reader: config.versions,
                data: [None; AXES],
            },
            warnings: Vec::new(),
            dereferenceable: true,
        }
    }

    /// What a replay of an entry parsed here at nesting `depth` needs ([`Replay`]).
    pub fn replay(&self, depth: u32) -> Replay {
        Replay {
            versions: self.versions,
            permissive: self.config.permissive,
            depth,
        }
    }

    /// The reader's version on `axis`.
    #[inline]
    pub fn reader(&self, axis: Axis) -> Version {
        self.versions.reader[axis.index()]
    }

    /// The version the data declares on `axis` (the reader's, until the data says).
    #[inline]
    pub fn data(&self, axis: Axis) -> Version {
        self.versions.data[axis.index()].unwrap_or_else(|| self.reader(axis))
    }

    /// The version whose fields this parse interprets: the older of data and reader.
    #[inline]
    pub fn acting(&self, axis: Axis) -> Version {
        self.data(axis).min(self.reader(axis))
    }

    /// The data declares `version` on `axis` (CD3, CD4).
    #[inline]
    pub fn enter(&mut self, axis: Axis, version: Version, offset: u64) -> Result<(), Error> {
        let r = self.reader(axis);
        if version.major != r.major
            && let Some((too_high, too_low)) = axis.major_rules()
        {
            return Err(major_mismatch(axis, version, r, too_high, too_low, offset));
        }
        self.versions.data[axis.index()] = Some(version);
        Ok(())
    }

    /// Forget the data's version on `axis` (a scheme axis between descriptors).
    pub fn leave(&mut self, axis: Axis) {
        self.versions.data[axis.index()] = None;
    }

    /// A rule is broken: reject, or in permissive mode accept what the rule allows and mark
    /// the tensor not dereferenceable. The detail is only rendered when it is kept.
    pub fn violation(&mut self, rule: Rule, offset: u64, detail: impl Detail) -> Result<(), Error> {
        if self.config.replay {
            return Ok(());
        }
        match rule.action() {
            Action::Reject => Err(Error::new(rule, offset, detail.render())),
            Action::Strict | Action::Validate if !self.config.is_permissive() => {
                Err(Error::new(rule, offset, detail.render()))
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
    #[cold]
    pub fn warn(&mut self, rule: Rule, offset: u64, detail: impl Detail) {
        if self.config.replay {
            return;
        }
        self.warnings.push(Warning {
            rule,
            offset,
            detail: detail.render(),
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
    #[inline]
    pub fn tag<T: TagSpace>(
        &mut self,
        v: TagValue<T>,
        offset: u64,
        rule: Option<Rule>,
    ) -> Result<TagClass<T>, Error> {
        let class = v.class();
        if let TagClass::Known(t) = class
            && t.since() <= self.acting(T::AXIS)
        {
            return Ok(class);
        }
        self.unusual_tag(v, class, offset, rule)?;
        Ok(class)
    }

    /// [`Ctx::tag`] for a value that is not allocated at the acting version.
    #[cold]
    fn unusual_tag<T: TagSpace>(
        &mut self,
        v: TagValue<T>,
        class: TagClass<T>,
        offset: u64,
        rule: Option<Rule>,
    ) -> Result<(), Error> {
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
        Ok(())
    }

    /// Check flags: every set bit allocated, known to the reader, not newer than the data,
    /// and set with the bits it requires.
    #[inline]
    pub fn flags<F: FlagSet>(&mut self, f: F, offset: u64) -> Result<(), Error> {
        for &(bit, needs, rule) in F::REQUIRES {
            if f.bits() & bit != 0 && f.bits() & needs != needs {
                self.violation(
                    rule,
                    offset,
                    format_args!(
                        "{} sets bit(s) {bit:#x} without bit(s) {:#x}, which they require",
                        F::NAME,
                        needs & !f.bits()
                    ),
                )?;
            }
        }
        // Bits allocated at the acting version are known to the reader and to the data.
        if f.bits() & !F::known_at(self.acting(F::AXIS)) == 0 {
            return Ok(());
        }
        self.unusual_flags(f, offset)
    }

    /// [`Ctx::flags`] for bits not allocated at the acting version.
    #[cold]
    fn unusual_flags<F: FlagSet>(&mut self, f: F, offset: u64) -> Result<(), Error> {
        let bits = f.bits();
        let known = F::known_at(self.reader(F::AXIS));
        if bits & !known != 0 {
            let unknown = bits & !known;
            // The set's rule decides: rejected (RES-2), or reported and ignored where the
            // rule only warns (a HELLO's capability bits, RES-59).
            let reader = self.reader(F::AXIS);
            self.violation(
                F::RULE,
                offset,
                format_args!(
                    "{} has bit(s) {:#x} set that are reserved at {}",
                    F::NAME,
                    unknown,
                    F::AXIS.style().show(reader)
                ),
            )?;
            return Ok(());
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
    #[inline]
    pub fn surplus<'a>(
        &mut self,
        axis: Axis,
        rest: &'a [u8],
        offset: u64,
        what: &str,
    ) -> Result<&'a [u8], Error> {
        let (data, reader) = (self.data(axis), self.reader(axis));
        if rest.is_empty() || data > reader {
            return Ok(rest);
        }
        Err(surplus_known(axis, data, rest.len(), offset, what))
    }
}

/// RES-7: surplus bytes at the end of a structure whose version the reader knows.
#[cold]
fn surplus_known(axis: Axis, data: Version, surplus: usize, offset: u64, what: &str) -> Error {
    // A scheme payload's surplus breaks the scheme rule H7; any other structure's LEN-1.
    let rule = if axis.style() == crate::version::AxisStyle::Scheme {
        Rule::H7
    } else {
        Rule::Len1
    };
    Error::new(
        rule,
        offset,
        format!(
            "{surplus} surplus byte(s) at the end of {what}, whose {} version {} this reader knows",
            axis.name(),
            axis.style().show(data)
        ),
    )
}

/// CD3 or CD4: the data's major version on `axis` is not the reader's.
#[cold]
fn major_mismatch(
    axis: Axis,
    version: Version,
    reader: Version,
    too_high: Rule,
    too_low: Rule,
    offset: u64,
) -> Error {
    if version.major > reader.major {
        Error::new(
            too_high,
            offset,
            format!(
                "{} major version {} is above this reader's {} (CD3)",
                axis.name(),
                version.major,
                reader.major
            ),
        )
    } else {
        let how = match crate::generated::migrations::find(axis.name(), u16::from(version.major)) {
            // S5: the spec maps the old major onto this one; the data migrates, it is not read.
            Some(m) => format!(
                "; migrate it: `hurray migrate --to {}={}.0 IN -o OUT` ({})",
                axis.name(),
                m.to,
                m.file
            ),
            None => "; no migration is defined".to_string(),
        };
        Error::new(
            too_low,
            offset,
            format!(
                "{} major version {} is below this reader's {}{how} (CD4)",
                axis.name(),
                version.major,
                reader.major
            ),
        )
    }
}
