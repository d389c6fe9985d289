//! `flags/*.toml`: flag sets and their allocated bits.

use crate::diag::Diagnostic;
use crate::lints;
use crate::load::RawSpec;
use crate::model::*;

use super::context::{Lower, span};

impl Lower<'_> {
    /// Every flag set, in the order of the files (its `FlagSetId`); `None` for a set that
    /// does not lower (reported).
    pub(super) fn flag_sets(&mut self, raw: &RawSpec) -> Vec<Option<FlagSet>> {
        let mut out = Vec::new();
        for (file, f) in &raw.flags {
            let file = *file;
            for flag_set in &f.flags {
                let f0 = flag_set.get_ref();
                let width = self.word_as::<Width>(file, &f0.width, "flag width");
                let unknown_bits = self.word::<UnknownBits>(file, &f0.unknown_bits);
                let axis = self.axis_ref(file, &f0.axis);
                let initial = self.initial(axis);
                // Bits are checked against the width when it is known.
                let width_bits = width.map_or(64, Width::bits);
                let rule = self.rule_ref(file, &f0.rule);
                let mut bits: Vec<Bit> = Vec::new();
                for b in &f0.bit {
                    let b0 = b.get_ref();
                    let bsp = span(file, b);
                    if *b0.bit.get_ref() < 0 || *b0.bit.get_ref() >= i64::from(width_bits) {
                        self.err(
                            &lints::BAD_VALUE,
                            span(file, &b0.bit),
                            format!(
                                "bit {} does not exist in a {}-bit flag set",
                                b0.bit.get_ref(),
                                width_bits
                            ),
                            "use a bit index below the width",
                        );
                    }
                    if let Some(prev) = bits.iter().find(|x| x.bit as i64 == *b0.bit.get_ref()) {
                        self.diags.push(
                            Diagnostic::new(
                                &lints::DUPLICATE_VALUE,
                                Some(bsp),
                                format!("bit {} is allocated twice", b0.bit.get_ref()),
                            )
                            .label(prev.span, "first allocated here")
                            .help("a bit has one meaning; allocate the next reserved bit instead"),
                        );
                    }
                    if let Some(prev) = bits.iter().find(|x| &x.name == b0.name.get_ref()) {
                        self.diags.push(
                            Diagnostic::new(
                                &lints::DUPLICATE_NAME,
                                Some(span(file, &b0.name)),
                                format!("bit name `{}` is used twice", b0.name.get_ref()),
                            )
                            .label(prev.span, "first used here")
                            .help("rename one of the bits"),
                        );
                    }
                    let since = self.since(file, axis, &b0.since, initial);
                    let deprecated = self.deprecation(
                        file,
                        axis,
                        bsp,
                        &b0.deprecated_since,
                        &b0.deprecated,
                        &b0.replacement,
                    );
                    let resolutions = self.resolution_refs(file, &b0.resolution);
                    bits.push(Bit {
                        bit: (*b0.bit.get_ref()).clamp(0, 63) as u32,
                        name: b0.name.get_ref().clone(),
                        title: b0.title.get_ref().clone(),
                        since,
                        deprecated,
                        resolutions,
                        requires: None,
                        span: bsp,
                        name_span: span(file, &b0.name),
                    });
                }
                // `requires` names bits of the same set: resolved once every bit is known.
                for (k, b) in f0.bit.iter().enumerate() {
                    let Some(r) = &b.get_ref().requires else {
                        continue;
                    };
                    let r0 = r.get_ref();
                    let rule = self.rule_ref(file, &r0.rule);
                    let mut needed = Vec::new();
                    for name in r0.bits.get_ref() {
                        match bits.iter().find(|x| &x.name == name.get_ref()) {
                            Some(x) if x.name != bits[k].name => needed.push(x.bit),
                            Some(_) => self.err(
                                &lints::BAD_VALUE,
                                span(file, name),
                                format!("bit `{}` requires itself", name.get_ref()),
                                "name the other bits it is only valid with",
                            ),
                            None => self.err(
                                &lints::UNKNOWN_REFERENCE,
                                span(file, name),
                                format!(
                                    "`requires`: no bit `{}` in flag set `{}`",
                                    name.get_ref(),
                                    f0.name.get_ref()
                                ),
                                "name a bit the set allocates",
                            ),
                        }
                    }
                    if let Some(bit) = bits.get_mut(k) {
                        bit.requires = Some(Requires { bits: needed, rule });
                    }
                }
                let resolutions = self.resolution_refs(file, &f0.resolution);
                let (Some(width), Some(unknown_bits)) = (width, unknown_bits) else {
                    out.push(None);
                    continue;
                };
                out.push(Some(FlagSet {
                    name: f0.name.get_ref().clone(),
                    title: f0.title.get_ref().clone(),
                    width,
                    axis,
                    unknown_bits,
                    rule,
                    bits,
                    resolutions,
                    span: span(file, flag_set),
                }));
            }
        }
        out
    }
}
