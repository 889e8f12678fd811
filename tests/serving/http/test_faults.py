"""Faults while `pipesplit serve` streams: a worker that throws (threads, PIPESPLIT_FAULT) and a
killed MPI rank. Every open stream gets an error event naming the failure, /health fails, and
the process exits non-zero within 5 s of the fault with the named error. Standard library only.
"""

import os
import re
import shutil
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import serve_client as sc  # noqa: E402

STREAMS = 6
BOUND = 5.0
# The send of worker 1 that fails: late enough that the streams, opened one after the other, are
# all open by then on a loaded machine (a step of this model takes about a millisecond).
FAULT_AT = 3000
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2"]
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}


def model():
    return sc.example("fault_model", "--layers", "2", "--hidden", "32", "--heads", "4",
                      "--kv-heads", "2", "--ffn", "64", "--vocab", "64", "--requests", "2",
                      "--prompt-len", "4")


class Faults(unittest.TestCase):
    def serve_until_fault(self, server, error_text):
        """Opens STREAMS streams that would run for long; returns (their events, the seconds from
        the fault's announcement to the server's exit)."""
        results = [None] * STREAMS
        opened = [threading.Event() for _ in range(STREAMS)]

        def client(i):
            try:
                results[i] = server.stream("/v1/completions", {
                    "prompt": [1, 2, 3], "max_tokens": 100000, "temperature": 0,
                    "stream": True}, on_open=lambda c: opened[i].set() or False)
            except (ConnectionError, OSError) as e:  # the server went away mid-stream
                results[i] = (None, [], False, e)
            opened[i].set()

        # One stream after the other, each open (its first event read) before the next starts:
        # the fault comes FAULT_AT sends after the first step, when all are open.
        threads = [threading.Thread(target=client, args=(i,)) for i in range(STREAMS)]
        for i, t in enumerate(threads):
            t.start()
            opened[i].wait(60)
        for t in threads:
            t.join(60)
        health = None
        try:
            health = server.request("GET", "/health")[0]
        except (ConnectionError, OSError):
            pass  # the server is gone: /health fails too
        server.process.wait(30)
        end = time.time()
        server.output += server.process.stdout.read()
        server.process.stdout.close()
        self.assertNotEqual(health, 200)
        m = re.search(r"fault injected: \w+ on worker \d+ at (\d+)", server.output)
        self.assertIsNotNone(m, server.output)
        seconds = end - int(m.group(1)) / 1000.0
        print("fault to exit: %.3f s, exit status %d" % (seconds, server.process.returncode))
        self.assertLess(seconds, BOUND, server.output)
        self.assertNotEqual(server.process.returncode, 0, server.output)
        self.assertIn(error_text, server.output)
        return results

    def test_a_worker_that_throws(self):
        server = sc.Server(model(), env={"PIPESPLIT_FAULT": "throw@1:%d" % FAULT_AT})
        results = self.serve_until_fault(server, "error: worker 1 (group 1) failed in a ")
        self.assertIn("injected fault: worker 1 throws at send %d" % FAULT_AT, server.output)
        self.assertEqual(server.process.returncode, 1)
        for i, result in enumerate(results):
            self.assertEqual(len(result), 3, "stream %d did not get its events: %r" % (i, result))
            status, events, done = result
            self.assertEqual(status, 200)
            self.assertIn("error", events[-1], events[-1])
            self.assertIn("worker 1 (group 1) failed", events[-1]["error"]["message"])
            self.assertEqual(events[-1]["error"]["code"], 500)
            self.assertTrue(done)  # the error event, then [DONE]

    @unittest.skipIf(shutil.which("mpirun") is None, "no mpirun")
    def test_a_killed_mpi_rank(self):
        server = sc.Server(model(), "--transport", "mpi", prefix=MPIRUN,
                           env=dict(MPI_ENV, PIPESPLIT_FAULT="kill@1:%d" % FAULT_AT))
        results = self.serve_until_fault(server, "fault injected: kill on worker 1")
        self.assertTrue(re.search(r"worker 1 \(MPI rank 1, pid \d+\) is gone|rank 1 .*exited on "
                                  r"signal 9", server.output), server.output)
        errors = sum(1 for r in results if len(r) == 3 and r[1] and "error" in r[1][-1])
        print("%d of %d streams got the error event" % (errors, STREAMS))
        for r in results:
            if len(r) == 3 and r[1] and "error" in r[1][-1]:
                self.assertIn("worker 1 (MPI rank 1", r[1][-1]["error"]["message"])
        self.assertEqual(errors, STREAMS, server.output)


if __name__ == "__main__":
    unittest.main(verbosity=2)
