//! The Kaitai Struct emitter: `docs/kaitai/hurray.ksy`, a description of the descriptor and
//! the file container from the model, from which Kaitai's compiler generates readers in a
//! dozen languages and its visualiser shows every byte.
//!
//! Every tag space is an enum; every structure a type (its params as Kaitai params, its `let`
//! bindings as value instances); a flag set a type with a boolean instance per bit. Fields
//! map one to one: counts to `repeat` or `size`, conditions to `if`, appended fields to
//! `if: not _io.eof` (R4), dispatched fields to `switch-on` with enum cases (a private range's
//! structure as the default case), a length prefix to a `size` substream whose unread rest
//! is kept as `skipped` (CD2). A field that `locates` a structure is an instance at that
//! absolute offset; the structures `at` a file's start and end are the file type's header
//! and trailer. Table checks become `contents` and `valid`; warnings, and every rule the
//! runtime's semantic layer enforces, are named in `doc` only. Everything here reads the
//! model (names through `names`, expressions through `expr`); the YAML is written by
//! `yaml`.

mod expr;
mod names;
mod yaml;

use std::cmp::Reverse;
use std::collections::BTreeSet;

use crate::model::shape::Prefix;
use crate::model::*;
use crate::render::{self, Style};

use expr::Valid;
use names::{FLAGS_VALUE, Names, fresh};
use yaml::Node;

/// The file the description is written to, under `docs/kaitai/`.
pub const FILE_NAME: &str = "hurray.ksy";

/// The command that regenerates the checked-in description.
pub const COMMAND: &str = crate::artifacts::REFRESH_COMMAND;

/// The description's id (`meta/id`): the file's stem, and the generated reader's class.
const ID: &str = "hurray";

/// The Kaitai version the description is written for.
const KS_VERSION: &str = "0.11";

/// The Kaitai Struct description of the spec, with its preamble.
pub fn ksy(spec: &Spec) -> String {
    let names = Names::new(spec);
    let k = Kaitai {
        spec,
        names: &names,
    };
    let mut top = Node::map()
        .with("meta", k.meta())
        .with("doc", Node::str(k.top_doc()));
    let (seq, instances) = k.roots();
    top.set("seq", seq);
    if !instances.is_empty() {
        top.set("instances", instances);
    }
    top.set("types", k.types());
    top.set("enums", k.enums());
    format!("{}{}", super::preamble("#", COMMAND), yaml::document(&top))
}

/// The model and the ids chosen for it.
struct Kaitai<'a> {
    spec: &'a Spec,
    names: &'a Names,
}

/// The Kaitai type of a primitive. Every multi-byte value of the format is little-endian
/// (`meta/endian`), as the runtime reads it.
fn primitive(p: Prim) -> &'static str {
    match p {
        Prim::U8 => "u1",
        Prim::U16 => "u2",
        Prim::U32 => "u4",
        Prim::U64 => "u8",
        Prim::I8 => "s1",
        Prim::I16 => "s2",
        Prim::I32 => "s4",
        Prim::I64 => "s8",
        Prim::F32 => "f4",
        Prim::F64 => "f8",
    }
}

/// Lines joined into one doc text, empty lines left out.
fn doc(lines: impl IntoIterator<Item = String>) -> String {
    lines
        .into_iter()
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `doc: text` added to `node`, unless the text is empty.
fn set_doc(node: &mut Node, text: String) {
    if !text.is_empty() {
        node.set("doc", Node::str(text));
    }
}

/// A custom key (ignored by Kaitai's compiler) marking the unread rest of a length-prefixed
/// structure, so tools reading the description tell it from the spec's fields.
const SKIPPED_KEY: &str = "-hurray-skipped";

/// A custom key marking the entry that checks a nesting level (it reads nothing).
const NESTING_KEY: &str = "-hurray-nesting";

/// A custom key marking a flag set's type.
const FLAGS_KEY: &str = "-hurray-flags";

impl Kaitai<'_> {
    fn meta(&self) -> Node {
        Node::map()
            .with("id", Node::str(ID))
            .with("title", Node::str(&self.spec.title))
            .with("ks-version", Node::str(KS_VERSION))
            .with("endian", Node::str("le"))
    }

    fn top_doc(&self) -> String {
        let roots: Vec<String> = self
            .entry_points()
            .iter()
            .map(|r| {
                format!(
                    "{} (magic {})",
                    r.title,
                    render::hex(r.magic.as_deref().unwrap_or_default())
                )
            })
            .collect();
        format!(
            "{}, from its machine-readable spec: {}, chosen by the magic at offset 0.\n\nThe types and enums are generated from the spec's tables. What the tables state (offsets, counts, conditions, tag spaces, flag sets, checks) is read and validated here; the rules only the runtime's semantic layer enforces are named in each type's doc and not checked. See docs/kaitai/README.md.",
            self.spec.title,
            roots.join(" or ")
        )
    }

    /// The structures `at` the file's start and end.
    fn anchored(&self, anchor: Anchor) -> Option<StructId> {
        self.spec
            .structures
            .iter()
            .position(|s| s.at == Some(anchor))
            .map(|i| StructId(i as u32))
    }

    /// Whether another structure of the same axis holds `id` (as a field or a dispatched
    /// variant): one held only by another part of the format (a descriptor inside an
    /// interchange message) still begins inputs of its own.
    fn contained(&self, id: StructId) -> bool {
        let axis = self.spec.structure(id).axis;
        self.spec.structures.iter().any(|s| {
            s.axis == axis
                && s.fields.iter().any(|f| match &f.ty {
                    FieldType::Struct(t) => *t == id,
                    FieldType::Dispatch { space, .. } => self.spec.variants(*space).contains(&id),
                    _ => false,
                })
        })
    }

    /// The fixed bytes a structure starts with (its magic), reached through the structures
    /// at its offset 0.
    fn magic(&self, id: StructId) -> Option<Vec<u8>> {
        let first = self
            .spec
            .structure(id)
            .fields
            .iter()
            .find(|f| f.const_offset() == Some(0))?;
        match &first.ty {
            FieldType::Bytes => first.checks.iter().find_map(|c| match (&c.kind, &c.when) {
                (CheckKind::Bytes(b), None) => Some(b.clone()),
                _ => None,
            }),
            FieldType::Struct(t) => self.magic(*t),
            _ => None,
        }
    }

    /// Where a structure's own length prefix sits (its offset from the structure's start)
    /// and its type, for a structure whose own field gives its length.
    fn own_prefix(&self, id: StructId) -> Option<(u64, Prim)> {
        let s = self.spec.structure(id);
        let Prefix::Own { field } = s.shape.prefix else {
            return None;
        };
        let Framing::LengthPrefixed {
            by_struct,
            by_field,
            ..
        } = &s.framing
        else {
            return None;
        };
        let within = self.spec.path_offset(by_field)?;
        let base = if *by_struct == id {
            0
        } else {
            s.fields[field].const_offset()?
        };
        let prim = self.spec.resolve(by_field).ty.scalar_prim(self.spec)?;
        Some((base + within, prim))
    }

    /// A reference to structure `id`'s type from inside structure `from` (or from outside
    /// every structure), with its params (`layout_tiled(rank, 1)`): a structure whose nesting
    /// is limited takes its level last, 1 from outside its cycle, one more from inside it.
    fn call(&self, from: Option<StructId>, id: StructId) -> String {
        let s = self.spec.structure(id);
        let mut args = s.params.clone();
        if self.names.level(id).is_some() {
            let same_cycle = from.is_some_and(|f| {
                self.spec.structure(f).shape.containment.component == s.shape.containment.component
            });
            args.push(match from.and_then(|f| self.names.level(f)) {
                Some(level) if same_cycle => format!("{level} + 1"),
                _ => "1".to_string(),
            });
        }
        let name = self.names.structure(id);
        if args.is_empty() {
            name.to_string()
        } else {
            format!("{name}({})", args.join(", "))
        }
    }

    /// The type of a param: the type of the field some structure binds it to.
    fn param_type(&self, name: &str) -> &'static str {
        self.spec
            .structures
            .iter()
            .find_map(|s| s.bindings.get(name))
            .and_then(|p| self.spec.resolve(p).ty.scalar_prim(self.spec))
            .map_or("u8", primitive)
    }

    /// What the top level reads: the file (from the structure at its start) and every
    /// structure that holds no other, takes no params and starts with a magic, longest magic
    /// first (one may begin with another).
    fn entry_points(&self) -> Vec<EntryPoint> {
        let mut out = Vec::new();
        if let Some(start) = self.anchored(Anchor::Start) {
            let s = self.spec.structure(start);
            out.push(EntryPoint {
                id: self.names.file.clone(),
                ty: self.names.file.clone(),
                title: self.spec.axis(s.axis).title.clone(),
                magic: self.magic(start),
                prefix: None,
            });
        }
        for (i, s) in self.spec.structures.iter().enumerate() {
            let id = StructId(i as u32);
            if s.at.is_none()
                && s.params.is_empty()
                && !self.contained(id)
                && let Some(magic) = self.magic(id)
            {
                out.push(EntryPoint {
                    id: self.names.structure(id).to_string(),
                    ty: self.call(None, id),
                    title: s.title.clone(),
                    magic: Some(magic),
                    prefix: self.own_prefix(id),
                });
            }
        }
        out.sort_by_key(|r| Reverse(r.magic.as_ref().map_or(0, Vec::len)));
        out
    }

    /// The top level's `seq` (one entry point, chosen by its magic) and `instances` (the
    /// magics read ahead, and the length prefix of an entry point that has one).
    fn roots(&self) -> (Node, Node) {
        let roots = self.entry_points();
        let mut taken: BTreeSet<String> = roots.iter().map(|r| r.id.clone()).collect();
        let mut seq = Vec::new();
        let mut instances = Node::map();
        let mut earlier: Vec<String> = Vec::new();
        for (i, root) in roots.iter().enumerate() {
            let mut entry = Node::map()
                .with("id", Node::str(&root.id))
                .with("type", Node::str(&root.ty));
            if let Some((offset, prim)) = root.prefix {
                let name = fresh(&format!("{}_length_prefix", root.id), &mut taken);
                instances.set(
                    &name,
                    Node::map()
                        .with("pos", expr::int_node(i128::from(offset)))
                        .with("type", Node::str(primitive(prim)))
                        .with(
                            "doc",
                            Node::str(format!(
                                "the length prefix of the {}, read ahead to bound it",
                                root.title
                            )),
                        ),
                );
                entry.set("size", Node::str(name));
            }
            let mut condition: Vec<String> = Vec::new();
            let last = i + 1 == roots.len();
            if let (Some(magic), false) = (&root.magic, last) {
                let n = magic.len();
                let peek = fresh(&format!("{}_magic", root.id), &mut taken);
                let is = fresh(&format!("is_{}", root.id), &mut taken);
                instances.set(
                    &peek,
                    Node::map()
                        .with("pos", Node::Int(0))
                        .with("size", Node::Int(n as i128))
                        .with("if", Node::str(format!("_io.size >= {n}")))
                        .with("doc", Node::str(format!("the first {n} bytes, read ahead"))),
                );
                let bytes: Vec<String> = magic.iter().map(|b| format!("{b:#04x}")).collect();
                instances.set(
                    &is,
                    Node::map()
                        .with(
                            "value",
                            Node::str(format!(
                                "_io.size >= {n} and {peek} == [{}]",
                                bytes.join(", ")
                            )),
                        )
                        .with(
                            "doc",
                            Node::str(format!("whether the input is a {}", root.title)),
                        ),
                );
                condition.push(is.clone());
                earlier.push(is);
            }
            condition.extend(
                earlier[..earlier.len() - usize::from(!condition.is_empty())]
                    .iter()
                    .map(|e| format!("not {e}")),
            );
            if !condition.is_empty() {
                entry.set("if", Node::str(expr::all(&condition)));
            }
            entry.set("doc", Node::str(&root.title));
            seq.push(entry);
        }
        (Node::List(seq), instances)
    }

    /// Every type: the file, each structure, each flag set, and the empty type.
    fn types(&self) -> Node {
        let mut types = Node::map();
        if let Some(file) = self.file_type() {
            types.set(&self.names.file, file);
        }
        for i in 0..self.spec.structures.len() {
            let id = StructId(i as u32);
            types.set(self.names.structure(id), self.structure_type(id));
        }
        for (i, set) in self.spec.flag_sets.iter().enumerate() {
            let id = FlagSetId(i as u32);
            types.set(self.names.flag_type(id), self.flag_type(id, set));
        }
        types.set(
            &self.names.empty,
            Node::map().with(
                "doc",
                Node::str("An allocated tag value that selects no structure: nothing to read."),
            ),
        );
        types
    }

    /// A file: the structure at its start, read in sequence, and the one at its end, found
    /// by counting back from the file's size.
    fn file_type(&self) -> Option<Node> {
        let start = self.anchored(Anchor::Start)?;
        let s = self.spec.structure(start);
        let mut lines = vec![self.spec.axis(s.axis).title.clone()];
        if !self.spec.placement.rules.is_empty() {
            lines.push(format!(
                "Placement rules not checked here: {}.",
                self.rule_ids(&self.spec.placement.rules)
            ));
        }
        let mut t = Node::map().with("doc", Node::str(doc(lines))).with(
            "seq",
            Node::List(vec![
                Node::map()
                    .with("id", Node::str(self.names.structure(start)))
                    .with("type", Node::str(self.call(None, start))),
            ]),
        );
        if let Some(end) = self.anchored(Anchor::End)
            && let Some(size) = self.spec.structure(end).const_size()
        {
            t.set(
                "instances",
                Node::map().with(
                    self.names.structure(end),
                    Node::map()
                        .with("pos", Node::str(format!("_io.size - {size}")))
                        .with("type", Node::str(self.call(None, end)))
                        .with(
                            "doc",
                            Node::str(format!(
                                "{}: the file's last {size} bytes",
                                self.spec.structure(end).title
                            )),
                        ),
                ),
            );
        }
        Some(t)
    }

    fn rule_ids(&self, rules: &[RuleId]) -> String {
        rules
            .iter()
            .map(|r| self.spec.rule(*r).id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A structure's type.
    fn structure_type(&self, id: StructId) -> Node {
        let s = self.spec.structure(id);
        let mut lines = vec![s.title.clone(), s.note.clone()];
        if let (Some((levels, rule)), None) = (s.depth_limit, self.names.level(id)) {
            lines.push(format!(
                "Nests at most {levels} level(s) deep ({}); not checked here.",
                self.spec.rule(rule).id
            ));
        }
        if !s.rules.is_empty() {
            lines.push(format!(
                "Rules of the runtime's semantic layer, not checked here: {}.",
                self.rule_ids(&s.rules)
            ));
        }
        let mut t = Node::map();
        set_doc(&mut t, doc(lines));
        let mut params: Vec<Node> = s
            .params
            .iter()
            .map(|p| {
                Node::map()
                    .with("id", Node::str(p))
                    .with("type", Node::str(self.param_type(p)))
            })
            .collect();
        let level = self.names.level(id).zip(s.depth_limit);
        if let Some((level, _)) = level {
            params.push(
                Node::map()
                    .with("id", Node::str(level))
                    .with("type", Node::str(primitive(Prim::U32)))
                    .with(
                        "doc",
                        Node::str("the nesting level of this one, the outermost 1"),
                    ),
            );
        }
        if !params.is_empty() {
            t.set("params", Node::List(params));
        }
        // Fields and instances share one namespace; params and bindings keep their names
        // (the calls of nested structures pass them on).
        let mut taken: BTreeSet<String> = self.names.fields(id).iter().cloned().collect();
        taken.extend(s.params.iter().cloned());
        taken.extend(self.names.level(id).map(str::to_string));
        taken.extend(s.bindings.keys().cloned());
        let mut instances = Node::map();
        for (name, path) in &s.bindings {
            instances.set(
                name,
                Node::map()
                    .with("value", Node::str(expr::path(self.spec, self.names, path)))
                    .with(
                        "doc",
                        Node::str(format!("`{}`, for the structures inside", path.text)),
                    ),
            );
        }
        let mut seq: Vec<Node> = Vec::new();
        if let Some((level, (levels, rule))) = level {
            // Reads nothing: checks the level before the fields are read.
            seq.push(
                Node::map()
                    .with("id", Node::str(fresh("nesting", &mut taken)))
                    .with("size", Node::Int(0))
                    .with(
                        "valid",
                        Node::map().with("expr", Node::str(format!("{level} <= {levels}"))),
                    )
                    .with(NESTING_KEY, Node::Bool(true))
                    .with(
                        "doc",
                        Node::str(format!(
                            "Reads nothing: the nesting level is at most {levels} [{}].",
                            self.spec.rule(rule).id
                        )),
                    ),
            );
        }
        seq.extend((0..s.fields.len()).map(|i| self.field(id, i, &mut instances, &mut taken)));
        let rest_read = matches!(
            s.fields.last().and_then(|f| f.count.as_ref()),
            Some(Count::Rest)
        );
        if s.shape.prefix != Prefix::None && !rest_read {
            seq.push(self.skipped(id, &mut taken));
        }
        t.set("seq", Node::List(seq));
        if !instances.is_empty() {
            t.set("instances", instances);
        }
        t
    }

    /// The unread rest of a length-prefixed structure: a later minor version's fields, which
    /// a reader skips (CD2), and which must be empty in data of a version the reader knows.
    fn skipped(&self, id: StructId, taken: &mut BTreeSet<String>) -> Node {
        let s = self.spec.structure(id);
        let axis = self.spec.axis(s.axis);
        let mut e = Node::map()
            .with("id", Node::str(fresh("skipped", taken)))
            .with("size-eos", Node::Bool(true))
            .with(SKIPPED_KEY, Node::Bool(true));
        let mut lines = vec![
            "Bytes inside the length prefix after the fields this spec defines: a later minor version's fields, which a reader skips (CD2).".to_string(),
        ];
        if let Some(minor) = self.carrier(id, &axis.minor) {
            e.set(
                "valid",
                Node::map().with(
                    "expr",
                    Node::str(format!("_.size == 0 or {minor} > {}", axis.current.minor)),
                ),
            );
            lines.push(format!(
                "Empty in data of {} {} or older (surplus bytes at a known version are rejected).",
                axis.name,
                axis.show(axis.current)
            ));
        }
        e.set("doc", Node::str(doc(lines)));
        e
    }

    /// The expression reading an axis carrier (`path`) from inside structure `id`: a field
    /// of the structure, of a structure it holds, or of the structure at the file's start.
    fn carrier(&self, id: StructId, path: &FieldPath) -> Option<String> {
        let spec = self.spec;
        let within = expr::path(spec, self.names, path);
        if path.root == id {
            return Some(within);
        }
        let s = spec.structure(id);
        if let Some(i) = s
            .fields
            .iter()
            .position(|f| f.ty == FieldType::Struct(path.root) && f.presence == Presence::Always)
        {
            return Some(format!("{}.{within}", self.names.field(id, i)));
        }
        let start = self.anchored(Anchor::Start)?;
        (start == path.root && s.axis == spec.structure(start).axis).then(|| {
            format!(
                "_root.{}.{}.{within}",
                self.names.file,
                self.names.structure(start)
            )
        })
    }

    /// The axes whose major version field `index` of `id` carries.
    fn major_of(&self, id: StructId, index: usize) -> impl Iterator<Item = &Axis> {
        self.spec.axes.iter().filter(move |a| {
            a.major
                .as_ref()
                .is_some_and(|p| p.root == id && p.steps == [index])
        })
    }

    /// Field `index` of structure `id` as a `seq` entry; instances it needs (a tag read
    /// ahead, a structure it locates) go to `instances`.
    fn field(
        &self,
        id: StructId,
        index: usize,
        instances: &mut Node,
        taken: &mut BTreeSet<String>,
    ) -> Node {
        let spec = self.spec;
        let s = spec.structure(id);
        let f = &s.fields[index];
        let shape = &s.shape.fields[index];
        let fid = self.names.field(id, index);
        let mut e = Node::map().with("id", Node::str(fid));
        if fid != f.name {
            e.set("-orig-id", Node::str(&f.name));
        }
        let reserved_bytes = f.reserved && f.ty == FieldType::Bytes;
        // The type.
        let mut contents: Option<Vec<u8>> = None;
        // A reserved byte run: that many zero bytes.
        let mut zeros: Option<usize> = None;
        let mut tests: Vec<(Vec<(&'static str, Node)>, String)> = Vec::new();
        match &f.ty {
            FieldType::Prim(p) => {
                e.set("type", Node::str(primitive(*p)));
                if let Some(tag) = f.flags_of {
                    tests.extend(self.flags_of(id, tag).map(|x| (Vec::new(), x)));
                }
                // A reader reads only its own major (CD3, CD4).
                for axis in self.major_of(id, index) {
                    let major = i128::from(axis.current.major);
                    tests.push((vec![("eq", Node::Int(major))], format!("_ == {major}")));
                }
            }
            FieldType::Bytes => {}
            FieldType::Utf8 => {
                e.set("type", Node::str("str"));
                e.set("encoding", Node::str("UTF-8"));
            }
            FieldType::Tag(space) => {
                e.set(
                    "type",
                    Node::str(primitive(spec.space(*space).width.prim())),
                );
                e.set("enum", Node::str(self.names.space(*space)));
                // A value the reader does not know is rejected, unless the rule it breaks
                // (the field's own, else the space's) only warns: an advertisement, an
                // ERROR's code (RES-57, RES-60).
                let unknown = f.rule.unwrap_or(spec.space(*space).reject.unknown);
                if spec.rule(unknown).action != Action::Warn {
                    tests.extend(
                        expr::readable_values(spec, *space, "_.to_i").map(|x| (Vec::new(), x)),
                    );
                }
            }
            FieldType::Flags(set) => {
                e.set("type", Node::str(self.names.flag_type(*set)));
            }
            FieldType::Struct(t) => {
                e.set("type", Node::str(self.call(Some(id), *t)));
                if shape.sized_by.is_none()
                    && let Some((offset, prim)) = self.own_prefix(*t)
                {
                    let name = fresh(&format!("{fid}_length_prefix"), taken);
                    instances.set(
                        &name,
                        Node::map()
                            .with("pos", Node::str(format!("_io.pos + {offset}")))
                            .with("type", Node::str(primitive(prim)))
                            .with(
                                "doc",
                                Node::str(format!("the length prefix of `{fid}`, read ahead")),
                            ),
                    );
                    e.set("size", Node::str(name));
                }
            }
            FieldType::Dispatch { space, on } => {
                let ty = self.dispatch(id, index, *space, on, instances, taken);
                e.set("type", ty);
            }
        }
        // The count.
        let count = f.count.as_ref().map(|c| match c {
            Count::Const(n) => Node::Int(i128::from(*n)),
            Count::Field(i) => Node::str(self.names.field(id, *i)),
            Count::Param(p) => Node::str(p),
            Count::Rest => Node::Bool(true),
        });
        match (&f.ty, &f.count, count) {
            (FieldType::Bytes | FieldType::Utf8, Some(Count::Rest), _) => {
                e.set("size-eos", Node::Bool(true));
            }
            (FieldType::Bytes | FieldType::Utf8, Some(Count::Const(n)), _) if reserved_bytes => {
                zeros = usize::try_from(*n).ok();
            }
            (FieldType::Bytes | FieldType::Utf8, _, Some(count)) => {
                e.set("size", count);
            }
            (_, Some(Count::Rest), _) => {
                e.set("repeat", Node::str("eos"));
            }
            (_, _, Some(count)) => {
                e.set("repeat", Node::str("expr"));
                e.set("repeat-expr", count);
            }
            _ => {}
        }
        if let Some(sized) = shape.sized_by
            && f.count.is_none()
        {
            e.set("size", Node::str(self.names.field(id, sized.field)));
        }
        // Presence.
        let mut present = Vec::new();
        if let Presence::If(c) = &f.presence {
            present.push(expr::condition(spec, self.names, c));
        }
        if shape.appended && s.framing.is_length_prefixed() {
            present.push("not _io.eof".to_string());
        }
        if !present.is_empty() {
            e.set("if", Node::str(expr::all(&present)));
        }
        // Checks.
        for c in &f.checks {
            if reserved_bytes && c.kind == CheckKind::Equals(Lit::Int(0)) {
                continue;
            }
            match expr::check(spec, self.names, id, f, c) {
                Some(Valid::Contents(b)) => contents = Some(b),
                Some(Valid::Test { keys, expr }) => tests.push((keys, expr)),
                None => {}
            }
        }
        if let Some(b) = contents {
            e.set(
                "contents",
                Node::Flow(b.iter().map(|x| Node::Hex(u64::from(*x))).collect()),
            );
        } else if let Some(n) = zeros {
            e.set("contents", Node::Flow(vec![Node::Int(0); n]));
        }
        match tests.as_slice() {
            [] => {}
            [(keys, _)] if !keys.is_empty() => {
                let mut valid = Node::map();
                for (k, v) in keys {
                    valid.set(*k, v.clone());
                }
                e.set("valid", valid);
            }
            _ => {
                let exprs: Vec<String> = tests.iter().map(|(_, x)| x.clone()).collect();
                e.set(
                    "valid",
                    Node::map().with("expr", Node::str(expr::all(&exprs))),
                );
            }
        }
        set_doc(&mut e, doc(self.field_doc(id, index)));
        if let Some(target) = f.locates {
            self.locate(id, index, target, instances, taken);
        }
        e
    }

    /// The doc of a field: its title and note, every check with its rule (a warning marked
    /// as not checked here), its default and version when appended.
    fn field_doc(&self, id: StructId, index: usize) -> Vec<String> {
        let s = self.spec.structure(id);
        let f = &s.fields[index];
        let mut lines = vec![f.title.clone(), f.note.clone()];
        for axis in self.major_of(id, index) {
            let rules = axis
                .reject
                .map(|(high, low)| {
                    format!(" [{}, {}]", self.spec.rule(high).id, self.spec.rule(low).id)
                })
                .unwrap_or_default();
            lines.push(format!(
                "Check: must be {}, the major version of {} this description reads{rules}.",
                axis.current.major, axis.name
            ));
        }
        for c in &f.checks {
            let text = render::check(self.spec, s, c, Style::Message);
            lines.push(if c.level == CheckLevel::Warn {
                format!("Check: {text}; a warning, not checked here.")
            } else {
                format!("Check: {text}.")
            });
        }
        if f.since > s.since {
            let axis = self.spec.axis(s.axis);
            lines.push(format!(
                "Since {}; absent in older data, whose readers use the default{} (R4).",
                axis.show(f.since),
                f.default
                    .as_ref()
                    .map(|d| format!(" {}", render::default(s, d, Style::Message)))
                    .unwrap_or_default()
            ));
        }
        lines
    }

    /// The `valid` expression of a scheme's flags: no bit outside the flag set of the scheme
    /// the tag field names (a private scheme's bits are its own).
    fn flags_of(&self, id: StructId, tag: usize) -> Option<String> {
        let spec = self.spec;
        let field = &spec.structure(id).fields[tag];
        let FieldType::Tag(space) = field.ty else {
            return None;
        };
        let tag_id = self.names.field(id, tag);
        let mut mask = "0".to_string();
        for t in spec.space(space).tags.iter().rev() {
            if let TagAttrs::Scheme(a) = &t.attrs {
                let reserved = spec.flag_set(a.flags).reserved_mask();
                mask = format!(
                    "({tag_id} == {}::{} ? {} : {mask})",
                    self.names.space(space),
                    t.name,
                    expr::int(i128::from(reserved))
                );
            }
        }
        Some(format!("(_ & {mask}) == 0"))
    }

    /// A dispatched field's type: `switch-on` its tag, a case per allocated value (the empty
    /// type for a value that selects nothing) and the private range's structure as the
    /// default. A tag inside the dispatched structure is read ahead by an instance.
    fn dispatch(
        &self,
        id: StructId,
        index: usize,
        space: SpaceId,
        on: &TagSource,
        instances: &mut Node,
        taken: &mut BTreeSet<String>,
    ) -> Node {
        let spec = self.spec;
        let switch_on = match on {
            TagSource::Field(p) => expr::path(spec, self.names, p),
            TagSource::Peek {
                path_in_variant, ..
            } => {
                let offset = spec
                    .variants(space)
                    .first()
                    .and_then(|v| spec.peek_offset(*v, path_in_variant, space))
                    .unwrap_or(0);
                let last = path_in_variant.last().map_or("tag", String::as_str);
                let fid = self.names.field(id, index);
                let name = fresh(&format!("{fid}_{}", names::identifier(last)), taken);
                let pos = if offset == 0 {
                    "_io.pos".to_string()
                } else {
                    format!("_io.pos + {offset}")
                };
                instances.set(
                    &name,
                    Node::map()
                        .with("pos", Node::str(pos))
                        .with("type", Node::str(primitive(spec.space(space).width.prim())))
                        .with("enum", Node::str(self.names.space(space)))
                        .with(
                            "doc",
                            Node::str(format!(
                                "`{}` of the structure `{fid}` holds, read ahead to choose it",
                                path_in_variant.join(".")
                            )),
                        ),
                );
                name
            }
        };
        let mut cases = Node::map();
        for t in &spec.space(space).tags {
            let ty = match t.structure {
                Some(v) => self.call(Some(id), v),
                None => self.names.empty.clone(),
            };
            cases.set(
                format!("{}::{}", self.names.space(space), t.name),
                Node::str(ty),
            );
        }
        if let Some(private) = spec.space(space).dispatch.as_ref().and_then(|d| d.private) {
            cases.set("_", Node::str(self.call(Some(id), private)));
        }
        Node::map()
            .with("switch-on", Node::str(switch_on))
            .with("cases", cases)
    }

    /// The instance a `locates` field points to: the target structure at that absolute
    /// offset of the whole input, bounded by its length prefix when one is known here.
    fn locate(
        &self,
        id: StructId,
        index: usize,
        target: StructId,
        instances: &mut Node,
        taken: &mut BTreeSet<String>,
    ) {
        let spec = self.spec;
        let fid = self.names.field(id, index);
        let t = spec.structure(target);
        let name = fresh(self.names.structure(target), taken);
        let present = format!("{fid} != 0");
        let mut inst = Node::map()
            .with("io", Node::str("_root._io"))
            .with("pos", Node::str(fid));
        match &t.framing {
            Framing::LengthPrefixed {
                by_struct,
                by_field,
                ..
            } if *by_struct == id && by_field.steps.len() == 1 => {
                inst.set("size", Node::str(self.names.field(id, by_field.steps[0])));
            }
            _ => {
                if let Some((offset, prim)) = self.own_prefix(target) {
                    let peek = fresh(&format!("{name}_length_prefix"), taken);
                    instances.set(
                        &peek,
                        Node::map()
                            .with("io", Node::str("_root._io"))
                            .with("pos", Node::str(format!("{fid} + {offset}")))
                            .with("type", Node::str(primitive(prim)))
                            .with("if", Node::str(&present))
                            .with(
                                "doc",
                                Node::str(format!(
                                    "the length prefix of the {} at `{fid}`, read ahead to bound it",
                                    t.title
                                )),
                            ),
                    );
                    inst.set("size", Node::str(peek));
                }
            }
        }
        inst.set("type", Node::str(self.call(None, target)));
        inst.set("if", Node::str(present));
        inst.set(
            "doc",
            Node::str(format!(
                "{}, at the absolute offset `{fid}` (0: absent)",
                t.title
            )),
        );
        instances.set(name, inst);
    }

    /// A flag set's type: the raw value, with unknown bits rejected, and a boolean instance
    /// per bit.
    fn flag_type(&self, id: FlagSetId, set: &FlagSet) -> Node {
        let axis = self.spec.axis(set.axis);
        let mut value = Node::map()
            .with("id", Node::str(FLAGS_VALUE))
            .with("type", Node::str(primitive(set.width.prim())));
        // Unknown bits are rejected unless their rule only warns (an advertisement, RES-59),
        // and so is a bit set without the bits it requires, where that rule rejects.
        let warns = self.spec.rule(set.rule).action == Action::Warn;
        let mut tests: Vec<String> = Vec::new();
        if !warns && let Some(test) = expr::no_unknown_bits(set, "_") {
            tests.push(test);
        }
        for b in &set.bits {
            if let Some(r) = &b.requires
                && self.spec.rule(r.rule).action != Action::Warn
            {
                tests.push(expr::requires(b.bit, r.mask(), "_"));
            }
        }
        if !tests.is_empty() {
            value.set(
                "valid",
                Node::map().with("expr", Node::str(tests.join(" and "))),
            );
        }
        value.set(
            "doc",
            Node::str(format!(
                "the raw bits; a bit no flag allocates is {} ({})",
                if warns {
                    "reported, not rejected"
                } else {
                    "rejected"
                },
                self.spec.rule(set.rule).id
            )),
        );
        let mut bits = Node::map();
        for (b, name) in set.bits.iter().zip(self.names.bits(id)) {
            let mut lines = vec![
                format!("{} (bit {})", b.title, b.bit),
                format!("Since {}.", axis.show(b.since)),
            ];
            if let Some(d) = &b.deprecated {
                lines.push(format!(
                    "{}.",
                    render::deprecation(self.spec, set.axis, d, Style::Message)
                ));
            }
            bits.set(
                name,
                Node::map()
                    .with(
                        "value",
                        Node::str(format!(
                            "({FLAGS_VALUE} & {}) != 0",
                            expr::int(1i128 << b.bit)
                        )),
                    )
                    .with("doc", Node::str(doc(lines))),
            );
        }
        let mut t = Node::map()
            .with("doc", Node::str(&set.title))
            .with(FLAGS_KEY, Node::Bool(true))
            .with("seq", Node::List(vec![value]));
        if !bits.is_empty() {
            t.set("instances", bits);
        }
        t
    }

    /// Every tag space as an enum of its allocated values.
    fn enums(&self) -> Node {
        let mut enums = Node::map();
        for (i, space) in self.spec.spaces.iter().enumerate() {
            let id = SpaceId(i as u32);
            let digits = space.width.bytes() as usize * 2;
            let mut values = Node::map();
            for t in &space.tags {
                let mut lines = vec![t.title.clone()];
                let attributes = render::attributes(self.spec, t, Style::Markdown);
                if !attributes.is_empty() {
                    lines.push(attributes);
                }
                if let Some(d) = &t.deprecated {
                    lines.push(format!(
                        "{}.",
                        render::deprecation(self.spec, space.axis, d, Style::Message)
                    ));
                }
                values.set(
                    format!("{:#0width$x}", t.value, width = digits + 2),
                    Node::map()
                        .with("id", Node::str(&t.name))
                        .with("doc", Node::str(doc(lines))),
                );
            }
            enums.set(self.names.space(id), values);
        }
        enums
    }
}

/// One thing the top level can read.
struct EntryPoint {
    id: String,
    ty: String,
    title: String,
    magic: Option<Vec<u8>>,
    prefix: Option<(u64, Prim)>,
}
