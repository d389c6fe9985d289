//! A structure that contains itself (a tiled layout's `nested` level): the view keeps every
//! level as the enclosing parse read it, with the caller's reader configuration and its
//! nesting counted against the depth limit (TL-6). A reader pinned to an older version walks
//! the same levels the parse checked, and a level past the limit is reported under the depth
//! rule, with its code and offset.

use crate::common::{read, root};
use hurray_runtime_matrix as new;

fn corpus(name: &str) -> Vec<u8> {
    read(&root().join("tests/corpus").join(name))
}

/// `fn $name(view) -> levels` for one runtime: the tile shapes of every level of the tiled
/// layout, outermost first, with each level's offset, checked against the offset its parent
/// gives its `nested` field.
macro_rules! levels {
    ($name:ident, $runtime:ident) => {
        fn $name(view: &$runtime::structures::DescriptorView<'_>) -> Vec<(Vec<u64>, u64)> {
            use $runtime::structures::LayoutVariantView;
            let LayoutVariantView::Tiled(first) = view.layout_fields() else {
                panic!("not a tiled layout");
            };
            let mut out = Vec::new();
            let mut level = Some(first);
            while let Some(t) = level {
                out.push((t.tile_shape().iter().collect(), t.offset()));
                if let Some(n) = t.nested() {
                    assert_eq!(
                        n.offset(),
                        t.nested_at(),
                        "a level starts where its parent says"
                    );
                }
                level = t.nested();
            }
            out
        }
    };
}
levels!(levels_released, hurray_runtime);
levels!(levels_newer, new);

#[test]
fn every_level_of_a_nested_tiling_is_the_one_the_parse_checked() {
    let bytes = corpus("valid/edge-tiled-depth-8.bin");
    let expected: Vec<Vec<u64>> = (0..8).rev().map(|k| vec![1u64 << k]).collect();

    // The released build at its current version.
    let config = hurray_runtime::ReaderConfig::new();
    let d = hurray_runtime::descriptor::read(&bytes, &config).expect("depth 8 is accepted");
    let released = levels_released(d.view());
    assert_eq!(
        released.iter().map(|l| l.0.clone()).collect::<Vec<_>>(),
        expected
    );

    // The newer build (descriptor 1.1) acting as a reader of 1.0, permissive: the levels are
    // read with this configuration, the same ones, at the same offsets.
    let pinned = new::ReaderConfig::new()
        .with_version_str("descriptor=1.0")
        .expect("1.0 is a version of the newer build")
        .permissive(true);
    assert!(
        new::axes::Axis::Descriptor.current() > pinned.version(new::axes::Axis::Descriptor),
        "the reader is pinned below the build's current version"
    );
    let d = new::descriptor::read(&bytes, &pinned).expect("depth 8 is accepted");
    assert_eq!(levels_newer(d.view()), released);
    // The owned form carries every level too.
    let mut owned = d.view().owned();
    let mut depth = 0;
    if let new::structures::LayoutVariant::Tiled(t) = &mut owned.layout_fields {
        let mut level = Some(&*t);
        while let Some(l) = level {
            depth += 1;
            level = l.nested.as_deref();
        }
    }
    assert_eq!(depth, 8);
}

#[test]
fn a_level_past_the_limit_is_reported_under_the_depth_rule() {
    let bytes = corpus("reject/TL-6-nesting-9-levels.bin");
    let config = hurray_runtime::ReaderConfig::new();
    let e = hurray_runtime::descriptor::read(&bytes, &config).expect_err("9 levels are too deep");
    assert_eq!(e.rule(), Some(hurray_runtime::rules::Rule::Tl6));
    assert_eq!(e.code(), hurray_runtime::rules::Rule::Tl6.code());

    let pinned = new::ReaderConfig::new()
        .with_version_str("descriptor=1.0")
        .unwrap()
        .permissive(true);
    let e2 = new::descriptor::read(&bytes, &pinned).expect_err("9 levels are too deep");
    assert_eq!(e2.rule(), Some(new::rules::Rule::Tl6));
    assert_eq!(e2.offset(), e.offset(), "the ninth level, where it starts");
    // The ninth level starts after eight levels of rank-1 tiling.
    let d8 = corpus("valid/edge-tiled-depth-8.bin");
    assert!(e.offset() as usize > 0 && (e.offset() as usize) < d8.len().max(bytes.len()));
}
