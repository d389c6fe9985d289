//! Placeholders in a rule's `text`: a rule that states a fact an amendment can change (which
//! values of a tag space are unallocated, which bits of a flag set are reserved) names it by a
//! placeholder, and lowering writes in the value the tables give it, so the text a user reads
//! in a rejection, in `explain` and in `docs/spec/rules.md` never goes stale.
//!
//! `{KIND:NAME}`, where NAME is a tag space or a flag set:
//! - `{unallocated:SPACE}`: the values of the space's public ranges no tag holds
//!   (`0x08–0xEF`);
//! - `{allocated:SPACE}`: the values tags hold (`0x00–0x02`);
//! - `{reserved-bits:FLAGS}`: the bits no flag holds (`5–31`);
//! - `{reserved-mask:FLAGS}`: the mask of those bits (`0xFFFFFFE0`).

use std::fmt::Write as _;

use crate::lints;
use crate::model::*;

use super::context::Lower;

/// What a placeholder stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Unallocated,
    Allocated,
    ReservedBits,
    ReservedMask,
}

impl Kind {
    /// Every kind, with the word that names it in a placeholder.
    const ALL: [(Kind, &'static str); 4] = [
        (Kind::Unallocated, "unallocated"),
        (Kind::Allocated, "allocated"),
        (Kind::ReservedBits, "reserved-bits"),
        (Kind::ReservedMask, "reserved-mask"),
    ];

    fn of(word: &str) -> Option<Kind> {
        Kind::ALL.iter().find(|(_, w)| *w == word).map(|(k, _)| *k)
    }
}

impl Lower<'_> {
    /// Write every placeholder of every rule's text with the value the tables give it; a
    /// placeholder of an unknown kind or naming no space or flag set is an error at its rule.
    pub(super) fn expand_rule_texts(
        &mut self,
        rules: &mut [Rule],
        spaces: &[Option<TagSpace>],
        flag_sets: &[Option<FlagSet>],
    ) {
        for rule in rules {
            match expand(&rule.text, spaces, flag_sets) {
                Ok(text) => rule.text = text,
                Err(problem) => self.err(
                    &lints::UNKNOWN_REFERENCE,
                    rule.span,
                    format!("rule {}: {problem}", rule.id),
                    "a placeholder is `{unallocated:SPACE}`, `{allocated:SPACE}`, \
                     `{reserved-bits:FLAGS}` or `{reserved-mask:FLAGS}` (spec/README.md, rules)",
                ),
            }
        }
    }
}

/// `text` with every placeholder written in, or what is wrong with the first bad one. A `{`
/// not followed by `KIND:` with a known KIND is text (the sheets write `n_{L−1}`).
fn expand(
    text: &str,
    spaces: &[Option<TagSpace>],
    flag_sets: &[Option<FlagSet>],
) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let placeholder = after.find('}').map(|close| &after[..close]);
        let parsed = placeholder.and_then(|p| {
            let (word, name) = p.split_once(':')?;
            Some((p, Kind::of(word)?, name))
        });
        let Some((whole, kind, name)) = parsed else {
            if let Some(p) = placeholder
                && let Some((word, _)) = p.split_once(':')
                && word.chars().all(|c| c.is_ascii_lowercase() || c == '-')
                && !word.is_empty()
            {
                return Err(format!("`{{{p}}}`: no placeholder kind `{word}`"));
            }
            out.push('{');
            rest = after;
            continue;
        };
        let value = match kind {
            Kind::Unallocated | Kind::Allocated => {
                let space = spaces
                    .iter()
                    .flatten()
                    .find(|s| s.name == name)
                    .ok_or_else(|| format!("`{{{whole}}}`: no tag space `{name}`"))?;
                values(space, kind == Kind::Allocated)
            }
            Kind::ReservedBits | Kind::ReservedMask => {
                let set = flag_sets
                    .iter()
                    .flatten()
                    .find(|s| s.name == name)
                    .ok_or_else(|| format!("`{{{whole}}}`: no flag set `{name}`"))?;
                if kind == Kind::ReservedMask {
                    let digits = set.width.bits() as usize / 4;
                    format!("0x{:0digits$X}", set.reserved_mask())
                } else {
                    bits(set.reserved_mask(), set.width.bits())
                }
            }
        };
        out.push_str(&value);
        rest = &after[whole.len() + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The space's allocated values, or its public values no tag holds, as runs
/// (`0x05, 0x08–0xEF`), or `none`.
fn values(space: &TagSpace, allocated: bool) -> String {
    let digits = space.width.bits() as usize / 4;
    let held = |v: u32| space.tag_by_value(v).is_some();
    let wanted = |v: u32| {
        if allocated {
            held(v)
        } else {
            !held(v)
                && space
                    .range_of(v)
                    .is_some_and(|r| matches!(r.kind, RangeKind::Public { .. }))
        }
    };
    let max = u32::try_from(space.width.max()).unwrap_or(u32::MAX);
    // The spaces are at most 16 bits wide in practice; a 32-bit space is walked by its ranges
    // and tags rather than value by value.
    let mut candidates: Vec<u32> = if max <= 0xFFFF {
        (0..=max).collect()
    } else {
        let mut v: Vec<u32> = space.tags.iter().map(|t| t.value).collect();
        for r in &space.ranges {
            v.extend([r.from, r.to]);
        }
        v.sort_unstable();
        v.dedup();
        v
    };
    candidates.retain(|v| wanted(*v));
    runs(&candidates, |v| format!("0x{v:0digits$X}"))
}

/// The positions of the set bits of `mask` as runs (`5–31`), or `none`.
fn bits(mask: u64, width: u32) -> String {
    let set: Vec<u32> = (0..width).filter(|b| mask & (1u64 << b) != 0).collect();
    runs(&set, |b| b.to_string())
}

/// Sorted values as runs of consecutive ones joined by `, ` (`a`, `a–b`), or `none`.
fn runs(values: &[u32], show: impl Fn(u32) -> String) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < values.len() {
        let start = values[i];
        let mut end = start;
        while i + 1 < values.len() && values[i + 1] == end + 1 {
            i += 1;
            end = values[i];
        }
        let mut part = show(start);
        if end != start {
            let _ = write!(part, "–{}", show(end));
        }
        parts.push(part);
        i += 1;
    }
    if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_join_consecutive_values() {
        assert_eq!(runs(&[1, 2, 3, 5, 8, 9], |v| v.to_string()), "1–3, 5, 8–9");
        assert_eq!(runs(&[], |v| v.to_string()), "none");
    }

    #[test]
    fn bits_name_the_set_positions() {
        assert_eq!(bits(0xFFFF_FFE0, 32), "5–31");
        assert_eq!(bits(0xFFFF_FFC0 & !(1 << 8), 32), "6–7, 9–31");
    }

    #[test]
    fn text_without_placeholders_is_unchanged() {
        let text = "pos_L[n_{L−1}] = n_L and {not a placeholder}";
        assert_eq!(expand(text, &[], &[]).as_deref(), Ok(text));
    }

    #[test]
    fn a_placeholder_naming_nothing_is_an_error() {
        let e = expand("bits {reserved-bits:no_such_flags} set", &[], &[]).unwrap_err();
        assert!(e.contains("no flag set `no_such_flags`"), "{e}");
        let e = expand("in {unalocated:device}", &[], &[]).unwrap_err();
        assert!(e.contains("no placeholder kind `unalocated`"), "{e}");
    }

    /// An amendment that allocates a value of a space rewrites every rule text that names
    /// the space's free values: the new tag's value no longer starts a run, the next does.
    #[test]
    fn an_allocation_rewrites_the_texts_that_name_the_free_values() {
        let manifest = crate::manifest_dir();
        let repo = manifest.parent().expect("the crate lies in the repository");
        let work = std::env::temp_dir().join(format!("hurray-rule-text-{}", std::process::id()));
        let amended = crate::overlay::materialize(
            &repo.join("spec"),
            &repo.join("tests/fixtures/amendments/new-device-tag/edit.toml"),
            &work,
        )
        .expect("the overlay applies");
        let before = crate::load(&repo.join("spec")).expect("the spec reads");
        let after = crate::load(&amended.tree).expect("the amended spec reads");
        let _ = std::fs::remove_dir_all(&work);
        let (before, after) = (
            before.clean().expect("the spec is clean"),
            after.clean().expect("the amended spec is clean"),
        );
        let (space, tag) = after
            .spaces
            .iter()
            .find_map(|s| Some((s, s.tags.iter().find(|t| t.name.starts_with("x_"))?)))
            .expect("the overlay allocates a tag");
        let digits = space.width.bits() as usize / 4;
        let (new, next) = (
            format!("0x{:0digits$X}–", tag.value),
            format!("0x{:0digits$X}–", tag.value + 1),
        );
        let mut rewritten = 0;
        for (old, new_rule) in before.rules.iter().zip(&after.rules) {
            assert_eq!(old.id, new_rule.id, "the amendment adds no rule");
            if old.text != new_rule.text {
                assert!(old.text.contains(&new), "{}: {}", old.id, old.text);
                assert_eq!(
                    new_rule.text,
                    old.text.replace(&new, &next),
                    "{}: the free values start after the new tag",
                    old.id
                );
                rewritten += 1;
            }
        }
        assert!(rewritten > 0, "a rule names the space's free values");
    }
}
