//! Where the values a newer spec allocates land in a downstream crate's matches: every value
//! the crate's code was written against is named by an arm, every value allocated since
//! reaches the wildcard, and a value the released runtime does not know stays reachable as a
//! raw tag.
//!
//! The code (`src/matches.rs`) names the values of the spec's first release: every axis at its
//! initial version. What was allocated later, by an amendment of `spec/` (which both runtimes
//! are generated from) or by the compatibility-matrix amendment (the second runtime's alone),
//! is what a crate written before it has never seen, so it must reach the wildcard.

use hurray_downstream_match::{amended, released};
use hurray_runtime::{TagClass, TagSpace, TagValue};

const NEWER: &str = "newer than this tool";

/// The names of the values of one tag space of one runtime that were allocated after its
/// axis's initial version (`$tags`: the generated enum, `$family`: the downstream match).
macro_rules! allocated_later {
    ($runtime:ident, $tags:ty, $family:path) => {{
        use $runtime::TagSpace as _;
        let initial = <$tags as $runtime::TagSpace>::AXIS.initial();
        let later: Vec<&str> = <$tags as $runtime::TagSpace>::ALL
            .iter()
            .filter(|t| t.since() > initial)
            .map(|t| t.name())
            .collect();
        let wildcard: Vec<&str> = <$tags as $runtime::TagSpace>::ALL
            .iter()
            .filter(|t| $family(**t) == NEWER)
            .map(|t| t.name())
            .collect();
        (later, wildcard)
    }};
}

#[test]
fn every_value_of_the_first_release_has_its_own_arm_and_later_ones_the_wildcard() {
    use hurray_runtime::tags::{ElementType, Scheme};
    let (later, wildcard) = allocated_later!(hurray_runtime, ElementType, released::element_family);
    assert_eq!(wildcard, later, "element types");
    let (later, wildcard) = allocated_later!(hurray_runtime, Scheme, released::scheme_family);
    assert_eq!(wildcard, later, "schemes");
    // An axis is the code's when it is not a scheme's, or its scheme was allocated at first.
    use hurray_runtime::axes::Axis;
    for &a in Axis::ALL {
        let scheme = Scheme::ALL
            .iter()
            .find(|s| Axis::of_scheme(s.value()) == Some(a));
        let first = scheme.is_none_or(|s| s.since() <= Scheme::AXIS.initial());
        assert_eq!(released::axis_family(a) == NEWER, !first, "{}", a.name());
    }
}

#[test]
fn values_the_amendment_adds_reach_the_wildcard() {
    use hurray_runtime_matrix::TagSpace as _;
    use hurray_runtime_matrix::axes::Axis;
    use hurray_runtime_matrix::tags::{ElementType, Scheme};
    let (later, wildcard) =
        allocated_later!(hurray_runtime_matrix, ElementType, amended::element_family);
    assert_eq!(wildcard, later, "element types");
    // The amended runtime allocates more than the released one, and all of it is later.
    let released_types: Vec<&str> = hurray_runtime::tags::ElementType::ALL
        .iter()
        .map(|t| t.name())
        .collect();
    let added_types: Vec<&str> = ElementType::ALL
        .iter()
        .map(|t| t.name())
        .filter(|n| !released_types.contains(n))
        .collect();
    assert!(
        !added_types.is_empty(),
        "the amendment allocates an element type"
    );
    assert!(
        added_types.iter().all(|n| later.contains(n)),
        "{added_types:?}"
    );
    let (later, wildcard) = allocated_later!(hurray_runtime_matrix, Scheme, amended::scheme_family);
    assert_eq!(wildcard, later, "schemes");
    assert!(
        Scheme::ALL.len() > hurray_runtime::tags::Scheme::ALL.len(),
        "the amendment allocates a scheme"
    );
    // An axis is the code's when it is not a scheme's, or its scheme was allocated at first.
    let mut newer_axes = 0;
    for &a in Axis::ALL {
        let scheme = Scheme::ALL
            .iter()
            .find(|s| Axis::of_scheme(s.value()) == Some(a));
        let first = scheme.is_none_or(|s| s.since() <= Scheme::AXIS.initial());
        assert_eq!(amended::axis_family(a) == NEWER, !first, "{}", a.name());
        newer_axes += usize::from(!first);
    }
    assert!(newer_axes > 0, "the amendment adds a scheme's axis");
}

#[test]
fn a_value_the_released_runtime_does_not_know_stays_reachable_as_its_raw_tag() {
    use hurray_runtime::tags::ElementType;
    use hurray_runtime_matrix::TagSpace as _;
    for &t in hurray_runtime_matrix::tags::ElementType::ALL {
        let raw = t.value();
        let value = TagValue::<ElementType>::from_raw(raw);
        assert_eq!(value.raw(), raw);
        match value.get() {
            Ok(known) => assert_eq!(known.name(), t.name()),
            Err(unknown) => {
                assert_eq!(unknown.value, raw);
                assert!(
                    matches!(value.class(), TagClass::UnallocatedPublic { .. }),
                    "{raw:#x} is an unallocated public value to the released runtime"
                );
                assert_eq!(value.name(), None);
            }
        }
    }
}
