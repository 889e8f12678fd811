"""pipesplit.mlc_partition: MLC-LLM's layer_partition and per-parameter stages from Python,
checked against the split's own weight reads and equal to the CLI's stage report."""

import json

import pipesplit


def test_thirty_layers_on_four_stages(cli, tmp_path):
    cli("example", "llama", "--serving", "--layers", 30, "--stages", 4, "-o", tmp_path)
    module = pipesplit.parse((tmp_path / "model.py").read_text(), path="model.py")
    names = json.loads(dict(_metadata(tmp_path / "params.safetensors"))["packed_params"])
    partition = pipesplit.mlc_partition(module, names)
    assert partition["pipeline_parallel_stages"] == 4
    assert partition["layer_partition"] == [0, 8, 16, 24, 30]
    stages = partition["param_stages"]
    # MLC's floor(30 / 4) = 7 tags layer 7 for stage 1 and layers 28-29 for a stage 4 that does
    # not exist; the split reads them on stages 0 and 3.
    assert stages["model.layers.7.self_attn.qkv_proj.weight"] == [0]
    assert stages["model.layers.29.mlp.down_proj.weight"] == [3]
    assert stages["model.embed_tokens.weight"] == [0, 1, 2, 3]  # embed runs on every group
    assert stages["lm_head.weight"] == [3]
    # The same object as the CLI's stage report.
    report = tmp_path / "report.json"
    cli("opt", tmp_path / "model.py", "-p", "pipeline-parallel-rewrite", "-o", "/dev/null",
        "--stage-report", report, "--param-names", tmp_path / "params.safetensors")
    assert json.loads(report.read_text())["mlc"] == partition


def _metadata(path):
    """The __metadata__ entries of a safetensors file."""
    raw = path.read_bytes()
    length = int.from_bytes(raw[:8], "little")
    return json.loads(raw[8:8 + length])["__metadata__"].items()
