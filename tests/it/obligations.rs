//! Rules that reject nothing, shown by what the runtime does: warnings a reader reports
//! without rejecting, fields and slots a reader must ignore whatever they hold, and inputs
//! a writer refuses. `tests/coverage.toml` names each test for the rule it shows.

use crate::common::access;
use crate::common::build::{self, Library, Tensor};
use crate::common::paths::{self, Root};
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

/// The writer refuses `d` under `rule`, with the rule's stable code.
fn refused_under(d: hurray_runtime::structures::Descriptor, config: &ReaderConfig, rule: Rule) {
    match writer::finalize_with(d, config) {
        Err(writer::WriteError::Invalid(e)) => {
            assert_eq!(e.rule(), Some(rule), "{e}");
            assert_eq!(e.code(), rule.code(), "{e}");
        }
        Err(e) => panic!("refused, but not as invalid: {e}"),
        Ok(_) => panic!("the writer wrote what {rule:?} forbids"),
    }
}

/// An agreed private type 0xF6: a signed 4-bit integer, 5 elements in 3 bytes.
const PACKED_4_BIT: &str = "element_type = 246\nshape = [5]\nbuffers = [3]\nextension_type = { bit_width = 4, packing_factor = 2, is_float = 0, is_signed = 1, sign_bits = 0, exponent_bits = 0, mantissa_bits = 0, exponent_bias = 0, has_nan = 0, has_inf = 0 }";

fn agreed_246() -> ReaderConfig {
    ReaderConfig::new().agree::<hurray_runtime::tags::ElementType>(246)
}

#[test]
fn shd_3_the_writer_refuses_the_dynamic_sentinel_in_a_shard() {
    for field in ["parent_shape", "shard_offset"] {
        let mut t = tensor(
            "element_type = \"float32\"\nshape = [2, 4]\nbuffers = [32]\nshard = { parent_shape = [6, 4], shard_offset = [2, 0] }",
        );
        let shard = t.descriptor.shard.as_mut().expect("a shard");
        let values = if field == "parent_shape" {
            &mut shard.parent_shape
        } else {
            &mut shard.shard_offset
        };
        values[1] = u64::MAX;
        refused_under(t.descriptor, &ReaderConfig::new(), Rule::Shd3);
    }
}

#[test]
fn ext_5_the_writer_refuses_a_signed_float_extension_type_or_two_sign_bits() {
    let base = tensor(PACKED_4_BIT);
    let float = |is_signed: u8, sign_bits: u8| {
        let mut d = base.descriptor.clone();
        let e = d.extension_type.as_mut().expect("an extension type");
        (e.is_float, e.is_signed, e.sign_bits) = (1, is_signed, sign_bits);
        (e.exponent_bits, e.mantissa_bits, e.exponent_bias) = (2, 1, 1);
        d
    };
    writer::finalize_with(float(0, 1), &agreed_246()).expect("a valid float extension type");
    refused_under(float(1, 1), &agreed_246(), Rule::Ext5);
    refused_under(float(0, 2), &agreed_246(), Rule::Ext5);
}

#[test]
fn ext_6_the_writer_refuses_an_integer_extension_type_with_float_fields() {
    let base = tensor(PACKED_4_BIT);
    writer::finalize_with(base.descriptor.clone(), &agreed_246()).expect("the base is valid");
    for field in [
        "sign_bits",
        "exponent_bits",
        "mantissa_bits",
        "exponent_bias",
    ] {
        let mut d = base.descriptor.clone();
        let e = d.extension_type.as_mut().expect("an extension type");
        match field {
            "sign_bits" => e.sign_bits = 1,
            "exponent_bits" => e.exponent_bits = 2,
            "mantissa_bits" => e.mantissa_bits = 1,
            _ => e.exponent_bias = 7,
        }
        refused_under(d, &agreed_246(), Rule::Ext6);
    }
}

/// A block-paged int8 `[9, 2, 8]` tensor (layouts.md §17.1's pool of 5 pages of 4 tokens),
/// quantized per channel along `axis` with float32 scales in buffer 3.
fn paged_per_channel(axis: u32) -> hurray_runtime::structures::Descriptor {
    let scales = [0.5f32; 9][..if axis == 0 { 9 } else { 8 }]
        .iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    tensor(&format!(
        "element_type = \"int8\"\nblock_paged = {{ page_size = 4, num_pages = 5, heads = 2, head_dim = 8, seqs = [[6, [0, 1]], [3, [0]]], kv_role = \"value\", layer_index = 1, block_table_index_type = \"u32\" }}\ndata = [{{ f32 = [{scales}] }}]\nquantization = {{ scheme = \"per_channel_affine\", flags = 1, axis = {axis}, scale_buffer_index = 3, zero_point_buffer_index = 4294967295, scale_type_tag = \"float32\" }}"
    ))
    .descriptor
}

#[test]
fn bp_15_the_writer_refuses_per_channel_quantization_of_a_paged_tensors_axis_0() {
    writer::finalize(paged_per_channel(2)).expect("axis 2 (head_dim) is allowed");
    refused_under(
        paged_per_channel(0),
        &ReaderConfig::new().permissive(true),
        Rule::Bp15,
    );
}

#[test]
fn bp_18_the_writer_refuses_a_u32_block_table_for_more_pages_than_u32_holds() {
    use hurray_runtime::structures::LayoutVariant;
    use hurray_runtime::tags::BlockTableIndexType;
    use hurray_runtime::tags::ElementType;
    use hurray_runtime::wire::TagSpace;
    // Any 16-bit element type a writer may still emit (an amendment may deprecate one, W3).
    let element_type = ElementType::ALL
        .iter()
        .find(|t| t.bits() == 16 && t.deprecated_since().is_none())
        .expect("a 16-bit element type that is not deprecated")
        .name();
    let paged = |index_type: BlockTableIndexType| {
        let mut d = tensor(&"element_type = \"ELEMENT\"\nblock_paged = { page_size = 4, num_pages = 5, heads = 2, head_dim = 8, seqs = [[6, [0, 1]], [3, [0]]], kv_role = \"key\", layer_index = 3, block_table_index_type = \"u32\" }".replace("ELEMENT", element_type)).descriptor;
        let LayoutVariant::BlockPaged(b) = &mut d.layout_fields else {
            panic!("a block-paged layout");
        };
        b.num_pages = 1 << 32;
        b.block_table_index_type = hurray_runtime::wire::TagValue::new(index_type);
        // The pool holds 2^32 pages of 4 tokens × 2 heads × 8 two-byte values.
        d.buffer_table.buffers[0].byte_size = (1u64 << 32) * 4 * 2 * 8 * 2;
        d
    };
    let config = ReaderConfig::new().permissive(true);
    refused_under(paged(BlockTableIndexType::U32), &config, Rule::Bp18);
    if let Err(e) = writer::finalize_with(paged(BlockTableIndexType::U64), &config) {
        assert_ne!(e.to_string(), "", "{e}");
        assert!(
            !e.to_string().contains("BP-18"),
            "a u64 block table is what BP-18 asks: {e}"
        );
    }
}

#[test]
fn sta_6_the_writer_refuses_a_statistic_out_of_its_range() {
    let t = tensor(&format!(
        "element_type = \"float32\"\nshape = [2]\nbuffers = [8]\n{STATISTICS}"
    ));
    refused_under(t.descriptor, &ReaderConfig::new(), Rule::Sta6);
}

#[test]
fn dat_1_the_file_writer_refuses_packed_data_with_padding_bits_set() {
    // Five 4-bit elements take 3 bytes; the high nibble of the last byte is padding.
    let t = tensor(PACKED_4_BIT);
    let descriptor = writer::finalize_with(t.descriptor, &agreed_246()).expect("valid");
    let write = |data: &[u8]| {
        let mut w = writer::FileWriter::new(Vec::new(), &writer::FileOptions::default())
            .expect("a file writer");
        w.add_tensor("t", &descriptor, &[data])
    };
    write(&[0x21, 0x43, 0x05]).expect("padding bits clear");
    match write(&[0x21, 0x43, 0x15]) {
        Err(writer::WriteError::Invalid(e)) => {
            assert_eq!(e.rule(), Some(Rule::Dat1), "{e}");
            assert_eq!(e.code(), Rule::Dat1.code(), "{e}");
        }
        other => panic!("padding bits set were written: {other:?}"),
    }
}
