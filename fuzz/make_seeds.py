#!/usr/bin/env python3
"""Builds the seed corpora of the fuzz targets (run by `make fuzz`, into the build folder).

Usage: make_seeds.py <source-dir> <out-dir>
  <out>/fuzz_parser, fuzz_roundtrip, fuzz_rewrite: the TVMScript files of the tests and of
      ../shared/corpus (those under 16 KiB: small seeds keep the targets fast);
  <out>/fuzz_tir: every @T.prim_func of those files, dedented (the target indents it back);
  <out>/fuzz_safetensors: small valid files of every dtype, with and without metadata;
  <out>/fuzz_wire: header messages of the MPI transport (src/runtime/dist/transport_wire.h);
  <out>/fuzz_json_index: the JSON files of ../shared/corpus's MLC folders (indexes, configs)
      under 16 KiB and a few hand-made texts (escapes, a byte order mark, nesting).
"""
import hashlib
import json
import pathlib
import struct
import sys

MAX_SEED = 16 << 10


def write(directory, data):
    if isinstance(data, str):
        data = data.encode()
    directory.mkdir(parents=True, exist_ok=True)
    (directory / hashlib.sha1(data).hexdigest()).write_bytes(data)


def prim_funcs(text):
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        stripped = lines[i].lstrip()
        if not stripped.startswith("@T.prim_func"):
            i += 1
            continue
        indent = len(lines[i]) - len(stripped)
        block = [lines[i]]
        i += 1
        while i < len(lines) and not block[-1].lstrip().startswith("def "):
            block.append(lines[i])  # further decorators, then the def line
            i += 1
        while i < len(lines):
            line = lines[i]
            body = line.lstrip()
            if body and len(line) - len(body) <= indent and not body.startswith(")"):
                break
            block.append(line)
            i += 1
        yield "\n".join(l[indent:] for l in block).rstrip() + "\n"


def safetensors(tensors, metadata=None):
    header = {}
    data = b""
    for name, (dtype, shape, payload) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(payload)]}
        data += payload
    if metadata is not None:
        header["__metadata__"] = metadata
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def wire_message(seq, code, bits, shape, payload):
    nbytes = len(payload)
    words = [0x7073706c6974, seq, code, bits, 1, len(shape), nbytes] + list(shape)
    return struct.pack("<%dq" % len(words), *words) + payload


def main():
    src, out = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2])
    scripts = list((src / "tests").rglob("*.py"))
    corpus = src.parent / "shared" / "corpus"
    if corpus.is_dir():
        scripts += list(corpus.rglob("*.py"))
    count = 0
    for path in scripts:
        text = path.read_text(errors="replace")
        for func in prim_funcs(text):
            if len(func) <= MAX_SEED:
                write(out / "fuzz_tir", func)
        if len(text.encode()) > MAX_SEED:
            continue
        count += 1
        for target in ("fuzz_parser", "fuzz_roundtrip", "fuzz_rewrite"):
            write(out / target, text)
    st = out / "fuzz_safetensors"
    write(st, safetensors({}))
    write(st, safetensors({"w": ("F32", [2, 3], bytes(24))}, {"format": "pt"}))
    write(st, safetensors({"a": ("F16", [4], bytes(8)), "b": ("I64", [1], bytes(8)),
                           "c": ("BOOL", [3], b"\x01\x00\x01"), "e": ("BF16", [0], b"")},
                          {"packed_params": json.dumps(["a", "b", "c"])}))
    write(st, safetensors({"x": ("U8", [2, 2], b"abcd"), "y": ("F8_E4M3", [2], b"\x10\x20")}))
    wire = out / "fuzz_wire"
    write(wire, wire_message(0, 2, 32, [2, 3], bytes(24)))  # float32[2, 3]
    write(wire, wire_message(7, 0, 64, [], bytes(8)))  # int64 scalar
    write(wire, wire_message(1, 2, 16, [0, 4], b""))  # empty float16
    write(wire, wire_message(3, 4, 1, [5], b"\x01" * 5))  # bool[5]
    js = out / "fuzz_json_index"
    write(js, '{"records": [{"name": "a\\"b\\\\c/~d", "shape": [2, 3], "x": -1.5e-3}], "e": {}}')
    write(js, '\ufeff[true, false, null, [], [[]], {"": {"~": "\\u00e9"}}]  ')
    write(js, '{"k": 1, "k": [2, 3]}')
    if corpus.is_dir():
        for path in sorted(corpus.rglob("*.json")):
            if path.stat().st_size <= MAX_SEED:
                write(js, path.read_bytes())
    print("seeds: %d scripts, %d prim_funcs" % (count, len(list((out / "fuzz_tir").iterdir()))))


if __name__ == "__main__":
    main()
