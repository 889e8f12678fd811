#!/usr/bin/env python3
"""NumPy reference of the paged KV cache for kv_cache_scenario_main.cc's recorded scenario.

usage: kv_cache_reference.py SCENARIO.json

Replays the recorded operations on an independent model of the cache semantics
(shared/spec/mlc-serving.md, section 3): a dict seq_id -> per-layer lists of (rotated k, v)
rows, in float64 and without pages. Fork copies the prefix, popn truncates, remove deletes.
Every forward's attention is recomputed from its recorded fused qkv input (rows
[q heads | k heads | v heads]; NeoX rotate-half RoPE on q and k at position = the sequence's
length before the step + i; causal attention over the sequence's tokens up to the query
position; GQA q head h reads kv head h // (h_q / h_kv)) and compared with the recorded C++
output (max abs diff <= 1e-5). Sequence lengths, page counts and the "kv cache is full" error
are checked too. Exit 0 on success, 1 on a mismatch, 77 when numpy is missing.
"""
import json
import math
import sys

try:
    import numpy as np
except ImportError:
    print("numpy is missing: skipped")
    sys.exit(77)

TOLERANCE = 1e-5


class Mismatch(Exception):
    pass


def rope(x, positions, theta, scale):
    """NeoX rotate-half of x [n, heads, d] at positions [n], rotary dim = d (spec 3.5)."""
    d = x.shape[-1]
    idx = np.arange(d)
    # f = pos * scale / theta^((2i mod d) / d) for each dim i.
    freq = (positions[:, None] * scale) / np.power(theta, (2 * idx % d) / d)[None, :]
    cos, sin = np.cos(freq)[:, None, :], np.sin(freq)[:, None, :]
    rotated = np.concatenate([-x[..., d // 2:], x[..., :d // 2]], axis=-1)
    return cos * x + sin * rotated


class Cache:
    """One cache: seq_id -> per layer a list of (k_rotated [h_kv, d], v [h_kv, d]) rows."""

    def __init__(self, config, num_pages):
        self.c = config
        self.num_pages = num_pages
        self.seqs = {}

    def length(self, seq):
        return len(self.seqs[seq][0])

    def add(self, seq):
        if seq in self.seqs:
            raise Mismatch("add of existing sequence %d" % seq)
        self.seqs[seq] = [[] for _ in range(self.c["num_layers"])]

    def remove(self, seq):
        del self.seqs[seq]

    def fork(self, parent, child, pos):
        rows = self.seqs[parent]
        if pos == -1:
            pos = len(rows[0])
        self.seqs[child] = [list(layer[:pos]) for layer in rows]

    def popn(self, seq, n):
        rows = self.seqs[seq]
        keep = len(rows[0]) - n
        self.seqs[seq] = [layer[:keep] for layer in rows]

    def forward(self, op):
        """Attention of every recorded layer; returns the worst (diff, where) of the step."""
        c = self.c
        hq, hkv, d = c["num_qo_heads"], c["num_kv_heads"], c["head_dim"]
        group = hq // hkv
        ids, lengths = op["seq_ids"], op["append_lengths"]
        tokens = sum(lengths)
        starts = [self.length(s) for s in ids]
        worst = (0.0, None)
        for layer_op in op["layers"]:
            layer = layer_op["layer"]
            qkv = np.array(layer_op["qkv"], dtype=np.float64).reshape(-1, hq + 2 * hkv, d)
            if qkv.shape[0] != tokens + op["padding"]:
                raise Mismatch("qkv of layer %d has %d rows, expected %d"
                               % (layer, qkv.shape[0], tokens + op["padding"]))
            got = np.array(layer_op["out"], dtype=np.float64).reshape(tokens, hq, d)
            want = np.zeros((tokens, hq, d))
            row = 0
            for seq, start, n in zip(ids, starts, lengths):
                x = qkv[row:row + n]
                positions = np.arange(start, start + n, dtype=np.float64)
                q = rope(x[:, :hq], positions, c["rope_theta"], c["rope_scale"])
                k = rope(x[:, hq:hq + hkv], positions, c["rope_theta"], c["rope_scale"])
                v = x[:, hq + hkv:]
                cached = self.seqs[seq][layer]
                if len(cached) != start:
                    raise Mismatch("sequence %d layer %d holds %d rows before the step, not %d"
                                   % (seq, layer, len(cached), start))
                cached.extend(zip(k, v))
                keys = np.stack([kv[0] for kv in cached])  # [start + n, h_kv, d]
                values = np.stack([kv[1] for kv in cached])
                for i in range(n):
                    pos = start + i
                    for h in range(hq):
                        g = h // group
                        scores = keys[:pos + 1, g] @ q[i, h] * op["sm_scale"]
                        w = np.exp(scores - scores.max())
                        want[row + i, h] = (w / w.sum()) @ values[:pos + 1, g]
                row += n
            diff = np.abs(got - want)
            at = np.unravel_index(np.argmax(diff), diff.shape)
            if diff[at] >= worst[0]:
                worst = (float(diff[at]), "layer %d token %d head %d dim %d: got %.9g, want %.9g"
                         % (layer, at[0], at[1], at[2], got[at], want[at]))
        return worst


def replay(scenario):
    config = scenario["config"]
    page = config["page_size"]
    caches = {}
    worst = (0.0, "no forward")
    forwards = 0
    full_error = None
    prev_pages = {}
    for number, op in enumerate(scenario["ops"]):
        name, kind = op["cache"], op["op"]
        expected_pages = None
        where = "op %d (%s on cache %s)" % (number, kind, name)
        cache = caches.get(name)
        pages_before = prev_pages.get(name)
        if kind == "create":
            cache = caches[name] = Cache(config, op["num_pages"])
            if op["available_pages_after"] != op["num_pages"]:
                raise Mismatch("%s: a new cache has %d of %d pages available"
                               % (where, op["available_pages_after"], op["num_pages"]))
        elif kind == "add":
            cache.add(op["seq"])
            expected_pages = pages_before
        elif kind == "remove":
            length = cache.length(op["seq"])
            cache.remove(op["seq"])
            # The scenario only removes unshared sequences: all their pages come back.
            expected_pages = pages_before + math.ceil(length / page)
        elif kind == "fork":
            cache.fork(op["parent"], op["child"], op["pos"])
            # Full pages are shared, a partial page is copied.
            expected_pages = pages_before - (1 if op["pos"] % page else 0)
        elif kind == "popn":
            length = cache.length(op["seq"])
            cache.popn(op["seq"], op["n"])
            # The scenario only pops unshared sequences: emptied pages are freed.
            expected_pages = pages_before + (math.ceil(length / page)
                                             - math.ceil((length - op["n"]) / page))
        elif kind == "forward":
            new_pages = 0
            for seq, n in zip(op["seq_ids"], op["append_lengths"]):
                start = cache.length(seq)
                # Pages the sequence needs beyond the ceil(start / page) it holds (its last
                # page is its own unless page aligned, spec 3.2).
                new_pages += max(0, math.ceil((start + n) / page) - math.ceil(start / page))
            step = cache.forward(op)
            forwards += 1
            if step[0] >= worst[0]:
                worst = (step[0], "%s: %s" % (where, step[1]))
            if step[0] > TOLERANCE:
                raise Mismatch("%s: attention differs by %.3g > %g at %s"
                               % (where, step[0], TOLERANCE, step[1]))
            expected_pages = pages_before - new_pages
        elif kind == "begin_forward_error":
            if not op["raised"]:
                raise Mismatch("%s: BeginForward of %s + %s on a full cache raised nothing"
                               % (where, op["seq_ids"], op["append_lengths"]))
            if "kv cache is full" not in op["message"]:
                raise Mismatch("%s: unexpected error message: %r" % (where, op["message"]))
            if op["in_forward"]:
                raise Mismatch("%s: the cache is still in a forward after the error" % where)
            full_error = op["message"]
            expected_pages = pages_before  # all or none: nothing reserved
        else:
            raise Mismatch("%s: unknown operation" % where)
        # Bookkeeping after the operation: lengths, total length, available pages.
        want_lengths = {str(s): cache.length(s) for s in cache.seqs}
        if op["lengths_after"] != want_lengths:
            raise Mismatch("%s: sequence lengths %s, expected %s"
                           % (where, op["lengths_after"], want_lengths))
        if op["total_length_after"] != sum(want_lengths.values()):
            raise Mismatch("%s: total length %d, expected %d"
                           % (where, op["total_length_after"], sum(want_lengths.values())))
        if kind != "create" and expected_pages is not None and \
                op["available_pages_after"] != expected_pages:
            raise Mismatch("%s: %d pages available, expected %d"
                           % (where, op["available_pages_after"], expected_pages))
        prev_pages[name] = op["available_pages_after"]
    if full_error is None:
        raise Mismatch("the scenario recorded no 'kv cache is full' error")
    return forwards, worst, full_error


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        scenario = json.load(f)
    try:
        forwards, worst, full_error = replay(scenario)
    except Mismatch as e:
        print("MISMATCH: %s" % e)
        return 1
    print("%d operations, %d forwards match the NumPy reference; max abs diff %.3g (%s)"
          % (len(scenario["ops"]), forwards, worst[0], worst[1]))
    print("full cache error: %s" % full_error)
    return 0


if __name__ == "__main__":
    sys.exit(main())
