//! Property tests: whatever the writer produces, the reader accepts, and decoding then
//! encoding gives back the same bytes (owned form, contract JSON shape, and whole files).

use hurray_runtime::contract::{descriptor_from_value, descriptor_value};
use hurray_runtime::structures::{Descriptor, KvEntry, KvString, KvUint64, KvValueVariant};
use hurray_runtime::tags::{ElementType, KvValue, Layout};
use hurray_runtime::wire::{TagSpace, TagValue};
use hurray_runtime::writer::{FileOptions, FileWriter, finalize, row_major};
use hurray_runtime::{ReaderConfig, descriptor, file};
use proptest::prelude::*;

fn element_type() -> impl Strategy<Value = ElementType> {
    let all: Vec<ElementType> = ElementType::ALL
        .iter()
        .copied()
        .filter(|t| t.deprecated_since().is_none())
        .collect();
    proptest::sample::select(all)
}

fn dense() -> impl Strategy<Value = Descriptor> {
    (
        element_type(),
        proptest::collection::vec(1u64..7, 1..5),
        any::<bool>(),
        0u32..7,
    )
        .prop_map(|(t, shape, column, align)| {
            let mut d = row_major(t, &shape);
            if column {
                d.fixed_header.layout_tag = TagValue::new(Layout::ColumnMajor);
                d.layout_fields = hurray_runtime::structures::LayoutVariant::ColumnMajor;
            }
            d.buffer_table.buffers[0].alignment = 64 << align;
            d
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_written_descriptor_reads_back_and_reencodes_byte_for_byte(d in dense()) {
        let bytes = finalize(d).expect("the writer accepts a dense descriptor");
        let c = descriptor::read(&bytes, &ReaderConfig::new()).expect("strict readers accept what the writer writes");
        prop_assert!(c.warnings().is_empty() && c.dereferenceable());
        let owned = c.view().owned();
        prop_assert_eq!(&owned.to_bytes(), &bytes);
        let back = descriptor_from_value(&descriptor_value(&owned)).expect("the contract shape reads back");
        prop_assert_eq!(back.to_bytes(), bytes);
    }

    #[test]
    fn a_written_file_reads_back_and_reencodes_byte_for_byte(
        tensors in proptest::collection::btree_map("[a-z][a-z0-9_./]{0,12}", dense(), 1..5),
        kv in proptest::collection::btree_map("[a-z]{1,8}", any::<u64>(), 0..4),
        sorted in any::<bool>(),
        seeking in any::<bool>(),
    ) {
        let options = FileOptions { kv: !kv.is_empty(), sorted_index: sorted, ..FileOptions::default() };
        // A seeking writer leaves holes for long padding; the bytes are the same.
        let mut w = FileWriter::seeking(std::io::Cursor::new(Vec::new()), &options).unwrap();
        let mut plain = FileWriter::new(Vec::new(), &options).unwrap();
        for (name, d) in &tensors {
            let bytes = finalize(d.clone()).unwrap();
            let c = descriptor::read(&bytes, &ReaderConfig::new()).unwrap();
            // Zero bytes, except where zero is reserved (float8_e8m0, DAT-3): 2^0.
            let fill = if c.view().fixed_header().type_tag().get() == Ok(ElementType::Float8E8m0) { 0x7F } else { 0 };
            let data: Vec<Vec<u8>> = c.view().buffer_table().buffers().iter()
                .map(|b| vec![fill; b.byte_size() as usize]).collect();
            let slices: Vec<&[u8]> = data.iter().map(|b| b.as_slice()).collect();
            if seeking {
                w.add_tensor(name, &bytes, &slices).unwrap();
            } else {
                plain.add_tensor(name, &bytes, &slices).unwrap();
            }
        }
        let entries: Vec<KvEntry> = kv.iter().enumerate().map(|(i, (k, v))| if i % 2 == 0 {
            KvEntry::new(k.clone(), TagValue::new(KvValue::Uint64), KvValueVariant::Uint64(KvUint64::new(*v)))
        } else {
            KvEntry::new(k.clone(), TagValue::new(KvValue::String), KvValueVariant::String(KvString::new(v.to_string())))
        }).collect();
        let bytes = if seeking {
            w.finish(&entries).unwrap().into_inner()
        } else {
            plain.finish(&entries).unwrap()
        };
        // The sequential reader accepts it too, and finds every tensor by its name.
        let (walked, s) = hurray_runtime::sequential::read_all(&bytes[..], &ReaderConfig::new())
            .expect("the sequential reader accepts what the writer writes");
        prop_assert_eq!(walked.len(), tensors.len());
        prop_assert!((0..walked.len()).all(|p| tensors.contains_key(s.name(p))));
        let f = file::read(&bytes, &ReaderConfig::new()).expect("strict readers accept what the writer writes");
        prop_assert_eq!(f.len(), tensors.len());
        for name in tensors.keys() {
            prop_assert!(f.tensor(name).unwrap().is_some(), "{} is found by name", name);
        }
        let mut again = FileWriter::with_header(Vec::new(), f.header().owned()).unwrap();
        for i in f.write_order() {
            let t = f.tensor_at(i).unwrap();
            let bufs: Vec<&[u8]> = t.buffers().iter().map(|(_, b)| *b).collect();
            again.add_tensor(t.name(), t.descriptor().view().bytes(), &bufs).unwrap();
        }
        let kv_back: Vec<KvEntry> = f.kv().map(|k| k.entries().iter().map(|e| e.owned()).collect()).unwrap_or_default();
        prop_assert_eq!(again.finish(&kv_back).unwrap(), bytes);
    }
}
