"""Read Hurray vectors with the Python parser Kaitai Struct generates from docs/kaitai/hurray.ksy
and compare every field with what the Rust runtime decodes (`hurray decode --json`).

The parsed object is turned into a tree keyed by the spec's field names (the description's
`seq` ids, `-orig-id` where an id had to differ), then into the JSON contract's shape (the
mirror of hurray-runtime/src/contract.rs), and compared key by key with the runtime's JSON:
the `.json` checked in beside each corpus vector, or `hurray decode --json` for a shared
conformance vector. What only the runtime computes (warnings, composites, dereferenceability,
defaulted fields) is left out of the comparison; everything read from the bytes is compared.

Every vector the runtime accepts must be read, and read the same; a difference fails the
run. The rejecting vectors are also read, and how many of them the Kaitai reader rejects too
is reported (the others break rules only the runtime's semantic layer checks).

A captured session of the interchange protocol (`--session`: every message of
tests/message/vectors.toml a strict reader accepts, back to back) is read message by message
with the description's `interchange_message` type and compared with `hurray decode --as
session --json`, message by message, field by field.

Usage: python3 compare.py --parser DIR --hurray BIN [--corpus DIR] [--shared DIR] [--reject DIR]
       [--session VECTORS.toml]
"""

import argparse
import importlib
import json
import os
import subprocess
import sys
from enum import IntEnum


def camel(type_id):
    """The Python class name Kaitai gives a type id (`buffer_handle` -> `BufferHandle`)."""
    return "".join(part[:1].upper() + part[1:] for part in type_id.split("_"))


class Tag:
    """A tag value read through its enum: the number and, when allocated, the name (a value
    the enum does not list, such as a private one, is read as a plain integer)."""

    def __init__(self, value):
        self.value = int(value)
        self.name = value.name if isinstance(value, IntEnum) else None


def tagged(value):
    """A field read through an enum as `Tag`s."""
    if isinstance(value, list):
        return [tagged(v) for v in value]
    return None if value is None else Tag(value)


class Node(dict):
    """A parsed structure: its fields by spec name, and the type it was read as."""

    def __init__(self, type_id):
        super().__init__()
        self.type_id = type_id
        self.skipped = b""


class Reader:
    """The generated parser and its description."""

    def __init__(self, parser_dir):
        sys.path.insert(0, parser_dir)
        with open(os.path.join(parser_dir, "hurray.ksy.json"), encoding="utf-8") as f:
            self.ksy = json.load(f)
        module = importlib.import_module(self.ksy["meta"]["id"])
        self.root_class = getattr(module, camel(self.ksy["meta"]["id"]))
        self.types = self.ksy["types"]
        self.by_class = {camel(t): t for t in self.types}

    def parse(self, data):
        """The top level: (kind, tree) of the entry point the magic chose."""
        top = self.root_class.from_bytes(data)
        for entry in self.ksy["seq"]:
            value = getattr(top, entry["id"], None)
            if value is not None:
                return entry["id"], self.tree(value)
        raise ValueError("no entry point matched")

    def tree(self, value):
        """A parsed value as plain data: structures as `Node`s by spec name, flag sets as
        their integer, byte strings as lowercase hex (tags are wrapped by the caller, which
        knows the field is read through an enum)."""
        if isinstance(value, list):
            return [self.tree(v) for v in value]
        if isinstance(value, bytes):
            return value.hex()
        if not hasattr(value, "_io"):
            return value
        type_id = self.by_class[type(value).__name__]
        spec = self.types[type_id]
        if spec.get("-hurray-flags"):
            return getattr(value, spec["seq"][0]["id"])
        node = Node(type_id)
        seq = spec.get("seq", [])
        # A field that gives a later one's size or count is derived from it: the runtime's
        # value tree leaves it out (the owned form computes it when encoding).
        sizes = {e.get("size") for e in seq} | {e.get("repeat-expr") for e in seq}
        for entry in seq:
            # Derived lengths, and the check of a nesting level (which reads nothing).
            if entry["id"] in sizes or entry.get("-hurray-nesting"):
                continue
            field = getattr(value, entry["id"], None)
            if entry.get("-hurray-skipped"):
                node.skipped = field or b""
                continue
            name = entry.get("-orig-id", entry["id"])
            node[name] = tagged(field) if "enum" in entry else self.tree(field)
        # Structures found through an offset (a section, a descriptor): user-typed instances.
        for name, inst in spec.get("instances", {}).items():
            ty = inst.get("type")
            if isinstance(ty, str) and ty.split("(")[0] in self.types and "pos" in inst:
                node[name] = self.tree(getattr(value, name))
        return node


def plain(v):
    """Tags as their numbers, reserved fields (a leading underscore) left out."""
    if isinstance(v, Tag):
        return v.value
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items() if not k.startswith("_")}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


def skipped(node, path, out):
    """Every non-empty unread rest of a length-prefixed structure, by path."""
    if isinstance(node, Node):
        if node.skipped:
            out.append((path, node.skipped.hex()))
        for k, v in node.items():
            skipped(v, f"{path}.{k}" if path else k, out)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            skipped(v, f"{path}[{i}]", out)
    return out


def descriptor_contract(d):
    """The contract shape of a descriptor (hurray_runtime::contract::descriptor_value): the
    fixed header's fields lifted to the top with the element type and layout named, the
    buffer handles as `buffers`, the quantization payload flattened."""
    out = {"kind": "descriptor"}
    for key, value in d.items():
        if key == "fixed_header":
            for hk, hv in value.items():
                if hk == "magic":
                    continue
                out[hk] = hv
                if hk == "type_tag":
                    out["element_type"] = hv.name
                elif hk == "layout_tag":
                    out["layout"] = hv.name
        elif key == "buffer_table":
            out["buffers"] = value["buffers"]
        elif key == "quantization":
            out[key] = None if value is None else quantization_contract(value)
        else:
            out[key] = value
    return out


def quantization_contract(q):
    """The quantization section flattened: the scheme tag and name, the header's other
    fields, then the payload's."""
    payload = q["payload"]
    header = payload["header"]
    out = {"scheme_tag": header["scheme_tag"].value, "scheme": header["scheme_tag"].name}
    for key, value in payload.items():
        if key == "header":
            out.update({hk: hv for hk, hv in value.items() if hk != "scheme_tag"})
        else:
            out[key] = value
    return out


def kv_contract(value):
    """A KV value as plain data: an array's elements, a bool as a boolean, otherwise the
    payload's `value` field."""
    if "elements" in value:
        return [kv_contract(e) for e in value["elements"]]
    if value.type_id == "kv_bool":
        return value["value"] != 0
    return value["value"]


def kv_entry_contract(e):
    """A KV entry as the contract shows it: an array also names its elements' tag."""
    out = {"key": e["key"], "value_tag": e["value_tag"]}
    if "elements" in e["value"]:
        out["element_tag"] = e["value"]["element_tag"]
    out["value"] = kv_contract(e["value"])
    return out


def file_contract(f, size):
    """The contract shape of a file (hurray_runtime::contract::file_value), with the
    corpus's `placement` object."""
    header = f["file_header"]
    trailer = f["trailer"]
    index = trailer["index_section"]
    kv = trailer["kv_section"]
    out = {"kind": "file"}
    out.update({k: v for k, v in header.items() if k != "magic"})
    out["tensors"] = [
        {
            "name": e["name"],
            "descriptor_offset": e["descriptor_offset"],
            "descriptor_length": e["descriptor_length"],
            "data_offset": e["data_offset"],
            "data_length": e["data_length"],
            "descriptor": descriptor_contract(e["descriptor"]),
        }
        for e in index["entries"]
    ]
    out["kv"] = [kv_entry_contract(e) for e in (kv["entries"] if kv is not None else [])]
    out["placement"] = {
        "kv_offset": trailer["kv_offset"],
        "kv_length": trailer["kv_length"],
        "index_offset": trailer["index_offset"],
        "index_length": trailer["index_length"],
        "file_size": size,
    }
    return out


# What only the runtime computes, not read from the bytes: left out of the comparison.
RUNTIME_ONLY = {"warnings", "composites", "dereferenceable", "evolution"}


def without_runtime_only(v):
    if isinstance(v, dict):
        return {k: without_runtime_only(x) for k, x in v.items() if k not in RUNTIME_ONLY}
    if isinstance(v, list):
        return [without_runtime_only(x) for x in v]
    return v


def differences(want, got, path=""):
    """Every place two plain trees differ, as `path: want != got` lines."""
    if isinstance(want, dict) and isinstance(got, dict):
        out = []
        for k in want.keys() | got.keys():
            p = f"{path}.{k}" if path else k
            if k not in got:
                out.append(f"{p}: missing in the Kaitai reading (runtime: {want[k]!r})")
            elif k not in want:
                out.append(f"{p}: not in the runtime's JSON (Kaitai: {got[k]!r})")
            else:
                out += differences(want[k], got[k], p)
        return out
    if isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            return [f"{path}: {len(want)} item(s) in the runtime's JSON, {len(got)} read by Kaitai"]
        out = []
        for i, (w, g) in enumerate(zip(want, got)):
            out += differences(w, g, f"{path}[{i}]")
        return out
    same = want == got and type(want) is type(got) or (
        isinstance(want, (int, float)) and isinstance(got, (int, float)) and not isinstance(want, bool)
        and not isinstance(got, bool) and want == got
    )
    return [] if same else [f"{path}: runtime {want!r} != Kaitai {got!r}"]


def compare(reader, data, expected):
    """The differences between the Kaitai reading of `data` and the runtime's JSON."""
    kind, tree = reader.parse(data)
    shaped = descriptor_contract(tree) if expected.get("kind") == "descriptor" else file_contract(tree, len(data))
    want = without_runtime_only(expected)
    if "placement" not in want:
        shaped.pop("placement", None)
    diffs = differences(want, plain(shaped))
    runtime_skipped = [s["bytes"] for s in expected.get("evolution", {}).get("skipped", [])]
    kaitai_skipped = [b for _, b in skipped(tree, "", [])]
    if sorted(runtime_skipped) != sorted(kaitai_skipped):
        diffs.append(f"skipped bytes (CD2): runtime {runtime_skipped}, Kaitai {kaitai_skipped}")
    if expected.get("kind") != kind:
        diffs.append(f"kind: runtime {expected.get('kind')}, Kaitai read a {kind}")
    return diffs


def session_bytes(vectors_toml, shared):
    """The messages of tests/message/vectors.toml a strict reader accepts (`reads`, not
    permissive, no reader limit), back to back; `{descriptor}` is the reference's 61-byte
    descriptor (conformance/stream/descriptors/row_major_3__0_f32_3x4.bin)."""
    import tomllib

    with open(vectors_toml, "rb") as f:
        rows = tomllib.load(f)["message"]
    fill = {"descriptor": read(os.path.join(shared, "stream", "descriptors", "row_major_3__0_f32_3x4.bin"))}
    out = bytearray()
    for row in rows:
        if "reads" not in row or row.get("permissive") or "max_payload" in row:
            continue
        parts = row["bytes"].split()
        if any(p.startswith("{") and p.strip("{}") not in fill for p in parts):
            continue
        for part in parts:
            out += fill[part.strip("{}")] if part.startswith("{") else bytes([int(part, 16)])
    return bytes(out)


def compare_session(reader, data, decoded):
    """The differences between the Kaitai reading of a session, message by message, and the
    runtime's value trees (`hurray decode --as session --json`)."""
    from kaitaistruct import KaitaiStream
    import io

    stream = KaitaiStream(io.BytesIO(data))
    message = getattr(reader.root_class, camel("interchange_message"))
    diffs = []
    for k, m in enumerate(decoded["messages"]):
        try:
            tree = reader.tree(message(stream))
        except Exception as e:  # the generated parser rejects what the runtime accepts
            return diffs + [f"#{k}: the Kaitai reader rejects it: {type(e).__name__}: {e}"]
        got = plain(tree)
        want = dict(m["message"])
        # Bytes a newer version's fields fill, skipped (CD2, RES-55): compared as bytes.
        runtime_skipped = [x["bytes"] for x in want.pop("evolution", {}).get("skipped", [])]
        kaitai_skipped = [b for _, b in skipped(tree, "", [])]
        if sorted(runtime_skipped) != sorted(kaitai_skipped):
            diffs.append(f"#{k}: skipped bytes (CD2): runtime {runtime_skipped}, Kaitai {kaitai_skipped}")
        # A payload with no structure (TENSOR_DATA_END, TENSOR_PUT_ACK, RDMA_READY) is an
        # empty object in the value tree and the empty byte string Kaitai reads.
        if want.get("payload") == {} and got.get("payload") == "":
            got["payload"] = {}
        diffs += differences(want, got, f"#{k}")
    if not stream.is_eof():
        diffs.append(f"the Kaitai reading ends at byte {stream.pos()}, the session at {len(data)}")
    return diffs


def read(path):
    with open(path, "rb") as f:
        return f.read()


def vectors(directory, extensions):
    return sorted(
        os.path.join(directory, n) for n in os.listdir(directory) if os.path.splitext(n)[1] in extensions
    )


def report_rejects(reader, directory, rules_json):
    """How many rejecting vectors the Kaitai reader rejects too, by what enforces the rule
    each one breaks; and which vectors of rules the tables state it reads anyway."""
    with open(os.path.join(directory, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    enforcer = {}
    if rules_json:
        with open(rules_json, encoding="utf-8") as f:
            enforcer = {e["id"]: (e["enforced_by"] or ["nothing"])[0] for e in json.load(f)["entries"]}
    counts = {}
    read_anyway = []
    for name, entry in sorted(manifest.items()):
        try:
            reader.parse(read(os.path.join(directory, name)))
            rejected = False
        except Exception:
            rejected = True
        by = enforcer.get(entry["rule"], "?")
        total, caught = counts.get(by, (0, 0))
        counts[by] = (total + 1, caught + rejected)
        if not rejected and by in ("table check", "structural parse"):
            read_anyway.append(f"{name} ({entry['rule']})")
    total = sum(t for t, _ in counts.values())
    caught = sum(c for _, c in counts.values())
    print(
        f"kaitai: the Kaitai reader also rejects {caught} of {total} rejecting vector(s): "
        + ", ".join(f"{c} of {t} broken {by} rules" for by, (t, c) in sorted(counts.items()))
    )
    if read_anyway:
        print(
            "kaitai: read anyway (an agreement, placement or version rule the description cannot state): "
            + ", ".join(read_anyway)
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parser", required=True, help="the directory compile.js wrote")
    ap.add_argument("--hurray", required=True, help="the `hurray` binary (decode --json)")
    ap.add_argument("--corpus", help="valid vectors with their .json (tests/corpus/valid)")
    ap.add_argument("--shared", help="the shared conformance vectors (with manifest.json)")
    ap.add_argument("--reject", help="rejecting vectors, read for a report (tests/corpus/reject)")
    ap.add_argument("--rules", help="`hurray-spec rules --json`, to break the report down by enforcer")
    ap.add_argument("--session", help="tests/message/vectors.toml: its accepted messages as one captured session")
    args = ap.parse_args()
    reader = Reader(args.parser)

    failures = []
    compared = 0

    def check(path, expected):
        nonlocal compared
        compared += 1
        try:
            diffs = compare(reader, read(path), expected)
        except Exception as e:  # the generated parser rejects what the runtime accepts
            diffs = [f"the Kaitai reader rejects it: {type(e).__name__}: {e}"]
        if diffs:
            failures.append((path, diffs))

    if args.corpus:
        for path in vectors(args.corpus, {".bin", ".hrry"}):
            with open(os.path.splitext(path)[0] + ".json", encoding="utf-8") as f:
                check(path, json.load(f))
    runtime_rejects = []
    if args.shared:
        with open(os.path.join(args.shared, "manifest.json"), encoding="utf-8") as f:
            manifest = json.load(f)
        files = [e["file"] for group in manifest.values() if isinstance(group, list) for e in group if "file" in e]
        for name in files:
            path = os.path.join(args.shared, name)
            run = subprocess.run([args.hurray, "decode", "--json", path], capture_output=True)
            if run.returncode == 0:
                decoded = json.loads(run.stdout)
                # The CLI adds each buffer's data reference (for `encode`); the contract's
                # fields are the rest.
                for t in decoded.get("tensors", []):
                    t.pop("data", None)
                check(path, decoded)
            else:
                runtime_rejects.append((path, run.stderr.decode(errors="replace").strip()))

    if args.session:
        data = session_bytes(args.session, args.shared)
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"hurray-kaitai-session-{os.getpid()}.bin")
        with open(path, "wb") as f:
            f.write(data)
        run = subprocess.run([args.hurray, "decode", "--as", "session", "--json", path], capture_output=True)
        os.remove(path)
        compared += 1
        if run.returncode != 0:
            failures.append((args.session, [f"the runtime rejects the session: {run.stderr.decode(errors='replace')}"]))
        else:
            decoded = json.loads(run.stdout)
            diffs = compare_session(reader, data, decoded)
            if diffs:
                failures.append((args.session, diffs))
            else:
                print(f"kaitai: a captured session of {len(decoded['messages'])} message(s), {len(data)} bytes, read the same message by message")

    for path, diffs in failures:
        print(f"FAIL {path}")
        for d in diffs[:20]:
            print(f"  {d}")
    print(f"kaitai: {compared - len(failures)} of {compared} accepted vector(s) read the same by the Kaitai-generated reader")
    for path, why in runtime_rejects:
        print(f"kaitai: {path}: rejected by the runtime ({why}), not compared")

    if args.reject:
        report_rejects(reader, args.reject, args.rules)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
