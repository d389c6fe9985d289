//! The analysis pass, after layout: the shape of every structure and dispatching space
//! (`model::shape`) — length prefixes, the containment graph and its cycles, which views are
//! plain copies, which fields sit in place, which field sizes which. Emitters only read it.

use std::collections::BTreeMap;

use crate::model::shape::{
    Chain, Containment, DispatchShape, FieldShape, Prefix, SizedBy, StructureShape,
};
use crate::model::*;

/// A node of the containment graph: a structure, or a space a field dispatches on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Node {
    Structure(StructId),
    Dispatch(SpaceId),
}

/// Compute every shape and store it in the model.
pub fn analyse(spec: &mut Spec) {
    let (structures, spaces) = shapes(spec);
    for (structure, shape) in spec.structures.iter_mut().zip(structures) {
        structure.shape = shape;
    }
    for (space, shape) in spaces {
        spec.spaces[space.index()].dispatch = Some(shape);
    }
}

/// The shape of every structure, and of every space a field dispatches on.
fn shapes(spec: &Spec) -> (Vec<StructureShape>, Vec<(SpaceId, DispatchShape)>) {
    let dispatched: Vec<SpaceId> = (0..spec.spaces.len())
        .map(|i| SpaceId(i as u32))
        .filter(|s| spec.dispatched(*s))
        .collect();
    let mut nodes: Vec<Node> = (0..spec.structures.len())
        .map(|i| Node::Structure(StructId(i as u32)))
        .collect();
    nodes.extend(dispatched.iter().map(|s| Node::Dispatch(*s)));
    let components = components(spec, &nodes);
    let cyclic = |n: Node| {
        let c = components[&n];
        nodes.iter().filter(|m| components[*m] == c).count() > 1 || edges(spec, n).contains(&n)
    };
    let simple: Vec<bool> = (0..spec.structures.len())
        .map(|i| is_simple(spec, StructId(i as u32)))
        .collect();
    let chains: Vec<Option<Chain>> = (0..spec.structures.len())
        .map(|i| chain(spec, StructId(i as u32), &components))
        .collect();
    let not_copy = not_copy(spec, &simple, &chains, &dispatched, &components);
    let containment = |n: Node| Containment {
        cyclic: cyclic(n),
        component: components[&n],
        copy: !not_copy.contains(&n),
    };
    let structures = (0..spec.structures.len())
        .map(|i| {
            let id = StructId(i as u32);
            StructureShape {
                prefix: prefix(spec, id),
                containment: containment(Node::Structure(id)),
                simple: simple[i],
                chain: chains[i],
                fields: field_shapes(spec, id, &components),
            }
        })
        .collect();
    let spaces = dispatched
        .into_iter()
        .map(|space| {
            let variants = spec.variants(space);
            let shape = DispatchShape {
                private: spec.space(space).ranges.iter().find_map(|r| {
                    (r.kind == RangeKind::Private)
                        .then_some(r.structure)
                        .flatten()
                }),
                params: variant_params(spec, &variants),
                bound: spec.dispatch_bound(space),
                common_first: common_first_field(spec, &variants),
                containment: containment(Node::Dispatch(space)),
                variants,
            };
            (space, shape)
        })
        .collect();
    (structures, spaces)
}

/// What a node contains: a structure its fields (nested structures, dispatching spaces), a
/// dispatching space the structures it selects.
fn edges(spec: &Spec, n: Node) -> Vec<Node> {
    match n {
        Node::Structure(id) => spec
            .structure(id)
            .fields
            .iter()
            .filter_map(|f| match &f.ty {
                FieldType::Struct(t) => Some(Node::Structure(*t)),
                FieldType::Dispatch { space, .. } => Some(Node::Dispatch(*space)),
                _ => None,
            })
            .collect(),
        Node::Dispatch(space) => spec
            .variants(space)
            .into_iter()
            .map(Node::Structure)
            .collect(),
    }
}

/// The strongly connected component of every node (Tarjan's algorithm).
fn components(spec: &Spec, nodes: &[Node]) -> BTreeMap<Node, u32> {
    struct State<'s> {
        spec: &'s Spec,
        index: BTreeMap<Node, usize>,
        low: BTreeMap<Node, usize>,
        stack: Vec<Node>,
        component: BTreeMap<Node, u32>,
        next_component: u32,
    }
    fn visit(s: &mut State<'_>, v: Node) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        for w in edges(s.spec, v) {
            if !s.index.contains_key(&w) {
                visit(s, w);
                let low = s.low[&v].min(s.low[&w]);
                s.low.insert(v, low);
            } else if s.stack.contains(&w) {
                let low = s.low[&v].min(s.index[&w]);
                s.low.insert(v, low);
            }
        }
        if s.low[&v] == s.index[&v] {
            while let Some(w) = s.stack.pop() {
                s.component.insert(w, s.next_component);
                if w == v {
                    break;
                }
            }
            s.next_component += 1;
        }
    }
    let mut state = State {
        spec,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        component: BTreeMap::new(),
        next_component: 0,
    };
    for &n in nodes {
        if !state.index.contains_key(&n) {
            visit(&mut state, n);
        }
    }
    state.component
}

/// How a length-prefixed structure learns its length.
fn prefix(spec: &Spec, id: StructId) -> Prefix {
    let s = spec.structure(id);
    match &s.framing {
        Framing::Fixed => Prefix::None,
        Framing::LengthPrefixed {
            by_struct,
            by_field,
            ..
        } => {
            if *by_struct == id {
                Prefix::Own {
                    field: by_field.steps[0],
                }
            } else if let Some(i) = s
                .fields
                .iter()
                .position(|f| f.ty == FieldType::Struct(*by_struct))
            {
                Prefix::Own { field: i }
            } else {
                Prefix::Enclosed
            }
        }
    }
}

/// A structure whose fields all sit at constant offsets and are plain scalars or fixed byte
/// runs of its first version.
fn is_simple(spec: &Spec, id: StructId) -> bool {
    let s = spec.structure(id);
    s.framing == Framing::Fixed
        && s.params.is_empty()
        && s.const_size().is_some()
        && s.fields.iter().all(|f| {
            f.const_offset().is_some()
                && f.presence == Presence::Always
                && f.since == s.since
                && matches!(
                    (&f.ty, &f.count),
                    (
                        FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_),
                        None
                    ) | (FieldType::Bytes, Some(Count::Const(_)))
                )
        })
}

/// The field through which `id` nests itself directly, when the levels form a chain a reader
/// can walk by arithmetic alone: the field is the structure's last and only one nesting it in
/// itself, a depth limit bounds the levels, and every other field is a scalar or a run of
/// scalars or bytes of the first version whose count is a constant, a param or an earlier
/// scalar, present by a condition on the structure's own scalars. Then where each field of a
/// level starts follows from the level's bytes and the params.
fn chain(spec: &Spec, id: StructId, components: &BTreeMap<Node, u32>) -> Option<Chain> {
    let s = spec.structure(id);
    let (levels, _) = s.depth_limit?;
    let here = components[&Node::Structure(id)];
    let last = s.fields.len().checked_sub(1)?;
    let next = &s.fields[last];
    let nests =
        |f: &Field| matches!(f.ty, FieldType::Struct(t) if components[&Node::Structure(t)] == here);
    let own_scalar = |c: &Condition| {
        let p = c.path();
        p.root == id
            && p.steps.len() == 1
            && matches!(
                s.fields[p.steps[0]].ty,
                FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_)
            )
    };
    let plain = |f: &Field| {
        let counted = match &f.count {
            None => matches!(
                f.ty,
                FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_)
            ),
            Some(Count::Const(_) | Count::Param(_) | Count::Field(_)) => {
                matches!(f.ty, FieldType::Prim(_) | FieldType::Bytes)
            }
            Some(Count::Rest) => false,
        };
        let present = match &f.presence {
            Presence::Always => true,
            Presence::If(c) => own_scalar(c),
        };
        counted && present && f.since == s.since
    };
    let relocatable = s.framing == Framing::Fixed
        && next.ty == FieldType::Struct(id)
        && next.count.is_none()
        && next.since == s.since
        && matches!(&next.presence, Presence::If(c) if own_scalar(c))
        && s.fields[..last].iter().all(|f| !nests(f) && plain(f));
    relocatable.then_some(Chain {
        field: last,
        levels,
    })
}

/// The nodes that hold a sequence of variable-size entries, or a structure nested in itself
/// other than through a chain of levels (kept behind a box), directly or through what they
/// contain. A chain's next level is found by arithmetic over the level's bytes.
fn not_copy(
    spec: &Spec,
    simple: &[bool],
    chains: &[Option<Chain>],
    dispatched: &[SpaceId],
    components: &BTreeMap<Node, u32>,
) -> Vec<Node> {
    let mut out: Vec<Node> = Vec::new();
    loop {
        let before = out.len();
        for (i, s) in spec.structures.iter().enumerate() {
            let n = Node::Structure(StructId(i as u32));
            if out.contains(&n) {
                continue;
            }
            let chained = chains[i].map(|c| c.field);
            let holds = s
                .fields
                .iter()
                .enumerate()
                .any(|(j, f)| match (&f.ty, &f.count) {
                    (FieldType::Struct(t), Some(_)) => !simple[t.index()],
                    (FieldType::Dispatch { .. }, Some(_)) => true,
                    (FieldType::Struct(_), None) if chained == Some(j) => false,
                    (FieldType::Struct(t), None) => {
                        components[&Node::Structure(*t)] == components[&n]
                            || out.contains(&Node::Structure(*t))
                    }
                    (FieldType::Dispatch { space, .. }, None) => {
                        out.contains(&Node::Dispatch(*space))
                    }
                    _ => false,
                });
            if holds {
                out.push(n);
            }
        }
        for &space in dispatched {
            let n = Node::Dispatch(space);
            if !out.contains(&n)
                && spec
                    .variants(space)
                    .iter()
                    .any(|v| out.contains(&Node::Structure(*v)))
            {
                out.push(n);
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

fn field_shapes(spec: &Spec, id: StructId, components: &BTreeMap<Node, u32>) -> Vec<FieldShape> {
    let s = spec.structure(id);
    let mut shapes: Vec<FieldShape> = s
        .fields
        .iter()
        .enumerate()
        .map(|(j, f)| {
            let scalar = matches!(
                f.ty,
                FieldType::Prim(_) | FieldType::Tag(_) | FieldType::Flags(_)
            ) && f.count.is_none();
            let appended = f.since > s.since;
            let conditional = f.presence != Presence::Always;
            FieldShape {
                scalar,
                appended,
                conditional,
                in_place: scalar && f.const_offset().is_some() && !conditional && !appended,
                gives_size_of: None,
                sized_by: sized_by(spec, id, j),
                recursive: matches!(f.ty, FieldType::Struct(t)
                    if t == id || components[&Node::Structure(t)] == components[&Node::Structure(id)]),
            }
        })
        .collect();
    for (j, f) in s.fields.iter().enumerate() {
        if let Some(Count::Field(i)) = f.count {
            shapes[i].gives_size_of = Some(j);
        }
        if let Some(sized) = shapes[j].sized_by {
            shapes[sized.field].gives_size_of = Some(j);
        }
    }
    shapes
}

/// For field `j` of `id` whose structure (or every variant) is length-prefixed by an earlier
/// field of `id`: that field, and the rule the prefix enforces.
fn sized_by(spec: &Spec, id: StructId, j: usize) -> Option<SizedBy> {
    let targets: Vec<StructId> = match &spec.structure(id).fields[j].ty {
        FieldType::Struct(t) => vec![*t],
        FieldType::Dispatch { space, .. } => spec.variants(*space),
        _ => return None,
    };
    let mut found = None;
    for t in targets {
        match &spec.structure(t).framing {
            Framing::LengthPrefixed {
                by_struct,
                by_field,
                rule,
            } if *by_struct == id && by_field.steps.len() == 1 && by_field.steps[0] < j => {
                found = Some((by_field.steps[0], *rule));
            }
            _ => return None,
        }
    }
    let (field, rule) = found?;
    // A dispatched field is bounded by the rule its space's variants share (`dispatch_bound`).
    let rule = match &spec.structure(id).fields[j].ty {
        FieldType::Dispatch { space, .. } => spec.dispatch_bound(*space)?,
        _ => rule,
    };
    Some(SizedBy { field, rule })
}

/// The params every variant of a space needs, in a stable order.
fn variant_params(spec: &Spec, variants: &[StructId]) -> Vec<String> {
    let mut params: Vec<String> = Vec::new();
    for v in variants {
        for p in &spec.structure(*v).params {
            if !params.contains(p) {
                params.push(p.clone());
            }
        }
    }
    params.sort();
    params
}

/// The name and structure of a struct field every variant starts with.
fn common_first_field(spec: &Spec, variants: &[StructId]) -> Option<(String, StructId)> {
    let first = spec.structure(*variants.first()?).fields.first()?;
    let FieldType::Struct(t) = first.ty else {
        return None;
    };
    variants
        .iter()
        .all(|v| {
            spec.structure(*v)
                .fields
                .first()
                .is_some_and(|f| f.name == first.name && f.ty == FieldType::Struct(t))
        })
        .then(|| (first.name.clone(), t))
}
