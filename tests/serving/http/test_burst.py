"""A burst of 500 concurrent streaming requests over a KV cache that holds a fortieth of them
(`pipesplit serve`, 2 groups, 2 batches in flight): every request completes with all its tokens,
none is lost, the metrics count the preemptions, and each greedy request's tokens equal those
`generate` gives for its prompt alone (one request at a time, unsplit); where a token differs,
the step's two largest logits of the lone run are within 1e-5 of each other (batching may
change the last bits of a logit, which may then flip a near tie). Standard library only.
"""

import json
import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import serve_client as sc  # noqa: E402

REQUESTS = 500
PROMPT = 8
NEW = 24  # 32 tokens a request: two pages
TIE = 1e-5


class Burst(unittest.TestCase):
    def test_500_streams_over_a_fortieth_of_the_cache(self):
        os.makedirs(sc.SCRATCH, exist_ok=True)
        folder = sc.example("burst_model", "--layers", "2", "--hidden", "32", "--heads", "4",
                            "--kv-heads", "2", "--ffn", "64", "--vocab", "256", "--requests",
                            str(REQUESTS), "--prompt-len", str(PROMPT))
        with open(os.path.join(folder, "prompts.json")) as f:
            prompts = json.load(f)
        self.assertEqual(len(prompts), REQUESTS)

        # The reference: each prompt alone (one running request), on one group.
        ref_json = os.path.join(folder, "alone.json")
        ref_npy = os.path.join(folder, "alone.npy")
        start = time.time()
        alone = sc.run(["generate", os.path.join(folder, "model.py"), "--params",
                        os.path.join(folder, "params.safetensors"), "--prompts",
                        os.path.join(folder, "prompts.json"), "--max-new-tokens", str(NEW),
                        "--groups", "1", "--max-batch-size", "1", "--dump-logits", ref_npy,
                        "-o", ref_json])
        self.assertEqual(alone.returncode, 0, alone.stdout + alone.stderr)
        print("reference: %d requests alone in %.1f s" % (REQUESTS, time.time() - start))
        with open(ref_json) as f:
            reference = [r["tokens"] for r in json.load(f)["requests"]]
        shape, logits = sc.read_npy_float32(ref_npy)
        self.assertEqual(shape, (REQUESTS, NEW, 256))

        # A cache for a fortieth of the requests at their full length: 25 pages, so 13 requests
        # admitted at once (a page each) cannot all grow to their second page, however slowly the
        # clients' threads submit on a busy machine.
        total = REQUESTS * (PROMPT + NEW) // 40
        server = sc.Server(folder, "--max-total-tokens", str(total), "--max-batch-size", "512",
                           "--batches-in-flight", "2")
        try:
            results = [None] * REQUESTS
            barrier = threading.Barrier(REQUESTS)

            def client(i):
                barrier.wait(60)
                results[i] = server.stream("/v1/completions", {
                    "prompt": prompts[i], "max_tokens": NEW, "temperature": 0, "stream": True})

            threads = [threading.Thread(target=client, args=(i,)) for i in range(REQUESTS)]
            start = time.time()
            for t in threads:
                t.start()
            for t in threads:
                t.join(240)
            elapsed = time.time() - start
            metrics = server.metrics()
        finally:
            status = server.stop()
        self.assertEqual(status, 0, server.output)

        lost = [i for i, r in enumerate(results) if r is None or r[0] != 200 or not r[2]]
        self.assertEqual(lost, [], "requests without a whole stream")
        differing = 0
        for i, (_, events, _) in enumerate(results):
            tokens = [e["choices"][0]["token_ids"][0] for e in events]
            self.assertEqual(len(tokens), NEW, i)
            self.assertEqual(events[-1]["choices"][0]["finish_reason"], "length")
            if tokens == reference[i]:
                continue
            differing += 1
            t = next(k for k in range(NEW) if tokens[k] != reference[i][k])
            row = logits[(i * NEW + t) * 256:(i * NEW + t + 1) * 256]
            top = sorted(row, reverse=True)[:2]
            self.assertLessEqual(top[0] - top[1], TIE,
                                 "request %d, token %d: %d vs %d alone, whose top two logits "
                                 "are %r" % (i, t, tokens[t], reference[i][t], top))
        print("%d streams of %d tokens in %.2f s; %d preemptions; %d requests differ from their "
              "lone run at a near tie" % (REQUESTS, NEW, elapsed,
                                          metrics["pipesplit:num_preemptions_total"], differing))
        self.assertGreater(metrics["pipesplit:num_preemptions_total"], 0)
        self.assertEqual(metrics["pipesplit:requests_finished_total"], REQUESTS)
        self.assertEqual(metrics["pipesplit:generation_tokens_total"], REQUESTS * NEW)
        # What is left in the caches is the prefix cache's, evicted when pages are needed.
        self.assertEqual(metrics["pipesplit:kv_cache_pages_used"],
                         metrics["pipesplit:kv_cache_pages_cached"])
        self.assertGreater(metrics["pipesplit:prefix_cache_queries_total"], REQUESTS)  # preempted
        self.assertEqual(metrics["pipesplit:num_requests_running"], 0)
        self.assertEqual(metrics["pipesplit:num_requests_waiting"], 0)
        self.assertEqual(metrics["pipesplit:kv_cache_pages_total"], total // 16 + 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
