"""A scoring server that misbehaves, for the engine-client tests (tests/e2e/serve_engines.sh):
it answers GET /v1/models with the model list it is given (a real replica's, so it passes the
identity check) and every POST /v1/score in the way `mode` says:

  wrong-count   200 with one score row fewer than the items
  not-json      200 with a body that is not JSON
  not-probability  200 with 1.5 where a probability belongs
  error         500 with an error body
  hang          never answers (the connection stays open)
  forward       passes the request to BACKEND (a real replica) and its answer back: an engine
                that scores right but, given a model list without "sift_fingerprint", cannot
                say which labeler it serves (as SGLang)

Run as: python3 fake_engine.py MODE MODELS_JSON PORT_FILE [BACKEND]; it writes its port (bound to 0)."""
import http.server
import json
import os
import sys
import threading
import time
import urllib.request

mode, models, port_file = sys.argv[1], sys.argv[2], sys.argv[3]
backend = sys.argv[4] if len(sys.argv) > 4 else None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.answer(200, models) if self.path == "/v1/models" else self.answer(404, '{"message": "no such route"}')

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        request = json.loads(body)
        n = len(request["items"])
        if mode == "forward":
            with urllib.request.urlopen(urllib.request.Request(backend + "/v1/score", data=body,
                                                           headers={"Content-Type": "application/json"})) as answer:
                return self.answer(answer.status, answer.read().decode())
        if mode == "wrong-count":
            self.answer(200, json.dumps({"scores": [[0.5, 0.5]] * (n - 1)}))
        elif mode == "not-json":
            self.answer(200, "<html>gateway</html>")
        elif mode == "not-probability":
            self.answer(200, json.dumps({"scores": [[1.5, -0.5]] * n}))
        elif mode == "error":
            self.answer(500, '{"message": "the engine fell over"}')
        elif mode == "hang":
            time.sleep(3600)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(port_file + ".tmp", "w") as f:
    f.write(f"{server.server_address[1]}\n")
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
