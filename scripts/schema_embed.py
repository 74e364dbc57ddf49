#!/usr/bin/env python3
"""Turns a tool's <name>.schema.json into C the server is built with.

Usage: schema_embed.py NAME.schema.json OUT.c OUT.h OUT.d

The file holds {"input": <JSON Schema>, "output": <JSON Schema>} ("output"
optional). A "$ref" to another file ("pointer.defs.json#/$defs/scale",
relative to the file that refers to it) is replaced by what it points at,
with the keywords beside the "$ref" added on top (so a shared coordinate can
take its own "description"). Within a fragment file "#/$defs/x" means that
file; in the tool's own file "#/..." refs are kept as they are. The
C file defines tool_<name>_input_schema[] (and _output_schema[]) as compact
JSON text, which the server parses once at start-up; OUT.d lists the files
read, so editing a shared fragment rebuilds the tools that use it.

Only the Python standard library: meson itself runs on python3.
"""
import json
import os
import re
import sys

MAX_DEPTH = 16  # fragments may use fragments; a cycle is an error, not a hang


def fail(path, message):
    sys.exit(f"{path}: {message}")


def load(path, cache):
    if path not in cache:
        try:
            with open(path, encoding="utf-8") as f:
                cache[path] = json.load(f)
        except (OSError, ValueError) as e:
            fail(path, f"cannot read JSON: {e}")
    return cache[path]


def pointer(doc, ptr, where):
    """The value at a JSON pointer ("/$defs/scale") in doc."""
    if ptr in ("", "/"):
        return doc
    node = doc
    for part in ptr.lstrip("/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            fail(where, f'"$ref": nothing at "#{ptr}"')
    return node


def resolve(node, path, cache, in_fragment=False, depth=0):
    """node, read from the file at path, with its refs to other files
    replaced. Within a fragment file, "#/..." refs mean that file."""
    if depth > MAX_DEPTH:
        fail(path, '"$ref" nested too deeply (a cycle?)')
    if isinstance(node, list):
        return [resolve(v, path, cache, in_fragment, depth) for v in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and (in_fragment or not ref.startswith("#")):
        file_part, _, ptr = ref.partition("#")
        target_path = path
        if file_part:
            target_path = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
        target = pointer(load(target_path, cache), ptr, path)
        out = resolve(target, target_path, cache, True, depth + 1)
        if not isinstance(out, dict):
            fail(path, f'"$ref": "{ref}" is not an object')
        out = dict(out)
        for k, v in node.items():
            if k != "$ref":
                out[k] = resolve(v, path, cache, in_fragment, depth)
        return out
    return {k: resolve(v, path, cache, in_fragment, depth) for k, v in node.items()}


def c_bytes(text):
    """A char array initialiser: no escaping to get wrong, and no limit on
    the length of a string literal (-Woverlength-strings under -pedantic)."""
    data = text.encode("ascii") + b"\0"
    lines = []
    for i in range(0, len(data), 16):
        lines.append("    " + ", ".join(f"0x{b:02x}" for b in data[i : i + 16]) + ",")
    return "{\n" + "\n".join(lines) + "\n}"


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    src, out_c, out_h, out_d = sys.argv[1:]
    cache = {}
    doc = load(src, cache)
    if not isinstance(doc, dict) or not isinstance(doc.get("input"), dict):
        fail(src, 'expected {"input": {...}, "output": {...}}')
    extra = set(doc) - {"input", "output"}
    if extra:
        fail(src, f"unknown key(s) {sorted(extra)}: only input and output")
    name = re.sub(r"[^A-Za-z0-9_]", "_", os.path.basename(src).split(".")[0])
    header = os.path.basename(out_h)

    h = [f"/* Generated from {os.path.basename(src)} by scripts/schema_embed.py. */", "#pragma once"]
    c = [f"/* Generated from {os.path.basename(src)} by scripts/schema_embed.py. */",
         f'#include "{header}"', ""]
    for which in ("input", "output"):
        if which not in doc:
            continue
        schema = resolve(doc[which], src, cache)
        if not isinstance(schema, dict):
            fail(src, f'"{which}" must be an object')
        # ASCII only (\uXXXX escapes): the bytes fit a char on every compiler.
        text = json.dumps(schema, separators=(",", ":"), ensure_ascii=True)
        sym = f"tool_{name}_{which}_schema"
        h.append(f"extern const char {sym}[];")
        c.append(f"const char {sym}[] = {c_bytes(text)};")

    for path, lines in ((out_h, h), (out_c, c)):
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    with open(out_d, "w", encoding="utf-8") as f:
        deps = " ".join(p.replace(" ", "\\ ") for p in sorted(cache))
        f.write(f"{out_c} {out_h}: {deps}\n")


if __name__ == "__main__":
    main()
