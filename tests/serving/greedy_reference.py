#!/usr/bin/env python3
"""Float64 NumPy reference of greedy generation with the serving example.

Reads the weights of `pipesplit example llama --serving` (a safetensors file parsed here: 8-byte
little-endian header length, JSON header, raw data), its `serving_config` metadata and
prompts.json, and generates --max-new-tokens tokens greedily for each request on its own: full
causal attention, NeoX rotate-half RoPE (theta from the config), GQA (query head h uses kv head
h // (h_q / h_kv)), RMSNorm, SwiGLU. Writes {"tokens": [[...]], "logits": [[[...]]]}: the new
token ids of each request and the logits of each step. Exits 77 without numpy.
"""

import argparse
import json
import os
import struct
import sys

try:
    import numpy as np
except ImportError:
    print("numpy is missing: skipped", file=sys.stderr)
    sys.exit(77)

DTYPES = {"F32": np.float32, "F64": np.float64, "F16": np.float16, "I32": np.int32,
          "I64": np.int64}


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length].decode("utf-8"))
    base = 8 + length
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        array = np.frombuffer(data[base + begin:base + end], dtype=DTYPES[entry["dtype"]])
        tensors[name] = array.reshape(entry["shape"]).astype(np.float64)
    return tensors, metadata


def rms_norm(x, weight, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def rope(x, positions, theta):
    """NeoX rotate-half on x (tokens, heads, d) at the given positions."""
    d = x.shape[-1]
    freq = positions[:, None] / theta ** (np.arange(d // 2) * 2.0 / d)[None, :]
    cos = np.cos(np.concatenate([freq, freq], axis=-1))[:, None, :]
    sin = np.sin(np.concatenate([freq, freq], axis=-1))[:, None, :]
    rotated = np.concatenate([-x[..., d // 2:], x[..., :d // 2]], axis=-1)
    return x * cos + rotated * sin


class Llama:
    def __init__(self, weights, config):
        self.w = weights
        self.c = config

    def forward(self, tokens):
        """Logits (V,) of the last token of `tokens` (the whole sequence, from position 0)."""
        c, w = self.c, self.w
        hq, hkv, d, eps = c["heads"], c["kv_heads"], c["head_dim"], float(c["rms_norm_eps"])
        n = len(tokens)
        positions = np.arange(n, dtype=np.float64)
        x = w["model.embed_tokens.weight"][np.array(tokens)]
        mask = np.tril(np.ones((n, n), dtype=bool))
        for layer in range(c["layers"]):
            p = "model.layers.%d." % layer
            qkv = rms_norm(x, w[p + "input_layernorm.weight"], eps) @ \
                w[p + "self_attn.qkv_proj.weight"].T
            qkv = qkv.reshape(n, hq + 2 * hkv, d)
            q = rope(qkv[:, :hq], positions, c["rope_theta"])
            k = rope(qkv[:, hq:hq + hkv], positions, c["rope_theta"])
            v = qkv[:, hq + hkv:]
            out = np.empty((n, hq, d))
            for h in range(hq):
                kv = h // (hq // hkv)
                scores = (q[:, h] @ k[:, kv].T) * d ** -0.5
                scores = np.where(mask, scores, -np.inf)
                scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
                out[:, h] = (scores / scores.sum(axis=-1, keepdims=True)) @ v[:, kv]
            x = x + out.reshape(n, hq * d) @ w[p + "self_attn.o_proj.weight"].T
            gate_up = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps) @ \
                w[p + "mlp.gate_up_proj.weight"].T
            gate, up = np.split(gate_up, 2, axis=-1)
            x = x + (gate / (1 + np.exp(-gate)) * up) @ w[p + "mlp.down_proj.weight"].T
        x = rms_norm(x, w["model.norm.weight"], eps)
        return x[-1] @ w["lm_head.weight"].T


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True,
                        help="the example's directory (params.safetensors, prompts.json)")
    parser.add_argument("--weights", help="weights file (default DIR/params.safetensors)")
    parser.add_argument("--max-new-tokens", type=int, default=4)
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    weights, metadata = read_safetensors(args.weights or
                                         os.path.join(args.dir, "params.safetensors"))
    config = json.loads(metadata["serving_config"])
    with open(os.path.join(args.dir, "prompts.json")) as f:
        prompts = json.load(f)
    model = Llama(weights, config)
    result = {"tokens": [], "logits": []}
    for prompt in prompts:
        tokens, new, steps = list(prompt), [], []
        for _ in range(args.max_new_tokens):
            logits = model.forward(tokens)
            new.append(int(np.argmax(logits)))
            steps.append([float(v) for v in logits])
            tokens.append(new[-1])
        result["tokens"].append(new)
        result["logits"].append(steps)
    with open(args.output, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
