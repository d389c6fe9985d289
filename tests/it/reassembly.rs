//! A parallel answer's shards put back together (`hurray_runtime::protocol::reassemble`,
//! IX-65): the reference's two shards of a float32 [4, 4] parent, a column-major parent cut in
//! four, and every shard the reassembly must refuse, with its rule.

use hurray_runtime::protocol::reassemble::{Reassembly, ReassemblyError};
use hurray_runtime::stream::StreamReader;
use hurray_runtime::structures::{Descriptor, Shard};
use hurray_runtime::tags::{ElementType, Layout};
use hurray_runtime::{ReaderConfig, descriptor, writer};

use crate::common::shared;

fn bytes(d: Descriptor) -> Vec<u8> {
    writer::finalize(d).expect("a valid shard")
}

/// A shard of `element` with `shape` at `start` of `parent`, in `layout`.
fn shard(
    element: ElementType,
    layout: Layout,
    shape: &[u64],
    start: &[u64],
    parent: &[u64],
) -> Vec<u8> {
    let mut d = writer::row_major(element, shape);
    d.fixed_header.layout_tag = layout.into();
    d.shard = Some(Shard::new(parent.to_vec(), start.to_vec()));
    bytes(d)
}

fn rule(e: ReassemblyError) -> String {
    match e {
        ReassemblyError::Invalid(e) => e.rule().map_or("-", |r| r.id()).to_string(),
        ReassemblyError::Unsupported { .. } => "unsupported".to_string(),
        other => format!("{other:?}"),
    }
}

/// The reference's sharded stream: two float32 [2, 4] shards of a [4, 4] parent, rows 0–1 and
/// 2–3. Placed in either order, the parent is the shards' rows one after the other.
#[test]
fn the_references_shards_reassemble_in_either_order() {
    let input = std::fs::read(shared().join("conformance/stream/sharded.bin")).unwrap();
    let mut reader = StreamReader::new(&input[..], &ReaderConfig::new());
    let mut shards = Vec::new();
    while let Some((t, data)) = reader.next_tensor_with_data().unwrap() {
        shards.push((t.descriptor().to_bytes(), data.concat()));
    }
    assert_eq!(shards.len(), 2);
    let expected: Vec<u8> = shards.iter().flat_map(|(_, d)| d.clone()).collect();
    assert_eq!(expected.len(), 64);
    for order in [[0, 1], [1, 0]] {
        let config = ReaderConfig::new();
        let first = descriptor::read(&shards[order[0]].0, &config).unwrap();
        let mut r = Reassembly::new(first.view()).unwrap();
        assert_eq!(r.parent_shape(), [4, 4]);
        for &i in &order {
            let d = descriptor::read(&shards[i].0, &config).unwrap();
            r.place(d.view(), &shards[i].1).unwrap();
        }
        assert_eq!(r.finish().unwrap(), expected, "order {order:?}");
    }
}

/// A column-major uint8 [4, 4] parent cut into four [2, 2] quarters: each quarter's bytes are
/// its elements column by column, and the parent comes back as 0, 1, …, 15 (its elements'
/// column-major positions).
#[test]
fn a_column_major_parent_cut_in_four_comes_back_whole() {
    let parent = [4u64, 4];
    let config = ReaderConfig::new();
    let quarters: Vec<(Vec<u8>, Vec<u8>)> = [[0u64, 0], [2, 0], [0, 2], [2, 2]]
        .iter()
        .map(|start| {
            // Column-major: position of (i, j) is i + 4 j.
            let data = (0..2u64)
                .flat_map(|j| (0..2u64).map(move |i| (start[0] + i + 4 * (start[1] + j)) as u8))
                .collect();
            (
                shard(
                    ElementType::Uint8,
                    Layout::ColumnMajor,
                    &[2, 2],
                    start,
                    &parent,
                ),
                data,
            )
        })
        .collect();
    let first = descriptor::read(&quarters[3].0, &config).unwrap();
    let mut r = Reassembly::new(first.view()).unwrap();
    for (d, data) in quarters.iter().rev() {
        r.place(descriptor::read(d, &config).unwrap().view(), data)
            .unwrap();
    }
    assert_eq!(r.finish().unwrap(), (0..16).collect::<Vec<u8>>());
}

/// What a refusal case gives: what it shows, its first shard, the shards placed after it with
/// their data, and the rule (or `unsupported`).
type Case = (&'static str, Vec<u8>, Vec<(Vec<u8>, Vec<u8>)>, &'static str);

/// Each shard the reassembly refuses, under its rule: every case is a first shard and the
/// shards placed after it, with the data they carry.
#[test]
fn every_shard_that_breaks_a_rule_is_refused_with_it() {
    use ElementType::{Float32, Uint4, Uint8};
    use Layout::RowMajor;
    let row = |r: u64| shard(Uint8, RowMajor, &[1, 3], &[r, 0], &[2, 3]);
    let cases: Vec<Case> = vec![
        (
            "packed 4-bit elements",
            shard(Uint4, RowMajor, &[1, 4], &[0, 0], &[2, 4]),
            vec![],
            "unsupported",
        ),
        (
            "no shard section",
            bytes(writer::row_major(Uint8, &[2, 3])),
            vec![],
            "IX-60",
        ),
        (
            "another element type",
            row(0),
            vec![(
                shard(Float32, RowMajor, &[1, 3], &[1, 0], &[2, 3]),
                vec![0; 12],
            )],
            "IX-61",
        ),
        (
            "another parent",
            row(0),
            vec![(
                shard(Uint8, RowMajor, &[1, 3], &[1, 0], &[3, 3]),
                vec![0; 3],
            )],
            "IX-61",
        ),
        (
            "two boxes overlapping",
            row(0),
            vec![(row(0), vec![1, 2, 3]), (row(0), vec![1, 2, 3])],
            "IX-62",
        ),
        (
            "data short of the shard's elements",
            row(0),
            vec![(row(0), vec![1, 2])],
            "MSG-11",
        ),
        (
            "half the parent",
            row(0),
            vec![(row(0), vec![1, 2, 3])],
            "IX-62",
        ),
    ];
    let config = ReaderConfig::new();
    for (what, first, placed, want) in cases {
        let first = descriptor::read(&first, &config).unwrap();
        let got = Reassembly::new(first.view()).and_then(|mut r| {
            for (d, data) in &placed {
                r.place(descriptor::read(d, &config).unwrap().view(), data)?;
            }
            r.finish()
        });
        match got {
            Ok(_) => panic!("{what}: reassembled"),
            Err(e) => assert_eq!(rule(e), want, "{what}"),
        }
    }
}
