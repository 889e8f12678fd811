#!/usr/bin/env python3
"""ShardSingleDim against NumPy: MLC's fused qkv and gate_up weights (segments) and o / down
(no segments), float32 and float16, cut by pipesplit_shard_slices and by an independent NumPy
transcription of MLC's shard kernels (each segment's rows reshaped to (shards, seg, ...), moved
to the front and concatenated along the segment axis; shard k is row k of the result).
usage: shard_reference.py SHARD_SLICES_BINARY WORK_DIR   (exit 77 without numpy)"""
import json
import os
import struct
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    sys.exit(77)

DTYPES = {np.float32: "F32", np.float16: "F16"}


def write(path, tensors, metadata):
    header, offset, blobs = {"__metadata__": metadata}, 0, []
    for name, array in tensors.items():
        blob = np.ascontiguousarray(array).tobytes()
        header[name] = {"dtype": DTYPES[array.dtype.type], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def read(path):
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype = {"F32": np.float32, "F16": np.float16}[entry["dtype"]]
        begin, end = entry["data_offsets"]
        out[name] = np.frombuffer(data[8 + n + begin:8 + n + end], dtype).reshape(entry["shape"])
    return out


def mlc_shards(w, dim, segs, shards):
    """MLC's ShardSingleDim kernel in NumPy: the (shards, *shard_shape) tensor it writes."""
    segs = segs or [w.shape[dim] // shards]
    parts, offset = [], 0
    for seg in segs:
        piece = np.take(w, range(offset, offset + seg * shards), axis=dim)
        shape = list(w.shape[:dim]) + [shards, seg] + list(w.shape[dim + 1:])
        piece = piece.reshape(shape)
        order = [dim] + list(range(dim)) + list(range(dim + 1, len(shape)))
        parts.append(np.transpose(piece, order))
        offset += seg * shards
    return np.concatenate(parts, axis=1 + dim)


def main():
    binary, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(34)
    hd, heads, kv, hidden, ffn = 4, 8, 4, 12, 20
    cases = {}  # name: (array, dim, segs, shards)
    for shards in (2, 4):
        q, k = heads // shards * hd, kv // shards * hd
        i = ffn // shards
        cases[f"qkv{shards}"] = (rng.standard_normal(((heads + 2 * kv) * hd, hidden)), 0,
                                 [q, k, k], shards)
        cases[f"gate_up{shards}"] = (rng.standard_normal((2 * ffn, hidden)), 0, [i, i], shards)
        cases[f"o{shards}"] = (rng.standard_normal((hidden, heads * hd)), 1, None, shards)
        cases[f"down{shards}"] = (rng.standard_normal((hidden, ffn)), 1, None, shards)
        # A 3-d expert weight cut along its middle dim with segments (Mixtral's e1_e3).
        cases[f"experts{shards}"] = (rng.standard_normal((3, 2 * ffn, 5)), 1, [i, i], shards)
    tensors, metadata = {}, {}
    for name, (array, dim, segs, shards) in cases.items():
        dtype = np.float16 if name.startswith("gate_up") else np.float32
        tensors[name] = array.astype(dtype)
        metadata[name] = f"{dim};{','.join(map(str, segs or []))};{shards}"
    write(f"{work}/full.safetensors", tensors, metadata)
    subprocess.run([binary, f"{work}/full.safetensors", f"{work}/shards.safetensors"], check=True)
    got = read(f"{work}/shards.safetensors")
    failures = 0
    for name, (_, dim, segs, shards) in cases.items():
        want = mlc_shards(tensors[name], dim, segs, shards)
        for k in range(shards):
            if got[f"{name}.{k}"].shape != want[k].shape or not np.array_equal(
                    got[f"{name}.{k}"], want[k]):
                print(f"{name} shard {k}: differs from NumPy")
                failures += 1
    print(f"{len(cases)} weights, every shard {'equal' if not failures else 'NOT equal'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
