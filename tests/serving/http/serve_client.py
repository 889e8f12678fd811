"""A client for the tests of `pipesplit serve`, with the standard library only (http.client).

Starts a server on a free port, sends OpenAI requests (whole or streamed as SSE), reads the
Prometheus metrics, and stops the server. The tests run it against the example models of
`pipesplit example llama --serving`, on localhost.
"""

import http.client
import json
import os
import re
import signal
import socket
import struct
import subprocess
import time

PIPESPLIT = os.environ.get("PIPESPLIT_CLI", "build/pipesplit")
SCRATCH = os.environ.get("PIPESPLIT_SCRATCH", "/tmp/pipesplit_serve_tests")


def run(args, **kwargs):
    """Runs the CLI; returns the completed process (output as text)."""
    return subprocess.run([PIPESPLIT] + args, capture_output=True, text=True, timeout=300, **kwargs)


def example(name, *flags):
    """A serving example model in SCRATCH/name (made once)."""
    folder = os.path.join(SCRATCH, name)
    if not os.path.exists(os.path.join(folder, "model.py")):
        made = run(["example", "llama", "--serving", *flags, "-o", folder])
        assert made.returncode == 0, made.stderr + made.stdout
    return folder


class Server:
    """`pipesplit serve` on a free port; `prefix` runs it under another command (mpirun)."""

    def __init__(self, folder, *flags, env=None, prefix=(), module="model.py", params=None):
        self.output = ""
        if module is None:  # an MLC folder alone: pipesplit writes its module
            served = [folder]
        else:
            served = [os.path.join(folder, module), "--params",
                      params or os.path.join(folder, "params.safetensors")]
        command = list(prefix) + [PIPESPLIT, "serve", *served, "--port", "0", *flags]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, env={**os.environ, **(env or {})},
                                        start_new_session=True)
        self.port = None
        deadline = time.time() + 120
        while time.time() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            self.output += line
            m = re.search(r"at http://[0-9.]+:(\d+)", line)
            if m:
                self.port = int(m.group(1))
                break
        if self.port is None:
            self.process.wait(10)
            raise AssertionError("the server did not start:\n" + self.output +
                                 self.process.stdout.read())

    def connection(self, timeout=120):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, raw=None, headers=None):
        """(status, parsed JSON or text) of one request."""
        c = self.connection()
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        c.request(method, path, body=data, headers=headers or {})
        r = c.getresponse()
        text = r.read().decode()
        c.close()
        kind = r.getheader("Content-Type", "")
        return r.status, (json.loads(text) if kind.startswith("application/json") else text)

    def post(self, path, body):
        return self.request("POST", path, body)

    def stream(self, path, body, on_open=None):
        """(status, [parsed events], done) of a streamed request; `on_open(connection)` runs once
        the response starts (a test may close the connection there)."""
        c = self.connection()
        c.request("POST", path, body=json.dumps(body),
                  headers={"Content-Type": "application/json"})
        r = c.getresponse()
        if r.status != 200:
            status, text = r.status, r.read().decode()
            c.close()
            return status, [json.loads(text)], False
        # The events are parsed once the stream ends: a client that parses as it reads falls
        # behind a fast model on a loaded machine.
        data, done = [], False
        for raw in r:
            line = raw.decode().rstrip("\n")
            if not line:
                continue
            assert line.startswith("data: "), line
            if line == "data: [DONE]":
                done = True
                break
            data.append(line[len("data: "):])
            if on_open is not None and len(data) == 1 and on_open(c):
                return 200, [json.loads(data[0])], False
        c.close()
        return 200, [json.loads(d) for d in data], done

    def metrics(self):
        """{name: value} of the unlabelled-by-group metrics, {name{group}: value} of the others."""
        status, text = self.request("GET", "/metrics")
        assert status == 200, text
        values = {}
        for line in text.splitlines():
            if line.startswith("#") or not line:
                continue
            name, value = line.rsplit(" ", 1)
            group = re.search(r'group="(\d+)"', name)
            le = re.search(r'le="([^"]+)"', name)
            key = name.split("{")[0]
            if group:
                key += "{" + group.group(1) + "}"
            if le:
                key += "{le=" + le.group(1) + "}"
            values[key] = float(value)
        return values

    def stop(self, sig=signal.SIGTERM, timeout=30):
        """Sends `sig` and returns the exit status."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, sig)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            raise AssertionError("the server did not stop within %d s" % timeout)
        self.output += self.process.stdout.read()
        self.process.stdout.close()
        return self.process.returncode


def wait_for(predicate, timeout=20, interval=0.05):
    """Polls until `predicate()` is true; returns its last value."""
    deadline = time.time() + timeout
    value = predicate()
    while not value and time.time() < deadline:
        time.sleep(interval)
        value = predicate()
    return value


def raw_exchange(port, data, close=False):
    """Sends bytes on a fresh socket and returns the answer: with `close`, the socket's write
    side is shut at once (a client that goes away) and whatever comes is read; else one
    response is read (its headers and Content-Length bytes)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(data)
    if close:
        s.shutdown(socket.SHUT_WR)
    out = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        out += chunk
        head, sep, body = out.partition(b"\r\n\r\n")
        m = re.search(rb"Content-Length: (\d+)", head)
        if not close and sep and m and len(body) >= int(m.group(1)):
            break
    s.close()
    return out.decode(errors="replace")


def read_npy_float32(path):
    """A float32 little-endian .npy file as (shape, flat list)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY", path
    header_len = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + header_len].decode()
    assert "'<f4'" in header and "'fortran_order': False" in header, header
    shape = tuple(int(x) for x in re.search(r"\(([^)]*)\)", header).group(1).split(",") if x.strip())
    body = data[10 + header_len:]
    return shape, struct.unpack("<%df" % (len(body) // 4), body)
