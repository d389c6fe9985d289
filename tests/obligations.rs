//! Rules that reject nothing, shown by what the runtime does: warnings a reader reports
//! without rejecting, fields and slots a reader must ignore whatever they hold, and inputs
//! a writer refuses. `tests/coverage.toml` names each test for the rule it shows.

mod common;

use common::access;
use common::build::{self, Library, Tensor};
use common::paths::{self, Root};
use hurray_runtime::ReaderConfig;
use hurray_runtime::rules::Rule;
use hurray_runtime::writer;

/// A tensor row of the corpus tables' form (`tests/corpus/README.md`).
fn tensor(row: &str) -> Tensor {
    let row: toml::Table = toml::from_str(row).expect("a tensor row");
    build::tensor(&row, &Library::default(), "obligations")
}

/// A one-tensor file of rows of the corpus tables' form, written by the file writer.
fn file(rows: &str) -> Vec<u8> {
    let row: toml::Table = toml::from_str(rows).expect("a file row");
    let spec = build::file(&row, &Library::default(), "obligations", &[]);
    build::build_file("obligations", &spec, &ReaderConfig::new()).0
}

/// Overwrite the field at a spec path of a file.
fn patch(bytes: &mut [u8], path: &str, value: toml::Value) {
    let config = ReaderConfig::new();
    let slot = paths::resolve(
        &Root::File {
            bytes,
            config: &config,
        },
        path,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let at = slot.at as usize;
    let new = paths::encode(&slot, &value, &bytes[at..], path);
    bytes[at..at + new.len()].copy_from_slice(&new);
}

const STATISTICS: &str = "statistics = { computed_mask = 2, nnz = 0, sparsity_ratio = 2.0, value_min = 0.0, value_max = 0.0, value_abs_max = 0.0, value_mean = 0.0, value_stddev = 0.0, nm_n = 0, nm_m = 0, has_nan = 0, has_inf = 0 }";

#[test]
fn sta_6_a_statistic_out_of_its_range_is_a_warning() {
    // SPARSITY_VALID (bit 1) is set and sparsity_ratio is 2.0, outside [0.0, 1.0].
    let mut t = tensor(&format!(
        "element_type = \"float32\"\nshape = [2]\nbuffers = [8]\n{STATISTICS}"
    ));
    t.unchecked = true;
    let bytes = build::descriptor_bytes(&t, &ReaderConfig::new(), "STA-6");
    let read = access::read_descriptor(&bytes, &ReaderConfig::new()).expect("only a warning");
    assert!(
        read.warnings().iter().any(|w| w.rule == Rule::Sta6),
        "{:?}",
        read.warnings()
    );
}

#[test]
fn sta_3_a_statistic_whose_mask_bit_is_clear_is_ignored_whatever_it_holds() {
    // The same out-of-range sparsity_ratio, under a mask that does not claim it.
    let t = tensor(&format!(
        "element_type = \"float32\"\nshape = [2]\nbuffers = [8]\n{}",
        STATISTICS.replace("computed_mask = 2", "computed_mask = 1")
    ));
    let bytes = build::descriptor_bytes(&t, &ReaderConfig::new(), "STA-3");
    let read = access::read_descriptor(&bytes, &ReaderConfig::new()).expect("accepted");
    assert!(read.warnings().is_empty(), "{:?}", read.warnings());
}

#[test]
fn f37_a_buffer_aligned_beyond_the_files_alignment_is_a_warning() {
    let mut bytes = file(
        "tensor_count_hint = \"unknown\"\ntensors = [{ name = \"t\", element_type = \"float32\", shape = [2], data = [{ f32 = [1.0, 2.0] }] }]",
    );
    patch(
        &mut bytes,
        "tensors.t.descriptor.buffer_table.buffers[0].alignment",
        toml::Value::Integer(8192),
    );
    let f = access::read_file(&bytes, &ReaderConfig::new()).expect("only a warning");
    assert!(
        f.warnings().iter().any(|w| w.rule == Rule::F37),
        "{:?}",
        f.warnings()
    );
}

#[test]
fn buf_7_the_writer_refuses_a_tensor_of_more_than_255_buffers() {
    let t = tensor(&format!(
        "element_type = \"float32\"\nshape = [1]\nbuffers = [4{}]",
        ", 0".repeat(255)
    ));
    assert_eq!(t.descriptor.buffer_table.buffers.len(), 256);
    assert!(writer::finalize(t.descriptor).is_err());
}

/// A file holding one float8_e8m0 tensor whose every element is 0x7F, and one padding or
/// undefined slot holding 0xFF, the byte DAT-3 forbids in an element.
fn e8m0_with_padding(row: &str, slots: usize, padding: usize) -> Vec<u8> {
    let mut data = vec!["0x7F"; slots];
    data[padding] = "0xFF";
    file(&format!(
        "tensor_count_hint = \"unknown\"\ntensors = [{{ name = \"t\", element_type = \"float8_e8m0\", {row}, data = [{{ u8 = [{}] }}{}] }}]",
        data.join(", "),
        if row.contains("block_paged") {
            ", { u32 = [0, 1] }, { u32 = [0, 2] }"
        } else {
            ""
        }
    ))
}

#[test]
fn tl_8_tile_padding_is_never_read() {
    // [3, 3] in 2x2 tiles: 16 slots; slot 5 is (0, 3), outside the shape.
    let bytes = e8m0_with_padding(
        "layout = \"tiled\", layout_fields = { tile_shape = [2, 2], outer_layout = 1, inner_layout = 1 }, shape = [3, 3]",
        16,
        5,
    );
    access::read_file(&bytes, &ReaderConfig::new()).expect("padding is not data");
}

#[test]
fn mo_5_morton_padding_is_never_read() {
    // [3, 4] with 2 bits per dimension: 16 codes; code 15 is (3, 3), outside the shape
    // whichever dimension takes the lower bit.
    let bytes = e8m0_with_padding(
        "layout = \"morton\", layout_fields = { morton_bits = [2, 2] }, shape = [3, 4]",
        16,
        15,
    );
    access::read_file(&bytes, &ReaderConfig::new()).expect("padding is not data");
}

#[test]
fn bp_16_page_slots_beyond_a_sequence_are_never_read() {
    // One sequence of 3 tokens in 2 pages of 2: the pool's slot 3 holds no token.
    let bytes = e8m0_with_padding(
        "layout = \"block_paged\", layout_fields = { page_size = 2, num_pages = 2, paged_axis = 0, num_seqs = 1, kv_role = \"key\", layer_index = 0, block_table_index_type = \"u32\" }, shape = [3, 1, 1]",
        4,
        3,
    );
    access::read_file(&bytes, &ReaderConfig::new()).expect("an undefined slot is not data");
}
