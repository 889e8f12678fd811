"""A float64 evaluation of MLC's q4f16_1 Llama of the 2026 corpus (llama-q4f16_1), with NumPy:
the logits of every step of reference/greedy.json on TVM's own tokens (teacher forcing). The
weights are dequantized as the module does, fl16((q - 7) * scale); everything else is float64.
It is the yardstick of test_fast_path_precision.py."""
import json

import numpy as np


def float64_logits(root):
    """requests x steps x vocab float64 logits of the model in folder `root`."""
    R = str(root)
    cfg = json.load(open(R + '/mlc/mlc-chat-config.json'))['model_config']
    idx = json.load(open(R + '/mlc/tensor-cache.json'))
    W = {}
    for shard in idx['records']:
        raw = open(R + '/mlc/' + shard['dataPath'], 'rb').read()
        for r in shard['records']:
            b = raw[r['byteOffset']:r['byteOffset'] + r['nbytes']]
            W[r['name']] = np.frombuffer(b, dtype=r['dtype']).reshape(r['shape'])
    def deq(name, K):
        q, s = W[name + '.q_weight'], W[name + '.q_scale'].astype(np.float32)
        n = q.shape[0]
        nib = ((q[:, :, None] >> (4 * np.arange(8, dtype=np.uint32))) & 15).reshape(n, -1)[:, :K]
        w = (nib.astype(np.float32) - 7) * np.repeat(s, 32, axis=1)[:, :K]
        return w.astype(np.float16).astype(np.float64)
    H, F, L = cfg['hidden_size'], cfg['intermediate_size'], cfg['num_hidden_layers']
    nh, nkv, hd = cfg['num_attention_heads'], cfg['num_key_value_heads'], cfg['head_dim']
    eps, theta = cfg['rms_norm_eps'], cfg['position_embedding_base']
    emb = deq('model.embed_tokens', H)
    layers = []
    for l in range(L):
        p = f'model.layers.{l}.'
        layers.append(dict(n1=W[p + 'input_layernorm.weight'].astype(np.float64),
                           qkv=deq(p + 'self_attn.qkv_proj', H), o=deq(p + 'self_attn.o_proj', H),
                           n2=W[p + 'post_attention_layernorm.weight'].astype(np.float64),
                           gu=deq(p + 'mlp.gate_up_proj', H), d=deq(p + 'mlp.down_proj', F)))
    norm = W['model.norm.weight'].astype(np.float64)
    head = deq('lm_head', H)
    def rms(x, w): return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w
    def rope(x, pos):  # x: [T, heads, hd]
        half = hd // 2
        inv = 1.0 / theta ** (np.arange(half) * 2.0 / hd)
        ang = pos[:, None] * inv[None, :]
        c, s = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
        c, s = np.concatenate([c, c], -1), np.concatenate([s, s], -1)
        rot = np.concatenate([-x[..., half:], x[..., :half]], -1)
        return x * c + rot * s
    def forward(ids):
        T = len(ids); pos = np.arange(T, dtype=np.float64)
        x = emb[ids]
        for ly in layers:
            h = rms(x, ly['n1']) @ ly['qkv'].T
            q = h[:, :nh * hd].reshape(T, nh, hd); k = h[:, nh * hd:(nh + nkv) * hd].reshape(T, nkv, hd)
            v = h[:, (nh + nkv) * hd:].reshape(T, nkv, hd)
            q, k = rope(q, pos), rope(k, pos)
            g = nh // nkv
            out = np.zeros((T, nh, hd))
            for hh in range(nh):
                sc = q[:, hh] @ k[:, hh // g].T / np.sqrt(hd)
                sc = np.where(np.tril(np.ones((T, T))) > 0, sc, -np.inf)
                pr = np.exp(sc - sc.max(-1, keepdims=True)); pr /= pr.sum(-1, keepdims=True)
                out[:, hh] = pr @ v[:, hh // g]
            x = x + out.reshape(T, -1) @ ly['o'].T
            gu = rms(x, ly['n2']) @ ly['gu'].T
            gate, up = gu[:, :F], gu[:, F:]
            x = x + (gate / (1 + np.exp(-gate)) * up) @ ly['d'].T
        return rms(x, norm) @ head.T

    g = json.load(open(R + '/reference/greedy.json'))
    ref = np.load(R + '/reference/logits.npy')
    out = np.full(ref.shape, np.nan)
    for qi, r in enumerate(g['requests']):
        ids = list(r['prompt_ids'])
        for s, t in enumerate(r['tokens']):
            out[qi, s] = forward(np.array(ids))[-1]
            ids.append(t)
    return out
