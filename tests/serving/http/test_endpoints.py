"""`pipesplit serve`: every endpoint's shapes, streamed and not, text through a SentencePiece
tokenizer trained by spm_train on a text Debian ships, the errors (malformed HTTP and JSON,
wrong types, an oversize prompt, a full queue, unknown paths and methods), and a client that
goes away (its pages return, the metrics show it). Standard library only.
"""

import json
import os
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import serve_client as sc  # noqa: E402

VOCAB = 256
TEXT = "/usr/share/common-licenses/GPL-3"


def tiny_model():
    return sc.example("endpoints_model", "--layers", "2", "--hidden", "32", "--heads", "4",
                      "--kv-heads", "2", "--ffn", "64", "--vocab", str(VOCAB), "--requests", "4",
                      "--prompt-len", "8")


def tokenizer():
    """A BPE SentencePiece model of the model's vocabulary size, trained on GPL-3's text."""
    prefix = os.path.join(sc.SCRATCH, "spm%d" % VOCAB)
    if not os.path.exists(prefix + ".model"):
        subprocess.run(["spm_train", "--input=" + TEXT, "--model_prefix=" + prefix,
                        "--vocab_size=%d" % VOCAB, "--model_type=bpe", "--minloglevel=2"],
                       check=True, capture_output=True, timeout=120)
    return prefix + ".model"


def spm_decode(model, ids):
    out = subprocess.run(["spm_decode", "--model=" + model, "--input_format=id"],
                         input=" ".join(map(str, ids)) + "\n", capture_output=True, text=True,
                         check=True, timeout=60)
    return out.stdout.rstrip("\n")


class Endpoints(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(sc.SCRATCH, exist_ok=True)
        cls.folder = tiny_model()
        cls.spm = tokenizer()
        cls.server = sc.Server(cls.folder, "--tokenizer", cls.spm, "--served-model-name", "tiny",
                               "--batches-in-flight", "2")

    @classmethod
    def tearDownClass(cls):
        status = cls.server.stop()
        assert status == 0, "exit %d:\n%s" % (status, cls.server.output)

    def completion(self, **fields):
        body = {"model": "tiny", "prompt": [5, 6, 7, 8], "max_tokens": 6, "temperature": 0}
        body.update(fields)
        return self.server.post("/v1/completions", body)

    def assert_error(self, status, body, expected_status, param=None, message=None):
        self.assertEqual(status, expected_status, body)
        self.assertEqual(set(body), {"error"})
        self.assertEqual(set(body["error"]), {"message", "type", "param", "code"})
        self.assertEqual(body["error"]["code"], expected_status)
        if param is not None:
            self.assertEqual(body["error"]["param"], param)
        if message is not None:
            self.assertIn(message, body["error"]["message"])

    def test_health_and_models(self):
        self.assertEqual(self.server.request("GET", "/health"), (200, {"status": "ok"}))
        status, models = self.server.request("GET", "/v1/models")
        self.assertEqual(status, 200)
        self.assertEqual(models["object"], "list")
        self.assertEqual(len(models["data"]), 1)
        model = models["data"][0]
        self.assertEqual((model["id"], model["object"], model["owned_by"]),
                         ("tiny", "model", "pipesplit"))
        self.assertIsInstance(model["created"], int)
        self.assertGreater(model["max_model_len"], 0)

    def test_completion_of_token_ids(self):
        status, r = self.completion()
        self.assertEqual(status, 200, r)
        self.assertEqual(set(r), {"id", "object", "created", "model", "choices", "usage"})
        self.assertTrue(r["id"].startswith("cmpl-"))
        self.assertEqual((r["object"], r["model"]), ("text_completion", "tiny"))
        self.assertEqual(len(r["choices"]), 1)
        choice = r["choices"][0]
        self.assertEqual(set(choice), {"index", "text", "token_ids", "logprobs", "finish_reason"})
        self.assertEqual((choice["index"], choice["finish_reason"]), (0, "length"))
        self.assertEqual(len(choice["token_ids"]), 6)
        self.assertTrue(all(0 <= t < VOCAB for t in choice["token_ids"]))
        self.assertEqual(choice["text"], spm_decode(self.spm, choice["token_ids"]))
        self.assertEqual(r["usage"], {"prompt_tokens": 4, "completion_tokens": 6,
                                      "total_tokens": 10})
        # Greedy is deterministic; a list of lists gives a choice per prompt.
        self.assertEqual(self.completion()[1]["choices"][0]["token_ids"], choice["token_ids"])
        status, two = self.completion(prompt=[[5, 6, 7, 8], [9, 10]])
        self.assertEqual(status, 200, two)
        self.assertEqual([c["index"] for c in two["choices"]], [0, 1])
        self.assertEqual(two["choices"][0]["token_ids"], choice["token_ids"])
        self.assertEqual(two["usage"]["prompt_tokens"], 6)
        self.assertEqual(two["usage"]["completion_tokens"], 12)

    def test_streamed_completion(self):
        whole = self.completion(max_tokens=5)[1]["choices"][0]["token_ids"]
        status, events, done = self.server.stream(
            "/v1/completions", {"prompt": [5, 6, 7, 8], "max_tokens": 5, "temperature": 0,
                                "stream": True, "stream_options": {"include_usage": True}})
        self.assertEqual(status, 200)
        self.assertTrue(done)
        chunks, usage = events[:-1], events[-1]
        self.assertEqual(len(chunks), 5)
        for i, e in enumerate(chunks):
            self.assertEqual(set(e), {"id", "object", "created", "model", "choices"})
            self.assertEqual(e["object"], "text_completion")
            self.assertEqual(len(e["choices"]), 1)
            c = e["choices"][0]
            self.assertEqual(set(c), {"index", "text", "token_ids", "logprobs", "finish_reason"})
            self.assertEqual(c["finish_reason"], "length" if i == 4 else None)
        self.assertEqual([e["choices"][0]["token_ids"][0] for e in chunks], whole)
        self.assertEqual("".join(e["choices"][0]["text"] for e in chunks),
                         spm_decode(self.spm, whole))
        self.assertEqual(usage["choices"], [])
        self.assertEqual(usage["usage"], {"prompt_tokens": 4, "completion_tokens": 5,
                                          "total_tokens": 9})
        self.assertEqual(len({e["id"] for e in events}), 1)
        # Without include_usage there is no usage chunk.
        status, events, done = self.server.stream(
            "/v1/completions", {"prompt": [5, 6], "max_tokens": 3, "stream": True})
        self.assertTrue(done)
        self.assertEqual(len(events), 3)

    def test_sampling_and_stop_tokens(self):
        sampled = lambda seed: self.completion(temperature=1.0, top_p=0.9, seed=seed,
                                               max_tokens=12)[1]["choices"][0]["token_ids"]
        self.assertEqual(sampled(7), sampled(7))
        self.assertNotEqual(sampled(7), sampled(8))
        tokens = self.completion(max_tokens=8)[1]["choices"][0]["token_ids"]
        stop = tokens[3]
        status, r = self.completion(max_tokens=8, stop_token_ids=[stop])
        self.assertEqual(status, 200, r)
        c = r["choices"][0]
        self.assertEqual(c["finish_reason"], "stop")
        self.assertEqual(c["token_ids"], tokens[:tokens.index(stop) + 1])

    def test_text_prompts_and_chat(self):
        status, r = self.completion(prompt="This License applies to", max_tokens=8)
        self.assertEqual(status, 200, r)
        c = r["choices"][0]
        self.assertEqual(c["text"], spm_decode(self.spm, c["token_ids"]))
        self.assertGreater(r["usage"]["prompt_tokens"], 1)
        messages = [{"role": "system", "content": "You are a license."},
                    {"role": "user", "content": "What is free software?"}]
        body = {"messages": messages, "max_tokens": 7, "temperature": 0}
        status, chat = self.server.post("/v1/chat/completions", body)
        self.assertEqual(status, 200, chat)
        self.assertTrue(chat["id"].startswith("chatcmpl-"))
        self.assertEqual(chat["object"], "chat.completion")
        choice = chat["choices"][0]
        self.assertEqual(set(choice), {"index", "message", "token_ids", "logprobs",
                                       "finish_reason"})
        self.assertEqual(choice["message"]["role"], "assistant")
        self.assertEqual(choice["message"]["content"], spm_decode(self.spm, choice["token_ids"]))
        self.assertEqual(chat["usage"]["completion_tokens"], 7)
        status, events, done = self.server.stream("/v1/chat/completions",
                                                  dict(body, stream=True))
        self.assertTrue(done)
        self.assertEqual({e["object"] for e in events}, {"chat.completion.chunk"})
        self.assertEqual(events[0]["choices"][0]["delta"]["role"], "assistant")
        self.assertEqual("".join(e["choices"][0]["delta"]["content"] for e in events),
                         choice["message"]["content"])
        self.assertEqual(events[-1]["choices"][0]["finish_reason"], "length")

    def test_request_errors(self):
        post = lambda raw: self.server.request("POST", "/v1/completions", raw=raw)
        self.assert_error(*post("{\"prompt\": [1, 2"), 400, message="not valid JSON")
        self.assert_error(*post("[1, 2]"), 400, message="must be a JSON object")
        for field, value, expected in [
                ("max_tokens", "5", "'max_tokens' must be an integer, got a string"),
                ("max_tokens", 0, "'max_tokens' must be at least 1"),
                ("temperature", "hot", "'temperature' must be a number"),
                ("temperature", -1, "'temperature' must be at least 0"),
                ("top_p", 2, "'top_p' must be in (0, 1]"),
                ("stream", "yes", "'stream' must be a boolean"),
                ("seed", 1.5, "'seed' must be an integer"),
                ("n", 0, "'n' must be from 1 to 128"),
                ("n", 200, "'n' must be from 1 to 128"),
                ("prompt", 3.5, "'prompt' must be a string, a list of token ids"),
                ("prompt", [1, -2], "'prompt' must hold token ids"),
                ("prompt", [], "'prompt' must be a string, a list of token ids"),
                ("stop_token_ids", 3, "'stop_token_ids' must be a list of token ids"),
                ("stop", [1], "'stop' must be a string or a list of strings"),
                ("logprobs", 21, "'logprobs' must be from 0 to 20"),
                ("logprobs", True, "'logprobs' must be an integer"),
                ("echo", "yes", "'echo' must be a boolean"),
                ("frobnicate", 1, "unknown field 'frobnicate'")]:
            body = {"prompt": [1, 2], "max_tokens": 2}
            body[field] = value
            self.assert_error(*self.server.post("/v1/completions", body), 400,
                              param=field, message=expected)
        self.assert_error(*self.completion(prompt=[1, VOCAB]), 400, param="prompt",
                          message="token id %d is outside the vocabulary of %d" % (VOCAB, VOCAB))
        self.assert_error(*self.completion(model="other"), 404, param="model",
                          message="the model 'other' does not exist")
        self.assert_error(*self.server.post("/v1/chat/completions", {"messages": "hi"}), 400,
                          param="messages")
        self.assert_error(*self.server.post("/v1/chat/completions",
                                            {"messages": [{"role": "robot", "content": "x"}]}),
                          400, param="messages", message="role 'robot' is not supported")

    def test_http_errors(self):
        self.assert_error(*self.server.request("GET", "/v1/nowhere"), 404,
                          message="no such endpoint: GET /v1/nowhere")
        self.assert_error(*self.server.request("GET", "/v1/completions"), 405,
                          message="use POST")
        self.assert_error(*self.server.request("POST", "/health", {}), 405, message="use GET")
        answer = sc.raw_exchange(self.server.port, b"GARBAGE\r\n\r\n")
        self.assertTrue(answer.startswith("HTTP/1.1 400"), answer)
        body = json.loads(answer.split("\r\n\r\n", 1)[1])
        self.assertEqual(body["error"]["message"], "malformed HTTP request")
        # The server still answers.
        self.assertEqual(self.server.request("GET", "/health")[0], 200)

    def test_a_client_that_goes_away_frees_its_pages(self):
        before = self.server.metrics()
        status, events, done = self.server.stream(
            "/v1/completions", {"prompt": [1, 2, 3], "max_tokens": 100000, "temperature": 0,
                                "stream": True}, on_open=lambda c: c.close() or True)
        self.assertEqual((status, len(events), done), (200, 1, False))
        # The sequence leaves the running requests at the step after the cancellation: wait for
        # both. Its whole pages may stay as a prefix-cache entry (the client may go away after
        # 16 tokens), so the pages still used are exactly the cache's.
        after = sc.wait_for(lambda: (lambda m: m if m["pipesplit:requests_cancelled_total"] >
                                     before["pipesplit:requests_cancelled_total"] and
                                     m["pipesplit:num_requests_running"] == 0 and
                                     m["pipesplit:kv_cache_pages_used"] ==
                                     m["pipesplit:kv_cache_pages_cached"] else None)(
                                         self.server.metrics()))
        self.assertTrue(after, "the request was not cancelled, or its pages not freed: %s" %
                        self.server.metrics())
        self.assertEqual(after["pipesplit:kv_cache_pages_free"] +
                         after["pipesplit:kv_cache_pages_cached"],
                         after["pipesplit:kv_cache_pages_total"])
        # A request that does not stream is cancelled too when its client goes away.
        # Greedy, as above (no stop token for thousands of steps): a sampled request may draw
        # the model's eos and finish before its client is seen gone.
        body = json.dumps({"prompt": [1, 2, 3], "max_tokens": 100000, "temperature": 0}).encode()
        raw = b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body)
        answer = sc.raw_exchange(self.server.port, raw + body, close=True)
        self.assertTrue(sc.wait_for(lambda: self.server.metrics()[
            "pipesplit:requests_cancelled_total"] >= after["pipesplit:requests_cancelled_total"] + 1),
            "not cancelled; the server answered %r; metrics %s" % (answer, self.server.metrics()))

    def test_metrics(self):
        self.completion()
        m = self.server.metrics()
        for name in ["num_requests_running", "num_requests_waiting", "num_requests_preempted",
                     "num_preemptions_total", "kv_cache_pages_used", "kv_cache_pages_free",
                     "prompt_tokens_total", "generation_tokens_total",
                     "time_to_first_token_seconds_count", "inter_token_latency_seconds_count",
                     "bubble_fraction{0}", "bubble_fraction{1}"]:
            self.assertIn("pipesplit:" + name, m)
        self.assertGreater(m["pipesplit:generation_tokens_total"], 0)
        self.assertGreater(m["pipesplit:time_to_first_token_seconds_count"], 0)
        self.assertEqual(m["pipesplit:time_to_first_token_seconds_bucket{le=+Inf}"],
                         m["pipesplit:time_to_first_token_seconds_count"])
        for g in "01":
            self.assertTrue(0 <= m["pipesplit:bubble_fraction{%s}" % g] <= 1)
        status, text = self.server.request("GET", "/metrics")
        self.assertIn("# TYPE pipesplit:time_to_first_token_seconds histogram", text)


class SmallCache(unittest.TestCase):
    """A cache of 4 pages and one more: a sequence holds 80 tokens."""

    @classmethod
    def setUpClass(cls):
        cls.server = sc.Server(tiny_model(), "--max-total-tokens", "64")

    @classmethod
    def tearDownClass(cls):
        assert cls.server.stop() == 0, cls.server.output

    def test_an_oversize_prompt_names_the_limit(self):
        self.assertEqual(self.server.request("GET", "/v1/models")[1]["data"][0]["max_model_len"],
                         80)
        status, body = self.server.post("/v1/completions", {"prompt": [1] * 80})
        self.assertEqual(status, 400, body)
        self.assertEqual(body["error"]["param"], "prompt")
        self.assertIn("the prompt has 80 tokens, but a sequence holds at most 80 tokens",
                      body["error"]["message"])
        # A prompt that fits gets the tokens left (max_tokens is capped).
        status, body = self.server.post("/v1/completions",
                                        {"prompt": [1] * 70, "max_tokens": 50})
        self.assertEqual(status, 200, body)
        self.assertEqual(len(body["choices"][0]["token_ids"]), 10)
        self.assertEqual(body["choices"][0]["finish_reason"], "length")


class FullQueue(unittest.TestCase):
    """One request runs at a time and one waits at most."""

    @classmethod
    def setUpClass(cls):
        cls.server = sc.Server(tiny_model(), "--max-batch-size", "1", "--max-queue", "1")

    @classmethod
    def tearDownClass(cls):
        assert cls.server.stop() == 0, cls.server.output

    def test_a_full_queue_is_503(self):
        opened = threading.Event()
        release = threading.Event()
        results = {}

        def running():  # holds the batch until released
            def hold(c):
                opened.set()
                release.wait(60)
                c.close()
                return True
            results["running"] = self.server.stream(
                "/v1/completions", {"prompt": [1, 2], "max_tokens": 1000000, "temperature": 0,
                                     "stream": True},
                on_open=hold)

        def waiting():
            results["waiting"] = self.server.post("/v1/completions",
                                                  {"prompt": [3, 4], "max_tokens": 2})

        threads = [threading.Thread(target=running)]
        threads[0].start()
        self.assertTrue(opened.wait(60))
        threads.append(threading.Thread(target=waiting))
        threads[1].start()
        self.assertTrue(sc.wait_for(
            lambda: self.server.metrics()["pipesplit:num_requests_waiting"] == 1))
        status, body = self.server.post("/v1/completions", {"prompt": [5], "max_tokens": 1})
        self.assertEqual(status, 503, body)
        self.assertEqual(body["error"]["type"], "service_unavailable_error")
        self.assertIn("the queue is full (1 requests wait)", body["error"]["message"])
        release.set()
        for t in threads:
            t.join(60)
        self.assertEqual(results["waiting"][0], 200)


if __name__ == "__main__":
    unittest.main(verbosity=2)
