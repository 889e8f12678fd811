"""The example models of pipesplit's models layer as data: a module and NumPy weights, inputs or
prompts, as `pipesplit example llama` writes them to a folder.

    import pipesplit
    from pipesplit import models

    model = models.llama(layers=2, form="serving")
    result = pipesplit.generate(model.module, model.params, model.prompts, max_new_tokens=8)

Forms: "high" (high-level Relax ops; `main(input_ids, packed_params)`), "lowered" (the same
after legalize-ops: every op an R.call_tir of a TIR kernel), "serving" (MLC-LLM's serving form:
embed, prefill, decode, batch_prefill, batch_decode over the paged KV cache) and
"serving-lowered". Weights are seeded: the same options give the same bits everywhere.
"""

import os
from typing import Any, Dict, List, NamedTuple, Optional

from pipesplit import Module, _core

__all__ = ["LlamaModel", "llama", "FORMS"]

FORMS = ("high", "lowered", "serving", "serving-lowered")


class LlamaModel(NamedTuple):
    """A generated Llama: the module and its data (arrays are read-only)."""

    module: Module
    form: str
    weights: Dict[str, Any]  # packed_params fields by name, in field order
    weight_metadata: Dict[str, str]  # the __metadata__ of params.safetensors
    inputs: Dict[str, Any]  # high and lowered forms: the entry's inputs by parameter name
    prompts: List[List[int]]  # serving forms: token ids
    layer_partition: List[int]  # serving forms: MLC's layer partition
    kv_heads: int  # serving forms: key/value heads

    @property
    def params(self) -> List[Any]:
        """The weights as a list (packed_params field i at position i), for run and generate."""
        return list(self.weights.values())

    def save(self, folder: "os.PathLike[str] | str") -> None:
        """Writes the folder `pipesplit example llama` writes: model.py, params.safetensors and
        inputs.safetensors (prompts.json for the serving forms)."""
        import json  # pylint: disable=import-outside-toplevel

        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "model.py"), "w", encoding="utf-8") as out:
            out.write(self.module.script())
        _core.write_safetensors(os.path.join(os.fspath(folder), "params.safetensors"),
                                list(self.weights.items()), list(self.weight_metadata.items()))
        if self.form.startswith("serving"):
            with open(os.path.join(folder, "prompts.json"), "w", encoding="utf-8") as out:
                json.dump(self.prompts, out)
        else:
            _core.write_safetensors(os.path.join(os.fspath(folder), "inputs.safetensors"),
                                    list(self.inputs.items()), [])


def llama(layers: int = 4, hidden: int = 64, heads: int = 4, ffn: int = 128, vocab: int = 256,
          *, form: str = "high", stages: int = 2, seed: int = 0, seq: Optional[int] = None,
          kv_heads: Optional[int] = None, requests: Optional[int] = None,
          prompt_len: Optional[int] = None) -> LlamaModel:
    """A tiny Llama in `form` (see the module's doc), as `pipesplit example llama` makes it.

    stages: pipeline stages marked in the model; seq: the sequence length of the high and
    lowered forms (default 16); kv_heads, requests, prompt_len: the serving forms' key/value
    heads (default heads / 2 when heads is even), prompts and tokens per prompt (defaults 4
    and 8). Raises ValueError for an impossible configuration.
    """
    if form not in FORMS:
        raise ValueError(f"form must be one of {', '.join(FORMS)}, not {form!r}")
    serving = form.startswith("serving")
    if serving and seq is not None:
        raise ValueError("seq does not apply to the serving forms")
    if not serving:
        for name, value in (("kv_heads", kv_heads), ("requests", requests),
                            ("prompt_len", prompt_len)):
            if value is not None:
                raise ValueError(f"{name} applies to the serving forms only")
    config = _core.LlamaConfig()
    config.layers, config.hidden, config.heads, config.ffn, config.vocab = (
        layers, hidden, heads, ffn, vocab)
    config.stages, config.seed = stages, seed
    if seq is not None:
        config.seq = seq
    if kv_heads is not None:
        config.kv_heads = kv_heads
    serving_requests = _core.ServingRequests()
    if requests is not None:
        serving_requests.requests = requests
    if prompt_len is not None:
        serving_requests.prompt_len = prompt_len
    built = _core.llama(config, form, serving_requests)
    return LlamaModel(module=Module(built["module"]), form=form, weights=dict(built["weights"]),
                      weight_metadata=dict(built["weight_metadata"]),
                      inputs=dict(built["inputs"]), prompts=built["prompts"],
                      layer_partition=built["layer_partition"], kv_heads=built["kv_heads"])
