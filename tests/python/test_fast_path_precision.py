"""The fast path (runtime/kernels/contraction.h) on MLC's q4f16_1 Llama of the 2026 corpus:
its logits are far closer to a float64 evaluation of the model (mlc_llama_float64.py) than
TVM's own (float16 accumulators), and than the module's written arithmetic pipesplit runs with
PIPESPLIT_FAST_KERNELS=0; the distance from TVM's logits is TVM's float16 error."""
import json
import os

import numpy as np
import pytest

from mlc_llama_float64 import float64_logits


def _generate(cli, root, tmp, fast):
    g = json.loads((root / "reference" / "greedy.json").read_text())
    prompts = tmp / "prompts.json"
    prompts.write_text(json.dumps([r["prompt_ids"] for r in g["requests"]]))
    out, logits = tmp / f"out{fast}.json", tmp / f"logits{fast}.npy"
    env = dict(os.environ, PIPESPLIT_FAST_KERNELS=str(fast))
    cli("generate", root / "cpu-pp1" / "debug-phase5.py", "--params", root / "mlc", "--prompts",
        prompts, "--max-new-tokens", 16, "--temperature", 0, "--dump-logits", logits, "-o", out,
        env=env)
    return json.loads(out.read_text()), np.load(logits), g


def _distance(g, out, logits, other):
    """The largest difference over the steps both runs share (up to the first token that
    differs from TVM's)."""
    worst = 0.0
    for q, r in enumerate(g["requests"]):
        got = out["requests"][q]["tokens"]
        for s, token in enumerate(got):
            worst = max(worst, float(np.abs(logits[q, s] - other[q, s]).max()))
            if token != r["tokens"][s]:
                break
    return worst


def test_fast_path_is_closer_to_float64_than_tvm(cli, corpus, tmp_path):
    root = corpus / "mlc-llm-2026" / "llama-q4f16_1"
    if not (root / "mlc").is_dir():
        pytest.skip("llama-q4f16_1 not in the corpus")
    exact = float64_logits(root)
    tvm = np.load(root / "reference" / "logits.npy")
    fast_out, fast, g = _generate(cli, root, tmp_path, 1)
    written_out, written, _ = _generate(cli, root, tmp_path, 0)
    fast_error = _distance(g, fast_out, fast, exact)
    written_error = _distance(g, written_out, written, exact)
    tvm_error = _distance(g, fast_out, tvm, exact)
    # Measured: 0.013 against 0.093 (TVM) and 0.105 (written).
    assert fast_error < tvm_error / 3
    assert fast_error < written_error / 3
    assert _distance(g, fast_out, fast, tvm) < 0.1
