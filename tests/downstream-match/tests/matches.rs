//! Where the values a newer spec allocates land in a downstream crate's matches: every value
//! of the released spec is named by an arm, every value the amendment adds reaches the
//! wildcard, and a value the released runtime does not know stays reachable as a raw tag.

use hurray_downstream_match::{amended, released};
use hurray_runtime::{TagClass, TagSpace, TagValue};

const NEWER: &str = "newer than this tool";

#[test]
fn every_released_value_has_its_own_arm() {
    use hurray_runtime::axes::Axis;
    use hurray_runtime::tags::{ElementType, Scheme};
    for &t in ElementType::ALL {
        assert_ne!(released::element_family(t), NEWER, "{}", t.name());
    }
    for &s in Scheme::ALL {
        assert_ne!(released::scheme_family(s), NEWER, "{}", s.name());
    }
    for &a in Axis::ALL {
        assert_ne!(released::axis_family(a), NEWER, "{}", a.name());
    }
}

#[test]
fn values_the_amendment_adds_reach_the_wildcard() {
    use hurray_runtime_matrix::TagSpace as _;
    use hurray_runtime_matrix::axes::Axis;
    use hurray_runtime_matrix::tags::{ElementType, Scheme};
    let newer_types: Vec<&str> = ElementType::ALL
        .iter()
        .filter(|t| amended::element_family(**t) == NEWER)
        .map(|t| t.name())
        .collect();
    let newer_schemes: Vec<&str> = Scheme::ALL
        .iter()
        .filter(|s| amended::scheme_family(**s) == NEWER)
        .map(|s| s.name())
        .collect();
    let newer_axes: Vec<&str> = Axis::ALL
        .iter()
        .filter(|a| amended::axis_family(**a) == NEWER)
        .map(|a| a.name())
        .collect();
    // Exactly what the amended runtime allocates beyond the released one.
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
    assert_eq!(newer_types, added_types);
    assert!(
        !newer_schemes.is_empty(),
        "the amendment allocates a scheme"
    );
    assert_eq!(
        newer_schemes.len(),
        Scheme::ALL.len() - hurray_runtime::tags::Scheme::ALL.len()
    );
    assert_eq!(
        newer_axes.len(),
        Axis::ALL.len() - hurray_runtime::axes::Axis::ALL.len()
    );
    assert!(!newer_axes.is_empty(), "the amendment adds a scheme's axis");
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
