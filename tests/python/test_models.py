"""pipesplit.models: the example Llama in each form as a module and NumPy data, equal to what the
CLI's `example llama` writes, and runnable: the high and lowered forms through pipesplit.run
(split on 2 groups bit-identical to unsplit), the serving forms through pipesplit.generate
(split on 2 groups with 2 batches in flight bit-identical to unsplit, and equal to the CLI's
generate)."""

import json

import numpy as np
import pytest

import pipesplit
from pipesplit import models, transform

SIZES = dict(layers=2, hidden=32, heads=4, ffn=64, vocab=64, stages=2)


def _assert_bit_identical(actual, expected):
    assert len(actual) == len(expected)
    for a, b in zip(actual, expected):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("form", ["high", "lowered"])
def test_high_and_lowered_forms_run_split_as_unsplit(form):
    model = models.llama(**SIZES, seq=8, form=form)
    assert model.form == form and model.prompts == [] and list(model.inputs) == ["input_ids"]
    assert ("R.call_tir" in model.module.script()) == (form == "lowered")
    assert next(iter(model.weights)) == "embed"
    unsplit = pipesplit.run(model.module, model.params, model.inputs, groups=1)
    assert unsplit[0].shape == (1, 8, 64)
    split = transform.PipelineParallelRewrite()(model.module)
    assert len(split.stages()) == 2
    _assert_bit_identical(pipesplit.run(split, model.params, model.inputs, groups=2), unsplit)


def test_high_form_equals_the_cli_files(cli, tmp_path):
    cli("example", "llama", *[f"--{k}={v}" for k, v in SIZES.items()], "--seq", 8, "--seed", 5,
        "-o", tmp_path)
    model = models.llama(**SIZES, seq=8, seed=5)
    assert model.module.script() == (tmp_path / "model.py").read_text()
    params = pipesplit.read_safetensors(tmp_path / "params.safetensors")
    assert list(params) == list(model.weights)
    for name, array in model.weights.items():
        assert array.tobytes() == params[name].tobytes(), name
    inputs = pipesplit.read_safetensors(tmp_path / "inputs.safetensors")
    assert inputs["input_ids"].tobytes() == model.inputs["input_ids"].tobytes()
    # save() writes what the CLI writes, byte for byte.
    model.save(tmp_path / "saved")
    for name in ("model.py", "params.safetensors", "inputs.safetensors"):
        assert (tmp_path / "saved" / name).read_bytes() == (tmp_path / name).read_bytes(), name


def test_serving_form_generates_split_as_unsplit_and_as_the_cli(cli, tmp_path):
    model = models.llama(layers=2, form="serving", requests=3, prompt_len=5)
    assert model.layer_partition == [0, 1, 2] and model.kv_heads == 2
    assert len(model.prompts) == 3 and all(len(p) == 5 for p in model.prompts)
    assert "model.embed_tokens.weight" in model.weights
    assert {"embed", "batch_prefill", "batch_decode"} <= set(model.module.functions)

    unsplit = pipesplit.generate(model.module, model.params, model.prompts, max_new_tokens=6,
                                 groups=1, keep_logits=True)
    assert unsplit.groups == 1
    assert [len(t) for t in unsplit.tokens] == [6, 6, 6]
    assert all(0 <= t < 256 for tokens in unsplit.tokens for t in tokens)
    assert unsplit.logits[0].shape == (6, 256) and unsplit.logits[0].dtype == np.float32
    # Greedy: each token is the first largest logit of its step.
    assert unsplit.tokens[0] == [int(np.argmax(step)) for step in unsplit.logits[0]]

    # Split on 2 groups: the unsplit run's tokens and logits bit for bit, with one batch in
    # flight and with two (the same batches unsplit: a batch's rows share its matmuls).
    for batches in (1, 2):
        reference = unsplit if batches == 1 else pipesplit.generate(
            model.module, model.params, model.prompts, max_new_tokens=6, groups=1,
            batches_in_flight=2, keep_logits=True)
        split = pipesplit.generate(model.module, model.params, model.prompts, max_new_tokens=6,
                                   groups=2, batches_in_flight=batches, keep_logits=True)
        assert split.groups == 2
        assert split.tokens == reference.tokens
        for a, b in zip(split.logits, reference.logits):
            assert a.tobytes() == b.tobytes()

    # The CLI's generate of the files save() writes gives the same tokens.
    model.save(tmp_path)
    cli("generate", tmp_path / "model.py", "--params", tmp_path / "params.safetensors",
        "--prompts", tmp_path / "prompts.json", "--max-new-tokens", 6, "--groups", 2,
        "-o", tmp_path / "tokens.json")
    cli_tokens = json.loads((tmp_path / "tokens.json").read_text())
    assert [r["tokens"] for r in cli_tokens["requests"]] == unsplit.tokens
    assert json.loads((tmp_path / "prompts.json").read_text()) == model.prompts


def test_serving_lowered_form_generates_as_the_serving_form():
    high = models.llama(layers=2, form="serving", requests=2, prompt_len=4)
    lowered = models.llama(layers=2, form="serving-lowered", requests=2, prompt_len=4)
    assert "R.call_tir" in lowered.module.script()
    a = pipesplit.generate(high.module, high.params, high.prompts, max_new_tokens=4)
    b = pipesplit.generate(lowered.module, lowered.params, lowered.prompts, max_new_tokens=4,
                           groups=2)
    assert a.tokens == b.tokens


def test_bad_options_are_value_errors():
    with pytest.raises(ValueError, match="form must be one of high, lowered, serving"):
        models.llama(form="medium")
    with pytest.raises(ValueError, match=r"^layers must be at least 1$"):
        models.llama(layers=0)
    with pytest.raises(ValueError, match=r"^stages \(5\) must not exceed layers \(2\)$"):
        models.llama(layers=2, stages=5)
    with pytest.raises(ValueError, match=r"^heads \(4\) must be a multiple of kv_heads \(3\)$"):
        models.llama(form="serving", kv_heads=3)
    with pytest.raises(ValueError, match="seq does not apply to the serving forms"):
        models.llama(form="serving", seq=8)
    with pytest.raises(ValueError, match="prompt_len applies to the serving forms only"):
        models.llama(prompt_len=3)


def test_generate_errors_are_pipesplit_errors():
    model = models.llama(layers=2, form="serving", requests=1, prompt_len=4)
    with pytest.raises(pipesplit.RuntimeError, match="outside"):
        pipesplit.generate(model.module, model.params, [[1, 2, 100000]], max_new_tokens=2)
    high = models.llama(layers=2)
    with pytest.raises(pipesplit.RuntimeError):
        pipesplit.generate(high.module, high.params, [[1, 2]], max_new_tokens=2)
