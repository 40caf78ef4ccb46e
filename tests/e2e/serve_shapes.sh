#!/usr/bin/env bash
# End to end: the request shapes other servers' clients send, against the real `sift serve` on
# loopback. /v2/rerank (Cohere's v2 SDK) and /rerank (Jina, llama-server) answer as /v1/rerank
# does, scores bitwise equal; a body with "texts" (TEI's) is answered in TEI's shape, a bare
# array [{"index", "score", "text"?}], with TEI's raw_scores, truncate and Left/Right taken or
# refused by name. A wrong method on a known route is 405 with Allow; an unknown route stays
# 404; HEAD keeps answering the GET routes. A request with no items reports zero prompt
# tokens. --served-model-name (repeated, or several after one flag) replaces the directory's
# name: /v1/models lists each, with the labeler's fingerprint, requests may name any, an answer
# echoes the one named, and `sift score --engine` against it gives local scoring's bytes.
# Usage: bash serve_shapes.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/labeler" 5

PYTHONPATH="$SRC/tests/e2e/lib" OMP_NUM_THREADS=1 python3 - "$SIFT" "$WORK" <<'PY'
import json, os, socket, subprocess, sys
from serve_client import Server, check
sift, work = sys.argv[1:3]
model = f"{work}/labeler"
QUERY = "python cloud engineer"
DOCS = ["python", "welding", "cloud sql", "nurse care"]


def raw_status(port, request):
    """The status line's code and the head of the answer to a raw request (for HEAD/OPTIONS)."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.sendall(request)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    head = out.split(b"\r\n\r\n")[0].decode()
    return int(head.split()[1]), head


with Server(sift, model, "--threads", "1") as server:
    status, _, v1 = server.post("/v1/rerank", {"query": QUERY, "documents": DOCS, "return_documents": True})
    check(status == 200 and len(v1["results"]) == 4, f"/v1/rerank: {status} {v1}")
    scores = {r["index"]: r["relevance_score"] for r in v1["results"]}
    order = [r["index"] for r in v1["results"]]

    # 1. Cohere's v2 SDK: POST /v2/rerank {model, query, documents: [str], top_n}.
    status, _, v2 = server.post("/v2/rerank", {"model": "labeler", "query": QUERY, "documents": DOCS, "top_n": 2})
    check(status == 200 and [r["index"] for r in v2["results"]] == order[:2]
          and all(r["relevance_score"] == scores[r["index"]] and "document" not in r for r in v2["results"])
          and v2["meta"]["tokens"]["input_tokens"] == v2["usage"]["prompt_tokens"] > 0
          and v2["meta"]["tokens"]["output_tokens"] == 0, f"/v2/rerank: {status} {v2}")
    status, _, err = server.post("/v2/rerank", {"model": "labeler", "query": QUERY, "documents": DOCS, "max_tokens_per_doc": 64})
    check(status == 400 and err["param"] == "max_tokens_per_doc", f"max_tokens_per_doc: {status} {err}")

    # 2. Jina (and llama-server without "texts"): POST /rerank {model, query, documents, top_n, return_documents}.
    status, _, jina = server.post("/rerank", {"model": "labeler", "query": QUERY, "documents": DOCS, "top_n": 3,
                                              "return_documents": True})
    check(status == 200 and jina["model"] == "labeler" and jina["usage"]["total_tokens"] == jina["usage"]["prompt_tokens"] > 0
          and [r["index"] for r in jina["results"]] == order[:3]
          and all(r["relevance_score"] == scores[r["index"]] and r["document"] == {"text": DOCS[r["index"]]}
                  for r in jina["results"]), f"/rerank (Jina): {status} {jina}")

    # 3. TEI: {"query", "texts", "return_text"} -> [{"index", "score", "text"}], most relevant first.
    for path in ("/rerank", "/v1/rerank", "/v2/rerank"):
        status, _, tei = server.post(path, {"query": QUERY, "texts": DOCS, "return_text": True})
        check(status == 200 and isinstance(tei, list) and [r["index"] for r in tei] == order
              and all(r == {"index": r["index"], "score": scores[r["index"]], "text": DOCS[r["index"]]} for r in tei),
              f"{path} (TEI): {status} {tei}")
    status, _, tei = server.post("/rerank", {"query": QUERY, "texts": DOCS, "raw_scores": False, "truncate": False,
                                             "truncation_direction": "Right"})
    check(status == 200 and [set(r) for r in tei] == [{"index", "score"}] * 4, f"TEI without return_text: {status} {tei}")
    for body, param in (({"query": QUERY, "texts": DOCS, "raw_scores": True}, "raw_scores"),
                        ({"query": QUERY, "texts": DOCS, "documents": DOCS}, "texts"),
                        ({"query": QUERY, "texts": DOCS, "truncation_direction": "middle"}, "truncation_direction"),
                        ({"query": QUERY, "texts": [DOCS[0], 7]}, "texts[1]")):
        status, _, err = server.post("/rerank", body)
        check(status == 400 and err["param"] == param, f"TEI {param}: {status} {err}")

    # 4. Methods: 405 with Allow on a known path, 404 elsewhere; HEAD answers GET routes, as before.
    for method, path, allow in (("GET", "/v1/rerank", "POST"), ("PUT", "/v1/label", "POST"), ("GET", "/rerank", "POST"),
                                ("DELETE", "/v2/rerank", "POST"), ("POST", "/health", "GET, HEAD"),
                                ("POST", "/v1/models", "GET, HEAD"), ("PATCH", "/metrics", "GET, HEAD")):
        status, headers, err = server.request(method, path)
        check(status == 405 and headers.get("Allow") == allow and err["code"] == 405 and path in err["message"],
              f"{method} {path}: {status} {headers} {err}")
    for method, path in (("GET", "/v3/rerank"), ("POST", "/rerank/"), ("GET", "/nope")):
        status, headers, _ = server.request(method, path)
        check(status == 404 and "Allow" not in headers, f"{method} {path}: {status} {headers}")
    status, head = raw_status(server.port, b"HEAD /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    check(status == 200, f"HEAD /health: {head}")
    for method, path, allow in ((b"HEAD", b"/v1/label", "POST"), (b"OPTIONS", b"/v1/rerank", "POST"),
                                (b"OPTIONS", b"/health", "GET, HEAD")):
        status, head = raw_status(server.port, method + b" " + path + b" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        check(status == 405 and f"\r\nAllow: {allow}" in head, f"{method} {path}: {head}")
    status, head = raw_status(server.port, b"OPTIONS /elsewhere HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    check(status == 404, f"OPTIONS /elsewhere: {head}")

    # 5. A request that runs nothing reports no prompt tokens.
    for path, body in (("/v1/label", {"query": QUERY, "items": []}), ("/v1/rerank", {"query": QUERY, "documents": []}),
                       ("/v2/rerank", {"query": QUERY, "documents": []}),
                       ("/v1/score", {"query": QUERY, "items": [], "label_token_ids": [1, 2]})):
        status, _, answer = server.post(path, body)
        check(status == 200 and answer["usage"]["prompt_tokens"] == 0
              and answer["usage"]["prompt_tokens_details"]["cached_tokens"] == 0, f"{path} with no items: {status} {answer}")
    status, _, answer = server.post("/rerank", {"query": QUERY, "texts": []})
    check(status == 200 and answer == [], f"TEI with no texts: {status} {answer}")

# 6. A TEI text too long for a request is scored by windows as a document is (no error, no
# silent cut); TEI's "truncate": true cuts it instead (as "truncate": "items" does), and then
# scores it otherwise.
long_text = " ".join(["python cloud"] * 200)
with Server(sift, model, "--threads", "1", "--max-batch-tokens", "160") as server:
    status, _, chunked = server.post("/rerank", {"query": QUERY, "texts": [long_text, "sql"]})
    check(status == 200 and sorted(r["index"] for r in chunked) == [0, 1], f"a text too long: {status} {chunked}")
    status, _, tei = server.post("/rerank", {"query": QUERY, "texts": [long_text, "sql"], "truncate": True,
                                             "truncation_direction": "Left"})
    check(status == 200 and sorted(r["index"] for r in tei) == [0, 1], f"truncate: true: {status} {tei}")
    long_score = lambda answer: next(r["score"] for r in answer if r["index"] == 0)
    check(long_score(chunked) != long_score(tei), f"windows and a cut scored alike: {chunked} {tei}")

# 7. --served-model-name: the names replace the directory's, each listed with the labeler's fingerprint.
for args in (("--served-model-name", "prod", "--served-model-name", "Qwen/Qwen3-Reranker-0.6B"),
             ("--served-model-name", "prod", "Qwen/Qwen3-Reranker-0.6B")):
    with Server(sift, model, "--threads", "1", *args) as server:
        status, _, models = server.request("GET", "/v1/models")
        ids = [m["id"] for m in models["data"]]
        fingerprints = {m["sift_fingerprint"] for m in models["data"]}
        check(status == 200 and ids == ["prod", "Qwen/Qwen3-Reranker-0.6B"] and len(fingerprints) == 1
              and next(iter(fingerprints)).startswith("sha256:"), f"{args}: /v1/models {models}")
        for name in ids:
            status, _, answer = server.post("/v1/rerank", {"model": name, "query": QUERY, "documents": DOCS})
            check(status == 200 and answer["model"] == name, f"{args}: model {name}: {status} {answer}")
        status, _, answer = server.post("/v1/score", {"query": QUERY, "items": DOCS, "label_token_ids": [1, 2]})
        check(status == 200 and answer["model"] == "prod", f"{args}: no model named echoes the first: {answer}")
        status, _, err = server.post("/v1/label", {"model": "labeler", "query": QUERY, "items": DOCS})
        check(status == 404 and err["code"] == "model_not_found" and '"prod", "Qwen/Qwen3-Reranker-0.6B"' in err["message"],
              f"{args}: the directory's name is not served: {status} {err}")
        if args[-1] == "Qwen/Qwen3-Reranker-0.6B" and args[-2] == "prod":
            # sift --engine finds its labeler by fingerprint and names it as the server does.
            rows = f"{work}/rows.jsonl"
            with open(rows, "w") as f:
                for i in range(6):
                    f.write(json.dumps({"query": f"{QUERY} {i}", "items": DOCS[: 1 + i % 4]}) + "\n")
            env = dict(os.environ, OMP_NUM_THREADS="1")
            local = subprocess.run([sift, "score", "--model", model, "--input", rows], capture_output=True, text=True, env=env)
            remote = subprocess.run([sift, "score", "--model", model, "--input", rows, "--engine",
                                     f"http://127.0.0.1:{server.port}"], capture_output=True, text=True, env=env)
            check(local.returncode == 0 and remote.returncode == 0 and remote.stdout == local.stdout,
                  f"sift score --engine on served names: exit {remote.returncode}: {remote.stderr}")

for args, what in ((("--served-model-name", ""), "empty"),
                   (("--served-model-name", "a", "--served-model-name", "a"), "\"a\" is given twice")):
    done = subprocess.run([sift, "serve", "--model", model, "--port", "0", *args], capture_output=True, text=True, timeout=60)
    check(done.returncode == 2 and "--served-model-name" in done.stderr and what in done.stderr,
          f"{args}: exit {done.returncode}: {done.stderr}")
print("serve_shapes: ok")
PY
