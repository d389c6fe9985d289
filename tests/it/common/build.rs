//! Test vectors as data: the tensors and files the corpus tables describe
//! (`tests/corpus/valid.toml`, `tests/corpus/reject.toml`; their keys are explained in
//! `tests/corpus/README.md`), built into owned values and bytes.
//!
//! A tensor row is the contract shape of a descriptor (the spec's names, tags by name) minus
//! everything derivable, plus how its buffers are filled. What is derived comes from the
//! hand-computed oracle of `tests/it/common/oracle.rs`, never from the code under test; and a
//! file's placement is computed here, beside the writer calls, by container.md §5's
//! arithmetic ([`build_file`]). The writer must then produce exactly these bytes
//! (`finalize_with` changes nothing, the file writer places everything where the arithmetic
//! says), and the reader must accept them: that is what makes a vector golden.

use std::collections::BTreeMap;

use hurray_runtime::contract;
use hurray_runtime::flags::FileFlags;
use hurray_runtime::rules::Rule;
use hurray_runtime::structures::{Descriptor, FileHeader, IndexSection, KvEntry};
use hurray_runtime::tags::{ElementType, Layout, Scheme};
use hurray_runtime::wire::{TagClass, TagSpace};
use hurray_runtime::writer::{self, FileOptions, FileWriter};
use hurray_runtime::{ReaderConfig, Value};
use serde_json::{Map, Value as J, json};
use toml::Value as T;

use super::access;
use super::oracle::*;
use super::tables::{self, Keys};
use super::{f32s, i32s, u64s};

// ---------------------------------------------------------------------------------------
// JSON: the CLI's mapping of the contract value
// ---------------------------------------------------------------------------------------

/// The CLI's JSON mapping (`hurray-runtime`'s `json` feature): byte sequences as lowercase
/// hex, floats JSON cannot hold as `"f64:<bits>"`, keys in the contract's order.
pub fn to_json(v: &Value) -> J {
    match v {
        Value::Null => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::UInt(n) => json!(n),
        Value::Int(n) => json!(n),
        Value::Float(x) if x.is_finite() => json!(x),
        Value::Float(x) => J::String(format!("f64:{:016x}", x.to_bits())),
        Value::Str(s) => J::String(s.clone()),
        Value::Bytes(b) | Value::Skipped(b) => J::String(hurray_runtime::value::hex_encode(b)),
        Value::Array(a) => J::Array(a.iter().map(to_json).collect()),
        Value::Object(fields) => {
            let mut m = Map::new();
            for (k, x) in fields {
                m.insert(k.clone(), to_json(x));
            }
            J::Object(m)
        }
        Value::Defaulted(inner) => to_json(inner),
    }
}

/// Pretty JSON with a final newline, as the corpus stores it.
pub fn pretty(j: &J) -> Vec<u8> {
    let mut s = serde_json::to_string_pretty(j).expect("JSON serializes");
    s.push('\n');
    s.into_bytes()
}

pub fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

/// What a sparse or indirect builder contributes: the layout, its block, the shape when the
/// builder determines it, and the layout's own buffers (parameter buffers follow them).
struct Built {
    layout: &'static str,
    fields: Value,
    shape: Option<Vec<u64>>,
    buffers: Vec<Vec<u8>>,
}

fn uint_value(n: u64) -> Value {
    Value::UInt(n)
}

fn uints_value(xs: &[u64]) -> Value {
    Value::Array(xs.iter().map(|x| Value::UInt(*x)).collect())
}

/// The layout a builder key names, through the spec's tag names.
fn layout_name(l: Layout) -> &'static str {
    l.name()
}

fn entries(v: &T, lib: &Library, what: &str) -> Entries {
    let v = match v {
        T::String(name) => lib
            .entries
            .get(name)
            .unwrap_or_else(|| panic!("{what}: no entry set `{name}`")),
        other => other,
    };
    tables::array(v, what)
        .iter()
        .map(|e| {
            let pair = tables::array(e, what);
            assert_eq!(pair.len(), 2, "{what}: an entry is [coordinates, value]");
            (tables::uints(&pair[0], what), tables::float(&pair[1], what))
        })
        .collect()
}

/// A sparse or indirect tensor from its coordinates: `coo`, `csr`, `csc`, `csf` or
/// `block_paged` (the builder key is the layout's spec name).
fn sparse(key: &str, spec: &toml::Table, t: ElementType, shape: &[u64], lib: &Library) -> Built {
    let mut k = Keys::new(spec, key.to_string());
    let layout = Layout::from_name(key).unwrap_or_else(|| panic!("no layout `{key}`"));
    let built = match layout {
        Layout::Coo => {
            let e = entries(k.need("entries"), lib, key);
            let sorted = k.need("sorted").as_bool().expect("sorted is a boolean");
            let vals: Vec<f64> = e.iter().map(|(_, v)| *v).collect();
            let idx: Vec<u64> = e.iter().flat_map(|(c, _)| c.clone()).collect();
            Built {
                layout: layout_name(layout),
                fields: Value::Object(vec![
                    ("nnz".into(), uint_value(e.len() as u64)),
                    ("is_sorted".into(), uint_value(u64::from(sorted))),
                ]),
                shape: None,
                buffers: vec![values_of(t, &vals), u64s(&idx)],
            }
        }
        Layout::Csr | Layout::Csc => {
            let e = entries(k.need("entries"), lib, key);
            let major = usize::from(layout == Layout::Csc);
            let (vals, ind, ptr) = compressed(&e, shape, major);
            Built {
                layout: layout_name(layout),
                fields: Value::Object(vec![("nnz".into(), uint_value(e.len() as u64))]),
                shape: None,
                buffers: vec![values_of(t, &vals), u64s(&ind), u64s(&ptr)],
            }
        }
        Layout::Csf => {
            let e = entries(k.need("entries"), lib, key);
            let mode_order: Vec<u32> = tables::uints(k.need("mode_order"), key)
                .iter()
                .map(|m| *m as u32)
                .collect();
            let (pos, crd, vals) = csf_arrays(&e, &mode_order);
            let mut buffers = vec![values_of(t, &vals)];
            for (p, c) in pos.iter().zip(&crd) {
                buffers.push(u64s(p));
                buffers.push(u64s(c));
            }
            Built {
                layout: layout_name(layout),
                fields: Value::Object(vec![
                    ("nnz".into(), uint_value(e.len() as u64)),
                    (
                        "mode_order".into(),
                        uints_value(&mode_order.iter().map(|m| u64::from(*m)).collect::<Vec<_>>()),
                    ),
                ]),
                shape: None,
                buffers,
            }
        }
        Layout::BlockPaged => {
            // Sequences of token counts with their physical page ids; the pool holds
            // `num_pages` pages of `heads × head_dim` elements per token.
            let page_size = tables::uint(k.need("page_size"), key);
            let num_pages = tables::uint(k.need("num_pages"), key);
            let heads = tables::uint(k.need("heads"), key);
            let head_dim = tables::uint(k.need("head_dim"), key);
            let seqs: Vec<(u64, Vec<u64>)> = tables::array(k.need("seqs"), key)
                .iter()
                .map(|s| {
                    let s = tables::array(s, key);
                    (tables::uint(&s[0], key), tables::uints(&s[1], key))
                })
                .collect();
            let index_type = tables::string(k.need("block_table_index_type"), key);
            let index_bytes = hurray_runtime::tags::BlockTableIndexType::from_name(index_type)
                .unwrap_or_else(|| panic!("no block table index type `{index_type}`"))
                .index_bytes();
            let tokens: u64 = seqs.iter().map(|s| s.0).sum();
            let mut seq_ptr = vec![0u64];
            let mut table = Vec::new();
            for (n, pages) in &seqs {
                assert_eq!(n.div_ceil(page_size), pages.len() as u64);
                table.extend(pages);
                seq_ptr.push(table.len() as u64);
            }
            let enc = |xs: &[u64]| match index_bytes {
                4 => u32s_of(xs),
                8 => u64s(xs),
                w => panic!("no {w}-byte block table encoding"),
            };
            let pool = num_pages * page_size * heads * head_dim;
            let mut fields = vec![
                ("page_size".into(), uint_value(page_size)),
                ("num_pages".into(), uint_value(num_pages)),
                ("paged_axis".into(), uint_value(0)),
                ("num_seqs".into(), uint_value(seqs.len() as u64)),
                ("kv_role".into(), tables::to_value(k.need("kv_role"))),
                (
                    "layer_index".into(),
                    tables::to_value(k.need("layer_index")),
                ),
                (
                    "block_table_index_type".into(),
                    Value::Str(index_type.into()),
                ),
            ];
            fields.shrink_to_fit();
            Built {
                layout: layout_name(layout),
                fields: Value::Object(fields),
                shape: Some(vec![tokens, heads, head_dim]),
                buffers: vec![data(t, pool as usize, 3), enc(&table), enc(&seq_ptr)],
            }
        }
        other => panic!("no builder for layout `{}`", other.name()),
    };
    k.done();
    built
}

// ---------------------------------------------------------------------------------------
// Tensors
// ---------------------------------------------------------------------------------------

/// Named parts a table shares between its rows: templates (partial tensors a row starts
/// from) and entry sets (coordinates of sparse examples).
#[derive(Debug, Default)]
pub struct Library {
    pub templates: toml::Table,
    pub entries: toml::Table,
}

impl Library {
    /// The `[template]` and `[entries]` tables of a corpus table file.
    pub fn of(file: &toml::Table) -> Library {
        let get = |k: &str| {
            file.get(k)
                .map(|v| tables::table(v, k).clone())
                .unwrap_or_default()
        };
        Library {
            templates: get("template"),
            entries: get("entries"),
        }
    }

    /// A row with its template (`template = "name"`) merged under it.
    pub fn expand(&self, row: &toml::Table, what: &str) -> toml::Table {
        let Some(name) = row.get("template") else {
            return row.clone();
        };
        let name = tables::string(name, what);
        let base = self
            .templates
            .get(name)
            .unwrap_or_else(|| panic!("{what}: no template `{name}`"));
        let base = T::Table(self.expand(tables::table(base, name), name));
        let mut row = row.clone();
        row.remove("template");
        match tables::merge(&base, &T::Table(row)) {
            T::Table(t) => t,
            _ => unreachable!(),
        }
    }
}

/// One tensor: the owned descriptor (sealed, or encoded as is) and its buffers.
#[derive(Clone, Debug)]
pub struct Tensor {
    pub name: String,
    pub descriptor: Descriptor,
    pub buffers: Vec<Vec<u8>>,
    /// Encoded without the writer's checks (an invalid state on purpose).
    pub unchecked: bool,
}

/// The element type a tensor row declares, when it is an allocated one.
fn element_type(v: &Value) -> Option<ElementType> {
    match v {
        Value::Str(s) => ElementType::from_name(s),
        Value::UInt(n) => match ElementType::classify(*n as u32) {
            TagClass::Known(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// One buffer of a `data` list.
fn buffer(
    spec: &T,
    t: Option<ElementType>,
    ext: Option<&hurray_runtime::structures::ExtensionType>,
    elements: Option<u64>,
    what: &str,
) -> Vec<u8> {
    let spec = tables::table(spec, what);
    let mut k = Keys::new(spec, format!("{what}: data"));
    let ty = k
        .get("type")
        .map(|v| {
            let n = tables::string(v, what);
            ElementType::from_name(n).unwrap_or_else(|| panic!("{what}: no element type `{n}`"))
        })
        .or(t);
    let repeat = |v: &T, k: &mut Keys<'_>| -> Vec<T> {
        match (v, k.get("count")) {
            (T::Array(a), None) => a.clone(),
            (x, Some(n)) => vec![x.clone(); tables::uint(n, what) as usize],
            (x, None) => vec![x.clone()],
        }
    };
    let mut out = if let Some(seed) = k.get("seed") {
        let seed = tables::uint(seed, what);
        let n = k.get("elements").map_or_else(
            || elements.unwrap_or_else(|| panic!("{what}: say how many `elements`")),
            |v| tables::uint(v, what),
        );
        match k.get("rows") {
            Some(rows) => {
                let width = tables::uint(k.need("row_bytes"), what) as usize;
                let mut out = Vec::new();
                for row in 0..tables::uint(rows, what) {
                    let mut r = data(ty.expect("a row type"), n as usize, seed + row);
                    r.resize(width, 0);
                    out.extend(r);
                }
                out
            }
            None => match (ty, ext) {
                (Some(ty), _) => data(ty, n as usize, seed),
                (None, Some(e)) => private_data(e, n as usize, seed),
                (None, None) => panic!("{what}: a private type needs an extension type section"),
            },
        }
    } else if let Some(v) = k.get("f32") {
        f32s(
            &repeat(v, &mut k)
                .iter()
                .map(|x| tables::float(x, what) as f32)
                .collect::<Vec<_>>(),
        )
    } else if let Some(v) = k.get("f64") {
        repeat(v, &mut k)
            .iter()
            .flat_map(|x| tables::float(x, what).to_le_bytes())
            .collect()
    } else if let Some(v) = k.get("i32") {
        i32s(
            &repeat(v, &mut k)
                .iter()
                .map(|x| tables::int(x, what) as i32)
                .collect::<Vec<_>>(),
        )
    } else if let Some(v) = k.get("u32") {
        u32s_of(
            &repeat(v, &mut k)
                .iter()
                .map(|x| tables::uint(x, what))
                .collect::<Vec<_>>(),
        )
    } else if let Some(v) = k.get("u64") {
        u64s(
            &repeat(v, &mut k)
                .iter()
                .map(|x| tables::uint(x, what))
                .collect::<Vec<_>>(),
        )
    } else if let Some(v) = k.get("u8") {
        repeat(v, &mut k)
            .iter()
            .map(|x| u8::try_from(tables::uint(x, what)).expect("a byte"))
            .collect()
    } else if let Some(v) = k.get("hex") {
        tables::bytes(v, what)
    } else if let Some(v) = k.get("values") {
        let vals: Vec<f64> = tables::array(v, what)
            .iter()
            .map(|x| tables::float(x, what))
            .collect();
        values_of(ty.expect("values need an element type"), &vals)
    } else if let Some(v) = k.get("scales") {
        let n = tables::string(v, what);
        let st = ElementType::from_name(n).unwrap_or_else(|| panic!("no element type `{n}`"));
        let unit = k
            .get("unit")
            .map_or(0.25, |u| tables::float(u, what) as f32);
        scales(st, tables::uint(k.need("count"), what) as usize, unit)
    } else if let Some(v) = k.get("zero_points") {
        let n = tables::string(v, what);
        let st = ElementType::from_name(n).unwrap_or_else(|| panic!("no element type `{n}`"));
        i32s(&zero_points(
            st,
            tables::uint(k.need("count"), what) as usize,
        ))
    } else if let Some(v) = k.get("pack") {
        let bits = tables::uint(v, what) as u32;
        let codes: Vec<u8> = tables::uints(k.need("codes"), what)
            .iter()
            .map(|c| *c as u8)
            .collect();
        if bits == 6 {
            pack6(&codes)
        } else {
            pack(bits, &codes)
        }
    } else if let Some(v) = k.get("concat") {
        tables::array(v, what)
            .iter()
            .flat_map(|b| buffer(b, ty, ext, elements, what))
            .collect()
    } else {
        panic!(
            "{what}: a data buffer needs seed, f32, f64, i32, u32, u64, u8, hex, values, scales, zero_points, pack or concat"
        )
    };
    if let Some(n) = k.get("pad_to_bytes") {
        out.resize(tables::uint(n, what) as usize, 0);
    }
    k.done();
    out
}

/// A section that names its scheme (`{ scheme = "nf4", … }`, the key being the scheme
/// space's name): the scheme by its tag first, at the axis's initial version (or as given),
/// flags clear unless given.
fn scheme_section(v: &T, what: &str) -> Value {
    let mut q = tables::to_value(v);
    let Value::Object(fields) = &mut q else {
        unreachable!("a table")
    };
    if let Some(i) = fields.iter().position(|(k, _)| k == Scheme::NAME) {
        let (_, name) = fields.remove(i);
        let Value::Str(name) = name else {
            panic!("{what}: a scheme is named")
        };
        let s = Scheme::from_name(&name).unwrap_or_else(|| panic!("{what}: no scheme `{name}`"));
        fields.insert(0, ("scheme_tag".into(), Value::UInt(u64::from(s.value()))));
    }
    for (key, default) in [("scheme_version", 0), ("flags", 0)] {
        if !fields.iter().any(|(k, _)| k == key) {
            fields.push((key.into(), Value::UInt(default)));
        }
    }
    q
}

/// Build a tensor row (its template already merged in).
pub fn tensor(row: &toml::Table, lib: &Library, what: &str) -> Tensor {
    let mut k = Keys::new(row, what.to_string());
    let name = k
        .get("name")
        .map_or("t".to_string(), |v| tables::string(v, what).to_string());
    let unchecked = k
        .get("unchecked")
        .is_some_and(|v| v.as_bool() == Some(true));
    let type_value = tables::to_value(k.need("element_type"));
    let ty = element_type(&type_value);
    let mut shape: Option<Vec<u64>> = k.get("shape").map(|v| tables::uints(v, what));
    let mut layout = k
        .get("layout")
        .map_or(Value::Str(Layout::RowMajor.name().into()), tables::to_value);
    let mut layout_fields = k
        .get("layout_fields")
        .map_or(Value::Object(Vec::new()), tables::to_value);
    let mut buffers: Vec<Vec<u8>> = Vec::new();
    for key in [
        Layout::Coo,
        Layout::Csr,
        Layout::Csc,
        Layout::Csf,
        Layout::BlockPaged,
    ]
    .map(|l| l.name())
    {
        if let Some(spec) = k.get(key) {
            let b = sparse(
                key,
                tables::table(spec, what),
                ty.expect("a sparse tensor has an allocated element type"),
                shape.as_deref().unwrap_or(&[]),
                lib,
            );
            layout = Value::Str(b.layout.into());
            layout_fields = b.fields;
            if let Some(s) = b.shape {
                shape = Some(s);
            }
            buffers = b.buffers;
        }
    }
    let shape = shape.unwrap_or_else(|| panic!("{what}: `shape` is missing"));
    let mut contract_value: Vec<(String, Value)> = vec![
        ("version_major".into(), Value::UInt(0)),
        ("version_minor".into(), Value::UInt(0)),
        ("descriptor_length".into(), Value::UInt(0)),
        ("flags".into(), Value::UInt(0)),
        ("type_tag".into(), type_value),
        ("layout_tag".into(), layout),
        ("rank".into(), Value::UInt(shape.len() as u64)),
        ("shape".into(), uints_value(&shape)),
        (
            "byte_offset".into(),
            k.get("byte_offset")
                .map_or(Value::UInt(0), tables::to_value),
        ),
        ("layout_fields".into(), layout_fields),
    ];
    // The header's tags by name: the contract reads numbers there.
    for (key, space_value) in contract_value.iter_mut() {
        if let Value::Str(n) = space_value {
            let raw = match key.as_str() {
                "type_tag" => ElementType::from_name(n).map(|t| t.value()),
                "layout_tag" => Layout::from_name(n).map(|t| t.value()),
                _ => continue,
            };
            *space_value = Value::UInt(u64::from(
                raw.unwrap_or_else(|| panic!("{what}: `{n}` names no {key} value")),
            ));
        }
    }
    // Every optional section the spec defines (the generated descriptor's conditional
    // fields, in wire order), by its spec name: a section an amendment adds is read from a
    // row as soon as the runtime is generated from the amended tables. A section given
    // `of = [values]` is computed by the oracle (the statistics of those values); one that
    // names its scheme by name (the scheme space's name as the key) gets its tag, and the
    // scheme version and flags it leaves out.
    let mut statistics_of = None;
    for &section in Descriptor::CONDITIONAL_FIELDS {
        let v = match k.get(section) {
            Some(T::Table(t)) if t.contains_key("of") => {
                let vals: Vec<f64> = tables::array(&t["of"], what)
                    .iter()
                    .map(|x| tables::float(x, what))
                    .collect();
                let nm = t.get("nm").map_or((0, 0), |nm| {
                    let nm = tables::uints(nm, what);
                    (nm[0] as u8, nm[1] as u8)
                });
                assert!(
                    t.keys().all(|k| k == "of" || k == "nm"),
                    "{what}: {section}"
                );
                statistics_of = Some(full_stats(&vals, nm));
                Value::Null
            }
            Some(v @ T::Table(t))
                if t.contains_key(Scheme::NAME) || t.contains_key("scheme_tag") =>
            {
                scheme_section(v, what)
            }
            Some(v) => tables::to_value(v),
            None => Value::Null,
        };
        contract_value.push((section.into(), v));
    }
    if let Some(s) = k.get("skipped") {
        contract_value.push(("skipped".into(), Value::Bytes(tables::bytes(s, what))));
    }
    // The extension type section a private element type's data follows, read through the
    // owned descriptor (its buffers are not known yet).
    let ext = {
        let mut provisional = contract_value.clone();
        provisional.push(("buffers".into(), Value::Array(Vec::new())));
        contract::descriptor_from_value(&Value::Object(provisional))
            .ok()
            .and_then(|d| d.extension_type)
    };
    // The element count, when it is one (a dynamic dimension is not).
    let elements = shape.iter().try_fold(1u64, |n, d| n.checked_mul(*d));
    if let Some(d) = k.get("data") {
        for b in tables::array(d, what) {
            buffers.push(buffer(b, ty, ext.as_ref(), elements, what));
        }
    }
    // Buffer handles: explicit sizes, or the data's own sizes (an empty buffer aligned to 1,
    // any power of two being allowed for it, BH-3).
    let device = k
        .get("device_tag")
        .map_or(Value::Str("cpu".into()), tables::to_value);
    let memory = k
        .get("memory_class")
        .map_or(Value::Str("standard".into()), tables::to_value);
    let syncs: Vec<Value> =
        k.get("sync_modes")
            .map_or(vec![Value::Str("producer_synced".into())], |v| {
                tables::array(v, what)
                    .iter()
                    .map(tables::to_value)
                    .collect()
            });
    let alignment = k.get("alignment").map_or(64, |v| tables::uint(v, what));
    let handle = |i: usize, size: u64, alignment: u64| {
        Value::Object(vec![
            ("byte_size".into(), Value::UInt(size)),
            ("alignment".into(), Value::UInt(alignment)),
            ("device_tag".into(), device.clone()),
            ("sync_mode".into(), syncs[i % syncs.len()].clone()),
            ("memory_class".into(), memory.clone()),
        ])
    };
    let handles: Vec<Value> = match k.get("buffers") {
        Some(sizes) => {
            let sizes = tables::uints(sizes, what);
            if !buffers.is_empty() {
                let lens: Vec<u64> = buffers.iter().map(|b| b.len() as u64).collect();
                assert_eq!(lens, sizes, "{what}: the data does not fill the buffers");
            }
            sizes
                .iter()
                .enumerate()
                .map(|(i, s)| handle(i, *s, alignment))
                .collect()
        }
        None => buffers
            .iter()
            .enumerate()
            .map(|(i, b)| handle(i, b.len() as u64, if b.is_empty() { 1 } else { alignment }))
            .collect(),
    };
    contract_value.push(("buffers".into(), Value::Array(handles)));
    k.done();
    let input = Value::Object(contract_value);
    let mut descriptor =
        contract::descriptor_from_value(&input).unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut unknown = Vec::new();
    tables::keys_not_in(
        &input,
        &contract::descriptor_value(&descriptor),
        "",
        &mut unknown,
    );
    assert!(unknown.is_empty(), "{what}: unknown key(s) {unknown:?}");
    if let Some(s) = statistics_of {
        descriptor.statistics = Some(s);
    }
    seal(&mut descriptor);
    Tensor {
        name,
        descriptor,
        buffers,
        unchecked,
    }
}

/// The bytes of a sealed descriptor. Checked: the writer (`finalize_with`) must produce
/// exactly the owned value's encoding and a strict reader of `config` accept it without a
/// warning. Unchecked: the owned value's encoding as is, with descriptor_length covering
/// it, for the invalid states the writer refuses.
pub fn descriptor_bytes(t: &Tensor, config: &ReaderConfig, what: &str) -> Vec<u8> {
    let d = &t.descriptor;
    let own = d.to_bytes();
    if t.unchecked {
        let mut d = d.clone();
        d.fixed_header.descriptor_length = own.len() as u32;
        return d.to_bytes();
    }
    assert_eq!(
        own.len() as u32,
        d.fixed_header.descriptor_length,
        "{what}: the length identity disagrees with the encoding"
    );
    let b = match writer::finalize_with(d.clone(), config) {
        Ok(b) => b,
        // A value deprecated by an amendment after the vector was written (S3): today's
        // writer refuses it (W3), yet the data stays valid and keeps its meaning (R3). The
        // vector stands for data written before the deprecation, so it is the value's own
        // encoding, which a strict reader must still accept.
        Err(writer::WriteError::Invalid(e)) if e.rule() == Some(Rule::Ver7) => {
            if let Err(read) = hurray_runtime::descriptor::read(&own, config) {
                panic!(
                    "{what}: the writer refuses a deprecated value ({e}) and a reader rejects the data: {read}"
                );
            }
            own.clone()
        }
        Err(e) => panic!("{what}: the writer refuses: {e}"),
    };
    assert_eq!(b, own, "{what}: finalize changed the descriptor");
    b
}

// ---------------------------------------------------------------------------------------
// KV entries
// ---------------------------------------------------------------------------------------

/// A KV entry row: `{ key = "…", <value type name> = value }`, or for an array
/// `{ key = "…", array = "<element type name>", elements = [...] }`.
pub fn kv_entry(row: &T, what: &str) -> KvEntry {
    let row = tables::table(row, what);
    let mut k = Keys::new(row, format!("{what}: kv"));
    let key = tables::string(k.need("key"), what).to_string();
    let scalar = |v: &T| match v {
        T::Boolean(b) => Value::UInt(u64::from(*b)),
        T::String(s) if s.is_empty() => Value::Str(String::new()),
        other => tables::to_value(other),
    };
    let types: Vec<&String> = row
        .keys()
        .filter(|k| *k != "key" && *k != "elements")
        .collect();
    assert_eq!(types.len(), 1, "{what}: one value type per KV entry");
    let ty = types[0].as_str();
    let v = k.need(ty);
    let value = match k.get("elements") {
        Some(elements) => Value::Object(vec![
            ("element_tag".into(), tables::to_value(v)),
            (
                "elements".into(),
                Value::Array(
                    tables::array(elements, what)
                        .iter()
                        .map(|e| Value::Object(vec![("value".into(), scalar(e))]))
                        .collect(),
                ),
            ),
        ]),
        None => Value::Object(vec![("value".into(), scalar(v))]),
    };
    k.done();
    let entry = Value::Object(vec![
        ("key".into(), Value::Str(key)),
        ("value_tag".into(), Value::Str(ty.into())),
        ("value".into(), value),
    ]);
    KvEntry::from_value(&entry, "kv").unwrap_or_else(|e| panic!("{what}: {e}"))
}

// ---------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------

/// A file row: its tensors in write order, KV entries and header choices.
#[derive(Debug)]
pub struct FileSpec {
    pub options: FileOptions,
    pub first_descriptor_offset: u64,
    pub tensors: Vec<Tensor>,
    pub kv: Vec<KvEntry>,
    /// (head, members), pre-order by head.
    pub composites: Vec<(String, Vec<String>)>,
}

/// Read a file row: `tensors` (tensor rows with a `name`), `kv`, `sorted`,
/// `data_buffer_alignment` (4096), `first_descriptor_offset` (64), `tensor_count_hint`
/// (the tensor count, or `"unknown"`), `composites`. Keys the caller reads are skipped.
pub fn file(row: &toml::Table, lib: &Library, what: &str, skip: &[&str]) -> FileSpec {
    let mut k = Keys::new(row, what.to_string());
    for s in skip {
        k.get(s);
    }
    let tensors: Vec<Tensor> = k
        .get("tensors")
        .map(|ts| {
            tables::array(ts, what)
                .iter()
                .map(|t| {
                    let t = lib.expand(tables::table(t, what), what);
                    tensor(&t, lib, what)
                })
                .collect()
        })
        .unwrap_or_default();
    let kv: Vec<KvEntry> = k
        .get("kv")
        .map(|v| {
            tables::array(v, what)
                .iter()
                .map(|e| kv_entry(e, what))
                .collect()
        })
        .unwrap_or_default();
    let tensor_count_hint = match k.get("tensor_count_hint") {
        Some(T::String(s)) if s == "unknown" => None,
        Some(v) => Some(tables::uint(v, what)),
        None => Some(tensors.len() as u64),
    };
    let composites = k
        .get("composites")
        .map(|v| {
            tables::array(v, what)
                .iter()
                .map(|c| {
                    let c = tables::array(c, what);
                    (
                        tables::string(&c[0], what).to_string(),
                        tables::array(&c[1], what)
                            .iter()
                            .map(|m| tables::string(m, what).to_string())
                            .collect(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let spec = FileSpec {
        options: FileOptions {
            data_buffer_alignment: k
                .get("data_buffer_alignment")
                .map_or(4096, |v| tables::uint(v, what) as u32),
            kv: !kv.is_empty(),
            sorted_index: k.get("sorted").is_some_and(|v| v.as_bool() == Some(true)),
            tensor_count_hint,
            // W1/W2: the lowest container version that covers the KV value types the row
            // uses (one a later minor allocated needs that minor), as `hurray encode` does.
            container_version: writer::container_version_needed(
                &kv,
                &IndexSection::new(Vec::new()),
            ),
        },
        first_descriptor_offset: k
            .get("first_descriptor_offset")
            .map_or(64, |v| tables::uint(v, what)),
        tensors,
        kv,
        composites,
    };
    k.done();
    spec
}

/// The paths of the fields `v` (at `path`) holds as their defaults because its data predates
/// them (R4), as `hurray decode --json` names them in its `evolution` report.
pub fn defaulted(v: &Value, path: &str) -> Vec<String> {
    let mut evo = hurray_runtime::json::Evolution::default();
    hurray_runtime::json::to_json(v, path, &mut evo);
    evo.defaulted
}

/// `j` with the `evolution` report `hurray decode --json` prints when fields took their
/// defaults (so that the JSON encodes back to the same bytes); unchanged when none did.
pub fn with_evolution(mut j: J, defaulted: Vec<String>) -> J {
    if !defaulted.is_empty() {
        j.as_object_mut().unwrap().insert(
            "evolution".into(),
            json!({"defaulted": defaulted, "skipped": []}),
        );
    }
    j
}

/// The expectation of a descriptor: its contract value, its `evolution` report, and
/// `"dereferenceable": false` when it must not be dereferenced.
pub fn descriptor_expectation(d: &Descriptor, dereferenceable: bool) -> J {
    let value = contract::descriptor_value(d);
    let mut j = with_evolution(to_json(&value), defaulted(&value, ""));
    if !dereferenceable {
        j.as_object_mut()
            .unwrap()
            .insert("dereferenceable".into(), J::Bool(false));
    }
    j
}

/// Write a file and compute its expectation from the generator's intent: index order, every
/// offset by container.md §5.1 (RES-3 pad to 8 after the last buffer, RES-13 heads), the
/// KV and index section sizes of §6 and §7.
pub fn build_file(name: &str, spec: &FileSpec, config: &ReaderConfig) -> (Vec<u8>, J) {
    let header = FileHeader {
        magic: b"HRRYFILE".to_vec(),
        container_version_major: spec.options.container_version.major,
        container_version_minor: spec.options.container_version.minor,
        file_flags: {
            let mut f = FileFlags::HAS_INDEX_CRC32C;
            if spec.options.kv {
                f = f.with(FileFlags::HAS_KV_METADATA);
            }
            if spec.options.sorted_index {
                f = f.with(FileFlags::SORTED_INDEX);
            }
            f
        },
        data_buffer_alignment: spec.options.data_buffer_alignment,
        first_descriptor_offset: spec.first_descriptor_offset,
        tensor_count_hint: spec.options.tensor_count_hint.unwrap_or(u64::MAX),
    };
    let mut w = if spec.first_descriptor_offset == 64 {
        FileWriter::new(Vec::new(), &spec.options)
    } else {
        FileWriter::with_header(Vec::new(), header.clone())
    }
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let a = u64::from(spec.options.data_buffer_alignment);
    let mut pos = spec.first_descriptor_offset;
    let mut entries = Vec::new();
    for t in &spec.tensors {
        let bytes = descriptor_bytes(t, config, &format!("{name}: `{}`", t.name));
        let bufs: Vec<&[u8]> = t.buffers.iter().map(|b| b.as_slice()).collect();
        w.add_tensor(&t.name, &bytes, &bufs)
            .unwrap_or_else(|e| panic!("{name}: `{}`: {e}", t.name));
        let d = align_up(pos, 8);
        let l = bytes.len() as u64;
        let (data_offset, data_length, end) = if t.buffers.is_empty() {
            (d + l, 0, d + l)
        } else {
            let start = align_up(d + l, a);
            let mut at = start;
            for (k, b) in t.buffers.iter().enumerate() {
                if k > 0 {
                    at = align_up(at, a);
                }
                at += b.len() as u64;
            }
            (start, at - start, at)
        };
        pos = align_up(end, 8);
        // A file reports its descriptors' defaults once, by their paths from the top.
        let value = contract::descriptor_value(&t.descriptor);
        let desc = to_json(&value);
        entries.push((
            t.name.clone(),
            value,
            json!({
                "name": t.name,
                "descriptor_offset": d,
                "descriptor_length": l,
                "data_offset": data_offset,
                "data_length": data_length,
                "descriptor": desc,
            }),
        ));
    }
    let bytes = w.finish(&spec.kv).unwrap_or_else(|e| panic!("{name}: {e}"));
    if spec.options.sorted_index {
        entries.sort_by(|x, y| x.0.as_bytes().cmp(y.0.as_bytes()));
    }
    let (kv_offset, kv_length) = if spec.options.kv {
        let len = 4 + spec
            .kv
            .iter()
            .map(|e| 3 + e.key.len() as u64 + kv_payload_len(&e.value))
            .sum::<u64>();
        (align_up(pos, 8), len)
    } else {
        (0, 0)
    };
    let index_offset = align_up(
        if spec.options.kv {
            kv_offset + kv_length
        } else {
            pos
        },
        8,
    );
    let index_length = 8 + spec
        .tensors
        .iter()
        .map(|t| 34 + t.name.len() as u64)
        .sum::<u64>();
    let mut j = json!({
        "kind": "file",
        "container_version_major": header.container_version_major,
        "container_version_minor": header.container_version_minor,
        "file_flags": header.file_flags.0,
        "data_buffer_alignment": header.data_buffer_alignment,
        "first_descriptor_offset": header.first_descriptor_offset,
        "tensor_count_hint": header.tensor_count_hint,
        "tensors": entries.iter().map(|e| e.2.clone()).collect::<Vec<_>>(),
        "kv": spec.kv.iter().map(|e| to_json(&contract::kv_entry_value(e))).collect::<Vec<_>>(),
        "warnings": [],
    });
    if !spec.composites.is_empty() {
        j.as_object_mut().unwrap().insert(
            "composites".into(),
            spec.composites
                .iter()
                .map(|(h, m)| json!({"head": h, "members": m, "complete": true}))
                .collect(),
        );
    }
    j.as_object_mut().unwrap().insert(
        "placement".into(),
        json!({
            "kv_offset": kv_offset,
            "kv_length": kv_length,
            "index_offset": index_offset,
            "index_length": index_length,
            "file_size": index_offset + index_length + 40,
        }),
    );
    let defaults = entries
        .iter()
        .enumerate()
        .flat_map(|(k, e)| defaulted(&e.1, &format!("tensors[{k}].descriptor")))
        .collect();
    (bytes, with_evolution(j, defaults))
}

/// A reader configuration from a row's `permissive`, `network`, `agree` (`[[space, value]]`)
/// and `agree_extension_layouts` keys.
pub fn reader_config(row: &toml::Table, what: &str) -> (ReaderConfig, Agreements) {
    let agreements = Agreements {
        permissive: row
            .get("permissive")
            .is_some_and(|v| v.as_bool() == Some(true)),
        network: row
            .get("network")
            .is_some_and(|v| v.as_bool() == Some(true)),
        agree: row
            .get("agree")
            .map(|a| {
                tables::array(a, what)
                    .iter()
                    .map(|p| {
                        let p = tables::array(p, what);
                        (
                            tables::string(&p[0], what).to_string(),
                            tables::uint(&p[1], what) as u32,
                        )
                    })
                    .collect()
            })
            .unwrap_or_default(),
        extension_layouts: row
            .get("agree_extension_layouts")
            .map(|a| tables::uints(a, what))
            .unwrap_or_default(),
    };
    (agreements.config(), agreements)
}

/// The out-of-band parts of a reader configuration a vector needs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Agreements {
    pub permissive: bool,
    pub network: bool,
    /// Private tag values agreed out of band: (tag space, value).
    pub agree: Vec<(String, u32)>,
    pub extension_layouts: Vec<u64>,
}

impl Agreements {
    pub fn config(&self) -> ReaderConfig {
        let mut c = ReaderConfig::new()
            .permissive(self.permissive)
            .network(self.network);
        for (space, raw) in &self.agree {
            c = access::agree_by_name(c, space, *raw);
        }
        for id in &self.extension_layouts {
            c = c.agree_extension_layout(*id);
        }
        c
    }
}

/// Every tag and flag value by name in a row of the table must be a spec name; this is the
/// reverse direction, for messages: a raw tag value's name in its space, if allocated.
pub fn tag_name<S: TagSpace>(raw: u32) -> Option<&'static str> {
    match S::classify(raw) {
        TagClass::Known(t) => Some(t.name()),
        _ => None,
    }
}

/// A sorted map of file name to bytes, what a corpus directory holds.
pub type Files = BTreeMap<String, Vec<u8>>;
