"""A scoring server that misbehaves, for the engine-client tests (tests/e2e/serve_engines*.sh):
it answers GET /v1/models with the model list it is given (a real replica's, so it passes the
identity check; "-": the current backend's, forwarded) and every POST /v1/score in the way
`mode` says:

  wrong-count   200 with one score row fewer than the items
  not-json      200 with a body that is not JSON
  not-probability  200 with 1.5 where a probability belongs
  error         500 with an error body
  hang          never answers (the connection stays open)
  slow          as forward, each /v1/score held 0.3 s first; the most requests it held at once is
                written to PORT_FILE.most (how many a client keeps in flight)
  forward       passes the request to BACKEND (a real replica) and its answer back: an engine
                that scores right but, given a model list without "sift_fingerprint", cannot
                say which labeler it serves (as SGLang)
  anonymous     as forward, every "sift_fingerprint" of BACKEND's answers left out: SGLang
                serving whatever BACKEND serves under the name of the model list
  deep          200 with a "usage" and a first score nested 100,000 arrays deep (400 KB:
                more than the answer to a request of a few items can be)
  deep-within   200 with a "usage" nested 30,000 deep (60 KB: within that bound), the scores right
  deep-models   GET /v1/models answers the model list with its "vocab_size" nested 100,000
                arrays deep
  huge          200 with a 256 MiB answer of well-formed score rows, sent as it is made
                (chunked: no length announced), never held whole here
  escape        400 whose message holds terminal escape sequences and a newline
  switch        every request (GET /v1/models too) passed to BACKEND until AFTER /v1/score
                requests were answered, then to BACKEND2, on the same connections: a load
                balancer in front of a rolling update
  restart       as forward, every "sift_fingerprint" left out (as SGLang), until AFTER /v1/score
                requests were answered; then a restart: every open connection is closed
                (kept-alive ones included, as a restarted server's are), and new ones meet
                another engine of the same name: /v1/models names a vocabulary 128 tokens
                larger, and every item scores [0.25, 0.75]

Run as: python3 fake_engine.py MODE MODELS_JSON PORT_FILE [BACKEND [BACKEND2 AFTER]]; it writes
its port (bound to 0)."""
import http.server
import json
import os
import socket
import sys
import threading
import time
import urllib.error
import urllib.request

mode, models, port_file = sys.argv[1], sys.argv[2], sys.argv[3]
backends = sys.argv[4:6]
after = int(sys.argv[6]) if len(sys.argv) > 6 else 0
DEEP = "[" * (30_000 if mode == "deep-within" else 100_000) + "]" * (30_000 if mode == "deep-within" else 100_000)

lock = threading.Lock()
answered = 0        # /v1/score requests answered
generation = 1      # restart: 2 once restarted
connections = {}    # restart: the open connections' sockets, by the generation they began in
holding = most = 0  # slow: /v1/score requests held now, and the most held at once


def without_fingerprint(text):
    """A JSON answer with every "sift_fingerprint" left out (an engine that names none)."""
    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "sift_fingerprint"}
        return [strip(v) for v in value] if isinstance(value, list) else value
    return json.dumps(strip(json.loads(text)))


def restarted_models():
    served = json.loads(models)
    served["data"][0]["vocab_size"] += 128
    return json.dumps(served)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        with lock:
            self.generation = generation
            connections[self.connection] = generation

    def finish(self):
        with lock:
            connections.pop(self.connection, None)
        try:
            super().finish()
        except OSError:
            pass

    def answer(self, status, body):
        """The head and the body in one write, so the body's first bytes come with the head."""
        data = body.encode()
        head = f"HTTP/1.1 {status} {self.responses[status][0]}\r\nContent-Type: application/json\r\n" \
               f"Content-Length: {len(data)}\r\n\r\n"
        self.wfile.write(head.encode() + data)

    def backend(self):
        with lock:
            return backends[1] if mode == "switch" and answered >= after else backends[0]

    def forward(self, path, body=None):
        """(status, text) of the request passed to the current backend."""
        try:
            with urllib.request.urlopen(urllib.request.Request(self.backend() + path, data=body,
                                                               headers={"Content-Type": "application/json"})) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def restarted(self):
        """restart: whether this connection began before the restart (then it is closed unanswered)."""
        with lock:
            gone = mode == "restart" and self.generation < generation
        if gone:
            self.close_connection = True
        return gone

    def do_GET(self):
        if self.path != "/v1/models":
            return self.answer(404, '{"message": "no such route"}')
        if self.restarted():
            return
        if mode == "deep-models":
            served = json.loads(models)
            served["data"][0]["vocab_size"] = "DEEP"
            return self.answer(200, json.dumps(served).replace('"DEEP"', DEEP))
        if models == "-":
            return self.answer(*self.forward("/v1/models"))
        self.answer(200, restarted_models() if self.generation > 1 else models)

    def do_POST(self):
        global answered, generation
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.restarted():
            return
        request = json.loads(body)
        n = len(request["items"])
        if mode == "slow":
            return self.slow_forward(body)
        if mode in ("forward", "switch", "anonymous") or (mode == "restart" and self.generation == 1):
            status, text = self.forward("/v1/score", body)
            self.answer(status, without_fingerprint(text) if mode in ("restart", "anonymous") else text)
            with lock:
                answered += 1
                if mode == "restart" and answered == after:
                    generation = 2
                    for sock in [s for s, g in connections.items() if g == 1 and s is not self.connection]:
                        try:
                            sock.shutdown(socket.SHUT_RDWR)
                        except OSError:
                            pass
                    self.close_connection = True  # after this answer, as if it said keep-alive
            return
        if mode == "restart":
            self.answer(200, json.dumps({"scores": [[0.25, 0.75]] * n}))
        elif mode == "wrong-count":
            self.answer(200, json.dumps({"scores": [[0.5, 0.5]] * (n - 1)}))
        elif mode == "not-json":
            self.answer(200, "<html>gateway</html>")
        elif mode == "not-probability":
            self.answer(200, json.dumps({"scores": [[1.5, -0.5]] * n}))
        elif mode == "error":
            self.answer(500, '{"message": "the engine fell over"}')
        elif mode == "hang":
            time.sleep(3600)
        elif mode in ("deep", "deep-within"):
            scores = json.dumps([["DEEP" if mode == "deep" else 0.5, 0.5]] + [[0.5, 0.5]] * (n - 1))
            self.answer(200, '{"usage": %s, "scores": %s}' % (DEEP, scores.replace('"DEEP"', DEEP)))
        elif mode == "escape":
            self.answer(400, json.dumps({"message": "bad \x1b[2J\x1b]0;owned\x07request\nsift: ok\x9b31m"}))
        elif mode == "huge":
            self.send_huge()

    def slow_forward(self, body):
        global holding, most
        with lock:
            holding += 1
            most = max(most, holding)
            with open(port_file + ".most.tmp", "w") as f:
                f.write(f"{most}\n")
            os.rename(port_file + ".most.tmp", port_file + ".most")
        time.sleep(0.3)
        status, text = self.forward("/v1/score", body)
        with lock:
            holding -= 1
        self.answer(status, text)

    def send_huge(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        rows = b"[0.5, 0.5], " * (1 << 16)
        chunks = [b'{"scores": ['] + [rows] * ((256 << 20) // len(rows)) + [b"[0.5, 0.5]]}"]
        try:
            for chunk in chunks:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.write(b"0\r\n\r\n")
        except OSError:  # the client stopped reading
            self.close_connection = True


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(port_file + ".tmp", "w") as f:
    f.write(f"{server.server_address[1]}\n")
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
