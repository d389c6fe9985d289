//! The Kaitai identifiers of the model's items, chosen once for the whole description: a
//! structure's type id is its name, a field's id its name without the leading underscores of
//! a reserved field, a tag space's enum id its name, a flag set's type id its name, a flag
//! bit's instance id its name in lower case. Where two items would share an id in one
//! namespace (types and enums share the generated classes), the later one takes a suffix.

use std::collections::BTreeSet;

use crate::model::{FlagSetId, SpaceId, Spec, StructId};

/// Every identifier of the description.
#[derive(Debug)]
pub(super) struct Names {
    /// Per structure, the id of each of its fields.
    fields: Vec<Vec<String>>,
    /// The type id of each structure.
    structures: Vec<String>,
    /// The enum id of each tag space.
    enums: Vec<String>,
    /// The type id of each flag set.
    flag_types: Vec<String>,
    /// Per flag set, the instance id of each bit (in the set's order of bits).
    bits: Vec<Vec<String>>,
    /// Per structure that contains itself and limits its nesting, the param holding its
    /// nesting level.
    levels: Vec<Option<String>>,
    /// The type of a whole file.
    pub file: String,
    /// The type of an allocated tag value that selects no structure: nothing to read.
    pub empty: String,
}

impl Names {
    pub fn new(spec: &Spec) -> Names {
        // Types and enums become classes of one namespace in most target languages.
        let mut classes = BTreeSet::new();
        let structures: Vec<String> = spec
            .structures
            .iter()
            .map(|s| fresh(&identifier(&s.name), &mut classes))
            .collect();
        let enums = spec
            .spaces
            .iter()
            .map(|s| fresh(&identifier(&s.name), &mut classes))
            .collect();
        let flag_types = spec
            .flag_sets
            .iter()
            .map(|s| fresh(&identifier(&s.name), &mut classes))
            .collect();
        let file = fresh("file", &mut classes);
        let empty = fresh("empty", &mut classes);
        let mut fields = Vec::new();
        let mut levels = Vec::new();
        for s in &spec.structures {
            let mut taken: BTreeSet<String> = s.params.iter().cloned().collect();
            taken.extend(s.bindings.keys().cloned());
            fields.push(
                s.fields
                    .iter()
                    .map(|f| fresh(&identifier(&f.name), &mut taken))
                    .collect(),
            );
            let limited = s.depth_limit.is_some() && s.shape.containment.cyclic;
            levels.push(limited.then(|| fresh("level", &mut taken)));
        }
        let bits = spec
            .flag_sets
            .iter()
            .map(|set| {
                // `value` is the flag type's one field.
                let mut taken = BTreeSet::from([FLAGS_VALUE.to_string()]);
                set.bits
                    .iter()
                    .map(|b| fresh(&identifier(&b.name), &mut taken))
                    .collect()
            })
            .collect();
        Names {
            fields,
            structures,
            enums,
            flag_types,
            bits,
            levels,
            file,
            empty,
        }
    }

    /// The param holding the nesting level of structure `id`, when it contains itself and
    /// limits its nesting.
    pub fn level(&self, id: StructId) -> Option<&str> {
        self.levels[id.index()].as_deref()
    }

    /// The id of field `index` of structure `id`.
    pub fn field(&self, id: StructId, index: usize) -> &str {
        &self.fields[id.index()][index]
    }

    /// Every field id of structure `id`.
    pub fn fields(&self, id: StructId) -> &[String] {
        &self.fields[id.index()]
    }

    /// The type id of structure `id`.
    pub fn structure(&self, id: StructId) -> &str {
        &self.structures[id.index()]
    }

    /// The enum id of tag space `id`.
    pub fn space(&self, id: SpaceId) -> &str {
        &self.enums[id.index()]
    }

    /// The type id of flag set `id`.
    pub fn flag_type(&self, id: FlagSetId) -> &str {
        &self.flag_types[id.index()]
    }

    /// The instance id of bit number `bit` of flag set `id`, when the set allocates it.
    pub fn bit(&self, spec: &Spec, id: FlagSetId, bit: u32) -> Option<&str> {
        let position = spec.flag_set(id).bits.iter().position(|b| b.bit == bit)?;
        Some(&self.bits[id.index()][position])
    }

    /// The instance ids of every bit of flag set `id`, in the set's order.
    pub fn bits(&self, id: FlagSetId) -> &[String] {
        &self.bits[id.index()]
    }
}

/// The one field of a flag set's type: the raw integer.
pub(super) const FLAGS_VALUE: &str = "value";

/// A Kaitai identifier for a spec name: lower case, letters, digits and underscores, starting
/// with a letter (a reserved field's leading underscores are dropped).
pub(super) fn identifier(name: &str) -> String {
    let lower: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let trimmed = lower.trim_start_matches(|c: char| !c.is_ascii_lowercase());
    if trimmed.is_empty() {
        format!("x{lower}")
    } else {
        trimmed.to_string()
    }
}

/// `base`, or `base_2`, `base_3`, … when taken; the result is taken.
pub(super) fn fresh(base: &str, taken: &mut BTreeSet<String>) -> String {
    let mut name = base.to_string();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_kaitai_ids() {
        assert_eq!(identifier("_reserved"), "reserved");
        assert_eq!(identifier("_reserved2"), "reserved2");
        assert_eq!(identifier("HAS_QUANTIZATION"), "has_quantization");
        assert_eq!(identifier("fp8"), "fp8");
        assert_eq!(identifier("_"), "x_");
        let mut taken = BTreeSet::new();
        assert_eq!(fresh("reserved", &mut taken), "reserved");
        assert_eq!(fresh("reserved", &mut taken), "reserved_2");
    }
}
