#!/usr/bin/python3
"""NumPy + OpenBLAS reference for the single-group forward of the example Llama.

The same math as the module `pipesplit example llama` generates (src/models/llama.cc)
and BM_ForwardSingleGroup/1 runs (bench/runtime_bench.cc): 8 layers, hidden 512, 8 heads,
ffn 2048, vocab 1024, seq 128, float32, op for op (rms_norm, matmul, reshape, permute_dims,
strided_slice, negative, concat, multiply, add, softmax, silu). Weights are random (only the
time is compared). Run it with OpenBLAS on one thread, as the runtime's default:

  OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/numpy_forward.py [--iters N] [--profile]

Prints the median wall and process CPU time of a forward; --profile also prints the CPU time per
op, like the runtime's PIPESPLIT_OP_PROFILE=1 table. NumPy is not a project dependency: this
script is only the reference the runtime's speed is measured against.
"""
import argparse
import collections
import time

import numpy as np

LAYERS, HIDDEN, HEADS, FFN, VOCAB, SEQ = 8, 512, 8, 2048, 1024, 128
EPS = np.float32(1e-5)

PROFILE = collections.defaultdict(lambda: [0, 0.0])
PROFILING = False


def op(name, fn, *args):
    if not PROFILING:
        return fn(*args)
    start = time.thread_time()
    out = fn(*args)
    entry = PROFILE[name]
    entry[0] += 1
    entry[1] += time.thread_time() - start
    return out


def rms_norm(x, w):
    ss = np.mean(x * x, axis=-1, keepdims=True)
    return x * (np.float32(1) / np.sqrt(ss + EPS)) * w


def softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def silu(x):
    return x * (np.float32(1) / (np.float32(1) + np.exp(-x)))


def contiguous_permute(x, axes):
    # relax.permute_dims materializes its result, as the runtime's kernel does.
    return np.ascontiguousarray(np.transpose(x, axes))


def make_weights(rng):
    def uniform(shape, fan_in):
        scale = 1.0 / np.sqrt(fan_in)
        return rng.uniform(-scale, scale, size=shape).astype(np.float32)

    def norm():
        return (1.0 + 0.1 * rng.uniform(-1, 1, size=(HIDDEN,))).astype(np.float32)

    d = HIDDEN // HEADS
    pos = np.arange(SEQ)[:, None]
    freq = 10000.0 ** (-2.0 * (np.arange(d) % (d // 2)) / d)
    w = {
        "embed": uniform((VOCAB, HIDDEN), HIDDEN),
        "cos": np.cos(pos * freq).astype(np.float32).reshape(1, 1, SEQ, d),
        "sin": np.sin(pos * freq).astype(np.float32).reshape(1, 1, SEQ, d),
        "final_norm": norm(),
        "lm_head": uniform((HIDDEN, VOCAB), HIDDEN),
        "layers": [],
    }
    for _ in range(LAYERS):
        w["layers"].append({
            "attn_norm": norm(), "wq": uniform((HIDDEN, HIDDEN), HIDDEN),
            "wk": uniform((HIDDEN, HIDDEN), HIDDEN), "wv": uniform((HIDDEN, HIDDEN), HIDDEN),
            "wo": uniform((HIDDEN, HIDDEN), HIDDEN), "mlp_norm": norm(),
            "w_gate": uniform((HIDDEN, FFN), HIDDEN), "w_up": uniform((HIDDEN, FFN), HIDDEN),
            "w_down": uniform((FFN, HIDDEN), FFN),
        })
    return w


def forward(w, input_ids):
    d = HIDDEN // HEADS
    ids = input_ids.reshape(SEQ)
    x = op("take", lambda: np.take(w["embed"], ids, axis=0)).reshape(1, SEQ, HIDDEN)
    mask = op("full+triu", lambda: np.triu(np.full((SEQ, SEQ), -1e9, np.float32), 1))
    scale = np.float32(1.0 / np.sqrt(d))
    for lw in w["layers"]:
        an = op("rms_norm", rms_norm, x, lw["attn_norm"])
        heads = {}
        for name in ("q", "k", "v"):
            y = op("matmul", np.matmul, an, lw["w" + name])
            heads[name] = op("permute_dims", contiguous_permute,
                             y.reshape(1, SEQ, HEADS, d), (0, 2, 1, 3))
        for name in ("q", "k"):
            t = heads[name]
            a = op("strided_slice", lambda: np.ascontiguousarray(t[..., : d // 2]))
            b = op("strided_slice", lambda: np.ascontiguousarray(t[..., d // 2:]))
            nb = op("negative", np.negative, b)
            rh = op("concat", lambda: np.concatenate((nb, a), axis=-1))
            c = op("multiply", np.multiply, t, w["cos"])
            s = op("multiply", np.multiply, rh, w["sin"])
            heads[name] = op("add", np.add, c, s)
        kt = op("permute_dims", contiguous_permute, heads["k"], (0, 1, 3, 2))
        sc = op("matmul", np.matmul, heads["q"], kt)
        ss = op("multiply", np.multiply, sc, scale)
        sm = op("add", np.add, ss, mask)
        pr = op("softmax", softmax, sm)
        o = op("matmul", np.matmul, pr, heads["v"])
        ot = op("permute_dims", contiguous_permute, o, (0, 2, 1, 3))
        ao = op("matmul", np.matmul, ot.reshape(1, SEQ, HIDDEN), lw["wo"])
        h1 = op("add", np.add, x, ao)
        mn = op("rms_norm", rms_norm, h1, lw["mlp_norm"])
        g = op("matmul", np.matmul, mn, lw["w_gate"])
        gs = op("silu", silu, g)
        u = op("matmul", np.matmul, mn, lw["w_up"])
        gu = op("multiply", np.multiply, gs, u)
        dn = op("matmul", np.matmul, gu, lw["w_down"])
        x = op("add", np.add, h1, dn)
    hn = op("rms_norm", rms_norm, x, w["final_norm"])
    return op("matmul", np.matmul, hn, w["lm_head"])


def main():
    global PROFILING
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--profile", action="store_true", help="CPU time per op")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    w = make_weights(rng)
    input_ids = rng.integers(0, VOCAB, size=(1, SEQ)).astype(np.int32)
    forward(w, input_ids)  # warm-up
    walls, cpus = [], []
    for _ in range(args.iters):
        wall, cpu = time.perf_counter(), time.process_time()
        forward(w, input_ids)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    print(f"numpy forward: median wall {1e3 * np.median(walls):.1f} ms, "
          f"median process cpu {1e3 * np.median(cpus):.1f} ms over {args.iters} runs")
    if args.profile:
        PROFILING = True
        forward(w, input_ids)  # warm-up of the profiled path
        PROFILE.clear()
        for _ in range(args.iters):
            forward(w, input_ids)
        total = sum(t for _, t in PROFILE.values())
        print(f"{'op':<16} {'calls':>6} {'ms/forward':>11} {'%':>6}")
        for name, (calls, t) in sorted(PROFILE.items(), key=lambda kv: -kv[1][1]):
            print(f"{name:<16} {calls // args.iters:>6} {1e3 * t / args.iters:>11.2f} "
                  f"{100 * t / total:>6.1f}")
        print(f"{'total':<16} {'':>6} {1e3 * total / args.iters:>11.2f}")


if __name__ == "__main__":
    main()
