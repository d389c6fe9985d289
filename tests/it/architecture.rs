//! The workspace's architecture, checked from its sources: the module graph of every crate
//! (with the runtime's generated code in place of its `include!`) has no cycle, no spec
//! space or structure name is written as a string literal in code — the code reaches the
//! spec's vocabulary through the model's roles and the generated types — and no `_` arm of
//! the hand-written runtime chooses a rule (which rule a tag's violation breaks is table data).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::common::root;
use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// A module path inside one crate (`["amend", "rules"]`; the crate root is `[]`).
type ModPath = Vec<String>;

/// One module: where it is written, its tokens, and what it declares.
struct Module {
    /// The file the module lives in (an inline module shares its parent's).
    file: PathBuf,
    tokens: TokenStream,
    /// Whether the tokens are generated code rather than a source file.
    generated: bool,
    /// `pub use` re-exports: name → the path it stands for (relative to this module).
    reexports: BTreeMap<String, Vec<String>>,
}

/// Every module of one crate.
struct Crate {
    name: String,
    modules: BTreeMap<ModPath, Module>,
}

fn parse(text: &str, file: &Path) -> TokenStream {
    TokenStream::from_str(text).unwrap_or_else(|e| panic!("{}: {e:?}", file.display()))
}

/// The runtime's generated code, as its build script writes it.
fn generated_runtime() -> TokenStream {
    let loaded = hurray_codegen::load(&root().join("spec")).expect("spec/ reads");
    let spec = loaded.clean().expect("spec/ is clean");
    let code = hurray_codegen::emit::rust::runtime(spec);
    parse(&code, Path::new("hurray_generated.rs"))
}

fn ident(t: &TokenTree) -> Option<String> {
    match t {
        TokenTree::Ident(i) => Some(i.to_string()),
        _ => None,
    }
}

fn punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

/// `::` at `i`.
fn path_sep(ts: &[TokenTree], i: usize) -> bool {
    punct(ts.get(i), ':') && punct(ts.get(i + 1), ':')
}

/// The string value of a `#[path = "…"]` attribute ending just before `i`.
fn path_attribute(ts: &[TokenTree], i: usize) -> Option<String> {
    let j = i.checked_sub(1)?;
    let TokenTree::Group(g) = &ts[j] else {
        return None;
    };
    if g.delimiter() != Delimiter::Bracket || !punct(ts.get(j.checked_sub(1)?), '#') {
        return None;
    }
    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
    match inner.as_slice() {
        [
            TokenTree::Ident(p),
            TokenTree::Punct(eq),
            TokenTree::Literal(l),
        ] if p == "path" && eq.as_char() == '=' => {
            Some(l.to_string().trim_matches('"').to_string())
        }
        _ => None,
    }
}

/// Load the module tree of a crate from its root file.
fn load_crate(name: &str, root_file: &Path) -> Crate {
    let mut c = Crate {
        name: name.to_string(),
        modules: BTreeMap::new(),
    };
    let text = std::fs::read_to_string(root_file).unwrap();
    let dir = root_file.parent().unwrap().to_path_buf();
    add_module(
        &mut c,
        Vec::new(),
        root_file,
        &dir,
        parse(&text, root_file),
        false,
    );
    c
}

/// Register a module and, recursively, the modules it declares. `dir` is where its child
/// files live.
fn add_module(
    c: &mut Crate,
    path: ModPath,
    file: &Path,
    dir: &Path,
    tokens: TokenStream,
    generated: bool,
) {
    let ts: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let mut i = 0;
    while i < ts.len() {
        if ident(&ts[i]).as_deref() == Some("mod")
            && let Some(name) = ts.get(i + 1).and_then(ident)
        {
            let mut child = path.clone();
            child.push(name.clone());
            match ts.get(i + 2) {
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                    let body = g.stream();
                    let text = body.to_string();
                    if text.contains("include !") && text.contains("OUT_DIR") {
                        add_module(c, child, file, &dir.join(&name), generated_runtime(), true);
                    } else {
                        add_module(c, child, file, &dir.join(&name), body, generated);
                    }
                }
                _ if punct(ts.get(i + 2), ';') => {
                    let (child_file, child_dir) = match path_attribute(&ts, i) {
                        Some(p) => {
                            let f = dir.join(p);
                            let d = f.parent().unwrap().to_path_buf();
                            (f, d)
                        }
                        None if dir.join(format!("{name}.rs")).is_file() => {
                            (dir.join(format!("{name}.rs")), dir.join(&name))
                        }
                        None => (dir.join(&name).join("mod.rs"), dir.join(&name)),
                    };
                    let text = std::fs::read_to_string(&child_file)
                        .unwrap_or_else(|e| panic!("{}: {e}", child_file.display()));
                    let tokens = parse(&text, &child_file);
                    add_module(c, child, &child_file, &child_dir, tokens, false);
                }
                _ => {}
            }
            i += 2;
            continue;
        }
        i += 1;
    }
    let mut reexports = BTreeMap::new();
    collect_reexports(&ts, &mut reexports);
    c.modules.insert(
        path,
        Module {
            file: file.to_path_buf(),
            tokens,
            generated,
            reexports,
        },
    );
}

/// Every path a use tree names, as segment lists (`a::{b, c::d}` → `a::b`, `a::c::d`), with
/// the name each binds.
fn use_tree(ts: &[TokenTree], prefix: &[String], out: &mut Vec<(Vec<String>, String)>) {
    let mut path = prefix.to_vec();
    let mut i = 0;
    while i < ts.len() {
        match &ts[i] {
            TokenTree::Ident(id) if id == "as" => {
                if let Some(alias) = ts.get(i + 1).and_then(ident) {
                    out.push((path.clone(), alias));
                }
                path = prefix.to_vec();
                i += 2;
                continue;
            }
            TokenTree::Ident(id) => path.push(id.to_string()),
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                for part in inner.split(|t| punct(Some(t), ',')) {
                    use_tree(part, &path, out);
                }
                path = prefix.to_vec();
            }
            TokenTree::Punct(p) if p.as_char() == '*' => {
                out.push((path.clone(), "*".to_string()));
                path = prefix.to_vec();
            }
            TokenTree::Punct(p) if p.as_char() == ',' => {
                if path.len() > prefix.len() {
                    let name = path.last().cloned().unwrap_or_default();
                    out.push((path.clone(), name));
                }
                path = prefix.to_vec();
            }
            _ => {}
        }
        i += 1;
    }
    if path.len() > prefix.len() {
        let name = path.last().cloned().unwrap_or_default();
        out.push((path, name));
    }
}

/// The `use` statements of a token list (not of nested modules): `(is pub, tree tokens)`.
fn uses(ts: &[TokenTree]) -> Vec<(bool, Vec<TokenTree>)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < ts.len() {
        if ident(&ts[i]).as_deref() == Some("use") {
            let public = i >= 1 && ident(&ts[i - 1]).as_deref() == Some("pub")
                || i >= 2
                    && matches!(&ts[i - 1], TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis)
                    && ident(&ts[i - 2]).as_deref() == Some("pub");
            let end = (i..ts.len())
                .find(|&j| punct(ts.get(j), ';'))
                .unwrap_or(ts.len());
            out.push((public, ts[i + 1..end].to_vec()));
            i = end;
        }
        i += 1;
    }
    out
}

fn collect_reexports(ts: &[TokenTree], out: &mut BTreeMap<String, Vec<String>>) {
    for (public, tree) in uses(ts) {
        if !public {
            continue;
        }
        let mut paths = Vec::new();
        use_tree(&tree, &[], &mut paths);
        for (path, name) in paths {
            if name != "*" {
                out.insert(name, path);
            }
        }
    }
}

impl Crate {
    /// Resolve a path written in module `at` to the module that defines what it names,
    /// following re-exports. `None` for paths outside the crate.
    fn resolve(&self, at: &ModPath, path: &[String], depth: u32) -> Option<ModPath> {
        if depth > 16 {
            return None;
        }
        let first = path.first()?;
        let (mut base, rest): (ModPath, &[String]) = match first.as_str() {
            "crate" => (Vec::new(), &path[1..]),
            "self" => (at.clone(), &path[1..]),
            "super" => {
                let mut b = at.clone();
                let mut k = 0;
                while path.get(k).map(String::as_str) == Some("super") {
                    b.pop();
                    k += 1;
                }
                (b, &path[k..])
            }
            name => {
                let mut child = at.clone();
                child.push(name.to_string());
                if !self.modules.contains_key(&child) {
                    return None; // an extern crate, a local item, or a prelude name
                }
                (at.clone(), path)
            }
        };
        for (k, seg) in rest.iter().enumerate() {
            let mut next = base.clone();
            next.push(seg.clone());
            if self.modules.contains_key(&next) {
                base = next;
                continue;
            }
            // An item of `base`: follow it if `base` re-exports it.
            if let Some(target) = self.modules.get(&base).and_then(|m| m.reexports.get(seg)) {
                let mut full = target.clone();
                full.extend(rest[k + 1..].iter().cloned());
                return self.resolve(&base, &full, depth + 1).or(Some(base));
            }
            break;
        }
        Some(base)
    }

    /// The modules module `at` refers to (through `use` and through paths in code).
    fn references(&self, at: &ModPath) -> BTreeSet<ModPath> {
        let m = &self.modules[at];
        let ts: Vec<TokenTree> = m.tokens.clone().into_iter().collect();
        let mut out = BTreeSet::new();
        self.scan(at, &ts, &mut out);
        out.remove(at);
        out
    }

    fn scan(&self, at: &ModPath, ts: &[TokenTree], out: &mut BTreeSet<ModPath>) {
        let mut i = 0;
        while i < ts.len() {
            match &ts[i] {
                // A nested module is a node of its own.
                TokenTree::Ident(id)
                    if id == "mod" && matches!(ts.get(i + 2), Some(TokenTree::Group(_))) =>
                {
                    i += 3;
                    continue;
                }
                TokenTree::Ident(id) if id == "use" => {
                    let end = (i..ts.len())
                        .find(|&j| punct(ts.get(j), ';'))
                        .unwrap_or(ts.len());
                    let mut paths = Vec::new();
                    use_tree(&ts[i + 1..end], &[], &mut paths);
                    for (p, _) in paths {
                        if let Some(target) = self.resolve(at, &p, 0) {
                            out.insert(target);
                        }
                    }
                    i = end + 1;
                    continue;
                }
                TokenTree::Ident(id) if path_sep(ts, i + 1) && !path_sep(ts, i.wrapping_sub(2)) => {
                    let mut path = vec![id.to_string()];
                    let mut j = i + 1;
                    while path_sep(ts, j) {
                        match ts.get(j + 2).and_then(ident) {
                            Some(seg) => path.push(seg),
                            None => break,
                        }
                        j += 3;
                    }
                    if let Some(target) = self.resolve(at, &path, 0) {
                        out.insert(target);
                    }
                    i = j;
                    continue;
                }
                // Paths inside `quote!` belong to the code being generated.
                TokenTree::Ident(id) if id == "quote" && punct(ts.get(i + 1), '!') => {
                    i += 3;
                    continue;
                }
                TokenTree::Group(g) => {
                    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                    self.scan(at, &inner, out);
                }
                _ => {}
            }
            i += 1;
        }
    }
}

/// A module with the file it is written in (or `generated`).
fn place(c: &Crate, p: &ModPath) -> String {
    let m = &c.modules[p];
    let file = if m.generated {
        "generated".to_string()
    } else {
        m.file
            .strip_prefix(root())
            .unwrap_or(&m.file)
            .display()
            .to_string()
    };
    format!("{} ({file})", show(p))
}

fn show(p: &ModPath) -> String {
    if p.is_empty() {
        "crate".to_string()
    } else {
        p.join("::")
    }
}

/// The workspace's crates (test fixtures under `tests/` aside), each from its root files.
/// Every hand-written source file of `c` not in `seen` (an inline module shares its
/// parent's file): its path from the root, its path, and its text.
fn hand_written_files(c: &Crate, seen: &mut BTreeSet<PathBuf>) -> Vec<(String, PathBuf, String)> {
    let mut out = Vec::new();
    for m in c.modules.values().filter(|m| !m.generated) {
        if !seen.insert(m.file.clone()) {
            continue;
        }
        let rel = m
            .file
            .strip_prefix(root())
            .unwrap_or(&m.file)
            .display()
            .to_string();
        let text = std::fs::read_to_string(&m.file).unwrap();
        out.push((rel, m.file.clone(), text));
    }
    out
}

fn crates() -> Vec<Crate> {
    let manifest: toml::Table =
        toml::from_str(&std::fs::read_to_string(root().join("Cargo.toml")).unwrap()).unwrap();
    let members = manifest["workspace"]["members"].as_array().unwrap();
    let mut out = Vec::new();
    for m in members.iter().filter_map(|m| m.as_str()) {
        if m.starts_with("tests/") {
            continue;
        }
        for root_file in ["src/lib.rs", "src/main.rs"] {
            let f = root().join(m).join(root_file);
            if f.is_file() {
                out.push(load_crate(&format!("{m}/{root_file}"), &f));
            }
        }
    }
    out
}

/// The strongly connected components of more than one module (Tarjan).
fn cycles(graph: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    struct State<'g> {
        graph: &'g BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'g ModPath, usize>,
        low: BTreeMap<&'g ModPath, usize>,
        stack: Vec<&'g ModPath>,
        on_stack: BTreeSet<&'g ModPath>,
        out: Vec<Vec<ModPath>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g ModPath) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in &s.graph[v] {
            let Some((w, _)) = s.graph.get_key_value(w) else {
                continue;
            };
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.clone());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_module_imports_its_way_back_to_itself() {
    let mut found = Vec::new();
    for c in crates() {
        let graph: BTreeMap<ModPath, BTreeSet<ModPath>> = c
            .modules
            .keys()
            .map(|m| (m.clone(), c.references(m)))
            .collect();
        if std::env::var_os("SHOW_GRAPH").is_some() {
            for (a, bs) in &graph {
                eprintln!(
                    "{} {} -> {:?}",
                    c.name,
                    show(a),
                    bs.iter().map(show).collect::<Vec<_>>()
                );
            }
        }
        for component in cycles(&graph) {
            let edges: Vec<String> = component
                .iter()
                .flat_map(|a| {
                    graph[a]
                        .iter()
                        .filter(|b| component.contains(b))
                        .map(|b| format!("{} → {}", place(&c, a), show(b)))
                })
                .collect();
            found.push(format!("{}: {}", c.name, edges.join(", ")));
        }
    }
    assert!(
        found.is_empty(),
        "module cycles (each line: the edges inside one cycle):\n{}",
        found.join("\n")
    );
}
/// String literals that equal a spec name without naming the spec's item: the keys of the JSON
/// contract (`shared/conformance/manifest.json`'s shape, which `decode --json` prints), whose
/// words the conformance vectors fix, not the spec tables; keys of a decoded value tree, which
/// are the names of the descriptor's fields (`to_value`) that share their structure's name;
/// the word of an axis style (`axis.style = "scheme"` in spec.toml), not the tag space; and
/// the key of the placement's `trailer` attribute in a release record's reader facts.
const OTHER_VOCABULARIES: &[(&str, &str)] = &[
    ("hurray-codegen/src/amend/readers.rs", "trailer"),
    ("hurray-runtime/src/contract.rs", "buffer_table"),
    ("hurray-runtime/src/contract.rs", "fixed_header"),
    ("hurray-runtime/src/contract.rs", "descriptor"),
    ("hurray-runtime/src/contract.rs", "element_type"),
    ("hurray-runtime/src/contract.rs", "layout"),
    ("hurray-runtime/src/contract.rs", "scheme"),
    ("hurray-runtime/src/json.rs", "descriptor"),
    ("hurray-cli/src/cli/encode.rs", "descriptor"),
    ("hurray-cli/src/cli/stream.rs", "descriptor"),
    ("hurray-cli/src/cli/summary.rs", "element_type"),
    ("hurray-cli/src/cli/summary.rs", "layout"),
    ("hurray-version/src/lib.rs", "scheme"),
];

fn literals(ts: TokenStream, out: &mut Vec<String>) {
    for t in ts {
        match t {
            TokenTree::Literal(l) => {
                let s = l.to_string();
                if let Some(v) = s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
                    out.push(v.to_string());
                }
            }
            TokenTree::Group(g) => literals(g.stream(), out),
            _ => {}
        }
    }
}

#[test]
fn no_spec_space_or_structure_name_is_a_string_literal_in_code() {
    let loaded = hurray_codegen::load(&root().join("spec")).unwrap();
    let spec = loaded.clean().expect("spec/ is clean");
    let names: BTreeMap<&str, &str> = spec
        .spaces
        .iter()
        .map(|s| (s.name.as_str(), "tag space"))
        .chain(
            spec.structures
                .iter()
                .map(|s| (s.name.as_str(), "structure")),
        )
        .collect();
    let mut found = BTreeSet::new();
    let mut used = BTreeSet::new();
    let mut seen_files = BTreeSet::new();
    for c in crates() {
        for (rel, file, text) in hand_written_files(&c, &mut seen_files) {
            let mut lits = Vec::new();
            literals(parse(&text, &file), &mut lits);
            for lit in lits {
                let Some(kind) = names.get(lit.as_str()) else {
                    continue;
                };
                if OTHER_VOCABULARIES.contains(&(rel.as_str(), lit.as_str())) {
                    used.insert((rel.clone(), lit.clone()));
                    continue;
                }
                found.insert(format!("{rel}: \"{lit}\" names a {kind}"));
            }
        }
    }
    for (file, word) in OTHER_VOCABULARIES {
        assert!(
            used.contains(&(file.to_string(), word.to_string())),
            "OTHER_VOCABULARIES lists \"{word}\" in {file}, which no longer writes it: remove the entry"
        );
    }
    assert!(
        found.is_empty(),
        "spec names written as string literals; reach them through the model's roles or the \
         generated types instead:\n{}",
        found.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// Wildcard arms of the hand-written runtime that name a `Rule::` variant and choose no rule
/// by a tag: `(file, rule variant, why)`. Each must still be there (an entry nothing matches
/// fails, like `OTHER_VOCABULARIES`).
const WILDCARD_RULE_ARMS: &[(&str, &str, &str)] = &[(
    "hurray-runtime/src/migrate.rs",
    "S5",
    "`MigrateError::rule`: every refusal but the new major's writer's (which reports its own rule) follows S5; the match is over the error's kinds, not a tag space",
)];

/// The arms of a `match`'s brace group: `(pattern, body)` token lists.
fn match_arms(arms: &[TokenTree]) -> Vec<(Vec<TokenTree>, Vec<TokenTree>)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < arms.len() {
        let start = i;
        while i < arms.len() && !(punct(arms.get(i), '=') && punct(arms.get(i + 1), '>')) {
            i += 1;
        }
        if i >= arms.len() {
            break;
        }
        let pattern = arms[start..i].to_vec();
        i += 2;
        let body_start = i;
        match arms.get(i) {
            // A block body ends the arm, with or without a comma.
            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                i += 1;
                if punct(arms.get(i), ',') {
                    i += 1;
                }
                out.push((pattern, arms[body_start..body_start + 1].to_vec()));
            }
            _ => {
                while i < arms.len() && !punct(arms.get(i), ',') {
                    i += 1;
                }
                out.push((pattern, arms[body_start..i].to_vec()));
                i += 1;
            }
        }
    }
    out
}

/// The `Rule::<variant>`s the tokens name, at any depth.
fn rule_variants(ts: &[TokenTree], out: &mut Vec<String>) {
    for (i, t) in ts.iter().enumerate() {
        match t {
            TokenTree::Ident(r) if r == "Rule" && path_sep(ts, i + 1) => {
                if let Some(v) = ts.get(i + 3).and_then(ident) {
                    out.push(v);
                }
            }
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                rule_variants(&inner, out);
            }
            _ => {}
        }
    }
}

/// What the body of a `_` arm names: `Rule::` variants, and string literals that are field
/// names of the spec.
#[derive(Default)]
struct Chosen {
    rules: Vec<String>,
    fields: Vec<String>,
}

/// Every `match` arm in `ts` (at any depth) whose pattern is the wildcard `_`, with or without
/// a guard, and whose body names a `Rule::` variant or one of `fields` as a string literal.
fn wildcard_arms(ts: &[TokenTree], fields: &BTreeSet<&str>, out: &mut Vec<Chosen>) {
    for (i, t) in ts.iter().enumerate() {
        if let TokenTree::Group(g) = t {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            wildcard_arms(&inner, fields, out);
        }
        if ident(t).as_deref() != Some("match") {
            continue;
        }
        // The arms are the first brace group after `match` at its level.
        let Some(TokenTree::Group(arms)) = ts[i + 1..]
            .iter()
            .find(|t| matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace))
        else {
            continue;
        };
        let arms: Vec<TokenTree> = arms.stream().into_iter().collect();
        for (pattern, body) in match_arms(&arms) {
            let wildcard = match pattern.as_slice() {
                [TokenTree::Ident(u)] => u == "_",
                [TokenTree::Ident(u), TokenTree::Ident(k), ..] => u == "_" && k == "if",
                _ => false,
            };
            if !wildcard {
                continue;
            }
            let mut chosen = Chosen::default();
            rule_variants(&body, &mut chosen.rules);
            let mut lits = Vec::new();
            literals(body.iter().cloned().collect(), &mut lits);
            chosen.fields = lits
                .into_iter()
                .filter(|l| fields.contains(l.as_str()))
                .collect();
            if !chosen.rules.is_empty() || !chosen.fields.is_empty() {
                out.push(chosen);
            }
        }
    }
}

/// The line of a `_` arm that names `named` (`Rule::X`, `"field"`) in `text` (the first
/// whose pattern is at most five lines before it), for the message; token spans carry no
/// lines without proc-macro2's `span-locations`, which would build the test's dependencies
/// twice.
fn wildcard_line(text: &str, named: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let is_arm = |l: &str| {
        let l = l.trim_start();
        l.starts_with("_ =>") || l.starts_with("_ if ")
    };
    (0..lines.len())
        .find(|&i| lines[i].contains(named) && (i.saturating_sub(5)..=i).any(|j| is_arm(lines[j])))
        .or_else(|| lines.iter().position(|l| l.contains(named)))
        .map_or(0, |i| i + 1)
}

/// No fallback chooses a rule or a field: which rule a violation breaks under a tag (a layout,
/// a scheme, a composition rule) is the tag's table data, with the space's generic rule
/// stated once in its `[space.default]` (spec/README.md); hand-written runtime code takes it
/// from the generated accessors, so a new tag never inherits a rule silently through a `_ =>`
/// arm. Likewise no `_` arm names a field of the spec as a string (`_ => "values"`): which
/// field a tag uses is the tag's, reached through the generated views.
#[test]
fn no_wildcard_match_arm_of_the_runtime_chooses_a_rule() {
    let loaded = hurray_codegen::load(&root().join("spec")).unwrap();
    let spec = loaded.clean().expect("spec/ is clean");
    let fields: BTreeSet<&str> = spec
        .structures
        .iter()
        .flat_map(|s| s.fields.iter().map(|f| f.name.as_str()))
        .collect();
    let runtime = crates()
        .into_iter()
        .find(|c| c.name == "hurray-runtime/src/lib.rs")
        .expect("the runtime is a workspace member");
    let mut found = BTreeSet::new();
    let mut used = BTreeSet::new();
    let mut seen_files = BTreeSet::new();
    for (rel, file, text) in hand_written_files(&runtime, &mut seen_files) {
        let ts: Vec<TokenTree> = parse(&text, &file).into_iter().collect();
        let mut arms = Vec::new();
        wildcard_arms(&ts, &fields, &mut arms);
        for chosen in arms {
            for v in chosen.rules {
                let line = wildcard_line(&text, &format!("Rule::{v}"));
                if let Some((file, rule, _)) = WILDCARD_RULE_ARMS
                    .iter()
                    .find(|(file, rule, _)| *file == rel && *rule == v)
                {
                    used.insert((*file, *rule));
                    continue;
                }
                found.insert(format!("{rel}:{line}: a `_` arm chooses Rule::{v}"));
            }
            for f in chosen.fields {
                let line = wildcard_line(&text, &format!("\"{f}\""));
                found.insert(format!("{rel}:{line}: a `_` arm chooses the field \"{f}\""));
            }
        }
    }
    for (file, rule, _) in WILDCARD_RULE_ARMS {
        assert!(
            used.contains(&(*file, *rule)),
            "WILDCARD_RULE_ARMS lists Rule::{rule} in {file}, which no `_` arm names any more: remove the entry"
        );
    }
    assert!(
        found.is_empty(),
        "match arms of the hand-written runtime fall back to a rule or a field; state the rule \
         a tag breaks in its table (a tag attribute, and the space's generic rule in its \
         `[space.default]`, spec/README.md) and take it from the generated accessor, and reach \
         a field through the generated views:\n{}",
        found.into_iter().collect::<Vec<_>>().join("\n")
    );
}
