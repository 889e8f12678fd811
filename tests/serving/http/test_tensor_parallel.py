"""`pipesplit serve --group-size 2` on the sharded example (`example llama --serving
--tensor-parallel 2`): with 2 groups of 2 workers (PP 2 x TP 2, threads), a greedy completion
gives the tokens `generate` gives for the same prompt with TP alone (1 group of 2 workers, bit for
bit) and with the unsharded model (the same weights). Standard library only.
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import serve_client as sc  # noqa: E402

NEW = 8
SIZES = ["--layers", "2", "--hidden", "64", "--heads", "4", "--kv-heads", "2", "--ffn", "128",
         "--vocab", "64", "--stages", "2", "--requests", "2", "--prompt-len", "8"]


def generate(folder, module, *flags):
    """The tokens `generate` gives for the folder's prompts."""
    out = os.path.join(folder, "generated_%s.json" % "_".join(f.strip("-") for f in flags))
    done = sc.run(["generate", module, "--params", os.path.join(folder, "params.safetensors"),
                   "--prompts", os.path.join(folder, "prompts.json"), "--max-new-tokens",
                   str(NEW), *flags, "-o", out])
    assert done.returncode == 0, done.stdout + done.stderr
    with open(out) as f:
        return [r["tokens"] for r in json.load(f)["requests"]]


class TensorParallelServe(unittest.TestCase):
    def test_a_completion_on_2_groups_of_2_workers(self):
        os.makedirs(sc.SCRATCH, exist_ok=True)
        tp = sc.example("tp_model", *SIZES, "--tensor-parallel", "2")
        full = sc.example("tp_full_model", *SIZES)
        with open(os.path.join(tp, "prompts.json")) as f:
            prompts = json.load(f)
        tp_alone = generate(tp, os.path.join(tp, "model.py"), "--groups", "1", "--group-size", "2")
        unsharded = generate(tp, os.path.join(full, "model.py"), "--groups", "1")
        self.assertEqual(tp_alone, unsharded)

        server = sc.Server(tp, "--groups", "2", "--group-size", "2")
        try:
            self.assertIn("on 2 groups of 2 workers", server.output)
            completions = []
            for prompt in prompts:
                status, body = server.post("/v1/completions", {
                    "prompt": prompt, "max_tokens": NEW, "temperature": 0})
                self.assertEqual(status, 200, body)
                completions.append(body["choices"][0]["token_ids"])
        finally:
            status = server.stop()
        self.assertEqual(status, 0, server.output)
        self.assertEqual(completions, tp_alone)

    def test_a_group_size_the_module_is_not_sharded_for(self):
        os.makedirs(sc.SCRATCH, exist_ok=True)
        tp = sc.example("tp_model", *SIZES, "--tensor-parallel", "2")
        done = sc.run(["serve", os.path.join(tp, "model.py"), "--params",
                       os.path.join(tp, "params.safetensors"), "--port", "0", "--groups", "1",
                       "--group-size", "4"])
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        self.assertIn("error: the module is sharded for groups of 2 workers "
                      "(tensor_parallel_shards 2) but the session's groups have 4 "
                      "(--group-size 4)", done.stdout + done.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
