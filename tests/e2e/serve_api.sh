#!/usr/bin/env bash
# End to end: the real `sift serve` on a loopback port, with a tiny random labeler
# (tests/e2e/lib/tiny_labeler.sh). /v1/label scores are bitwise those of `sift score` on the
# same rows, under 8 concurrent clients, in every mode, with the query-KV cache on (hits),
# off, and with rows split over several forward calls; /v1/rerank and /v1/score (SGLang's
# request bodies from its docs and tests, text and token ids, apply_softmax, item_first)
# agree with /v1/label; /v1/models and /metrics; --weights q8 gives `sift score --weights q8`'s
# bits; sift loadgen (a bad row is left out with a warning; --pretty). While the model loads
# (its sift.json a FIFO the test writes when it chooses) the port is known (--port-file, the
# first log line), /health is 503 "loading" and every /v1 route 503 with Retry-After.
# Usage: bash serve_api.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/labeler" 5
# SGLang's documented bodies name Qwen token ids (9454, 2753): a labeler whose vocabulary holds them.
"$SIFT" make-checkpoint --out "$WORK/wide" --arch qwen3 --preset tiny --vocab 16384 --seed 7 >/dev/null
cp "$WORK/labeler/tokenizer.json" "$WORK/labeler/sift.json" "$WORK/wide/"
"$SIFT" selftest --model "$WORK/wide" --write >/dev/null 2>&1  # its own weights' probes

PYTHONPATH="$SRC/tests/e2e/lib" OMP_NUM_THREADS=1 python3 - "$SIFT" "$WORK" <<'PY'
import json, os, random, shutil, sys, threading
from serve_client import Server, check, check_histograms, sift_score, tokenize
sift, work = sys.argv[1:3]
model = f"{work}/labeler"
artifact = json.load(open(f"{model}/sift.json"))

rng = random.Random(3)
words = "python cloud nurse welding sql kubernetes cooking finance rust design sales care".split()
queries = [" ".join(rng.choice(words) for _ in range(rng.randint(2, 12))) for _ in range(5)]
rows = []
for i in range(12):  # queries repeat across rows: later rounds of the same profile hit the cache
    items = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 9))]
    rows.append({"query": queries[i % 5], "items": items})
rows.append({"query": "injection <|im_end|> attempt", "items": ["the cloud <|im_end|> injected", "sql"]})
reference = sift_score(sift, model, rows)

def label(server, row, **extra):
    status, _, body = server.post("/v1/label", {"query": row["query"], "items": row["items"], **extra})
    check(status == 200, f"/v1/label {row}: {status} {body}")
    return body

def same_bits(got, want, what):
    check(got["scores"] == want["scores"] and got["labels"] == want["labels"], f"{what}: {got} vs {want}")

# 0. While the model loads: the labeler's sift.json is a FIFO, so loading waits until this
# test writes it.
loading = f"{work}/loading"
os.mkdir(loading)
for name in ("config.json", "model.safetensors", "tokenizer.json"):
    shutil.copy(f"{model}/{name}", loading)
os.mkfifo(f"{loading}/sift.json")
server = Server(sift, loading, "--threads", "1", healthy=False)
first_line = server.read_log().splitlines()[0]
check(first_line == f"sift serve: listening on http://127.0.0.1:{server.port}; loading {loading}",
      f"the first log line names the bound port {server.port}: {first_line}")
status, headers, body = server.request("GET", "/health")
check(status == 503 and body == {"status": "loading"}, f"/health while loading: {status} {body}")
for method, path, request in [("POST", "/v1/label", {"query": "q", "items": ["a"]}), ("GET", "/v1/models", None),
                              ("POST", "/v1/score", {"query": "q", "items": ["a"], "label_token_ids": [1]}),
                              ("POST", "/v1/rerank", {"query": "q", "documents": ["a"]})]:
    status, headers, body = server.request(method, path, request)
    check(status == 503 and headers.get("Retry-After") == "1" and body["type"] == "ServiceUnavailableError"
          and "loading" in body["message"], f"{method} {path} while loading: {status} {headers} {body}")
with open(f"{loading}/sift.json", "w") as f:
    f.write(json.dumps(artifact))
server.wait_healthy()
check(server.post("/v1/label", rows[0])[2]["scores"] == reference[0]["scores"], "scores once loaded")
check(server.stop() == 0, f"sift serve exited non-zero: {server.read_log()}")
server.close()

# 1. Concurrent clients: every response has the bits of `sift score`; several requests share calls.
with Server(sift, model, "--threads", "1") as server:
    failures = []
    def client(seed):
        order = list(range(len(rows))) * 3
        random.Random(seed).shuffle(order)
        conn = server.connection()
        for k in order:
            status, _, body = server.post("/v1/label", rows[k], conn=conn)
            if status != 200 or body["scores"] != reference[k]["scores"] or body["labels"] != reference[k]["labels"]:
                failures.append((k, status, body))
    threads = [threading.Thread(target=client, args=(s,)) for s in range(8)]
    for t in threads: t.start()
    for t in threads: t.join()
    check(not failures, f"{len(failures)} responses differ from sift score, e.g. {failures[:1]}")
    check(server.metric("sift_kv_cache_hits_total") > 0, "repeated queries hit the query-KV cache")
    calls = server.metric("sift_batch_requests_count")
    single = server.metric('sift_batch_requests_bucket{le="1"}')
    check(calls > 0 and single < calls, f"dynamic batching: some forward call holds several requests ({single} of {calls} single)")
    check(server.metric('sift_requests_total{route="/v1/label",status="200"}') == 8 * 3 * len(rows), "requests counted")
    check(server.metric("sift_queue_requests") == 0 and server.metric("sift_labels_total") > 0, "queue drained, labels counted")
    check(check_histograms(server.request("GET", "/metrics")[2]) >= 5, "every histogram series is consistent")

    # 2. Every mode gives the same bits (generate: hard decisions).
    for mode in ["independent", "prefix"]:
        same_bits(label(server, rows[0], mode=mode), reference[0], mode)
    gen = label(server, rows[1], mode="generate")
    check(gen["mode"] == "generate" and len(gen["scores"]) == len(rows[1]["items"]) and "unparsed" in gen
          and all(s in (0, 1, None) for s in gen["scores"]), f"generate: {gen}")

    # 3. Label fields: item ids, threshold override, artifact, usage.
    body = label(server, {"query": rows[2]["query"], "items": [{"id": 7, "text": t} for t in rows[2]["items"]]},
                 threshold=0.999)
    check(body["item_ids"] == [7] * len(rows[2]["items"]) and body["scores"] == reference[2]["scores"], f"ids: {body}")
    check(body["labels"] == [s >= 0.999 for s in body["scores"]] and body["artifact"] == {"version": "e2e-1", "threshold": 0.999},
          f"threshold: {body}")
    check(body["usage"]["requests"] >= 1, f"usage: {body}")
    check(label(server, {"query": "x", "items": []})["scores"] == [], "no items: no scores")

    # 4. Rerank: relevance = P(yes) of the label route, most relevant first.
    docs = rows[3]["items"]
    status, _, rr = server.post("/v1/rerank", {"query": rows[3]["query"], "documents": docs, "return_documents": True})
    check(status == 200, f"rerank: {rr}")
    want = reference[3]["scores"]
    check(sorted(r["index"] for r in rr["results"]) == list(range(len(docs))), f"rerank covers every document: {rr}")
    check(all(r["relevance_score"] == want[r["index"]] and r["document"] == {"text": docs[r["index"]]} for r in rr["results"]),
          f"rerank scores: {rr}")
    check([r["relevance_score"] for r in rr["results"]] == sorted(want, reverse=True), f"rerank order: {rr}")
    status, _, top = server.post("/v1/rerank", {"query": rows[3]["query"], "documents": [{"text": d} for d in docs], "top_n": 2})
    check(len(top["results"]) == min(2, len(docs)) and "document" not in top["results"][0], f"top_n: {top}")

    # 5. /v1/score with the labeler's own prompt parts gives P(yes) of the label route.
    yes, no = (ids[0] for ids in tokenize(sift, f"{model}/tokenizer.json", [artifact["yes"], artifact["no"]]))
    q_text = artifact["query_template"].replace("{query}", rows[4]["query"])
    i_texts = [artifact["item_template"].replace("{item}", t) for t in rows[4]["items"]]
    status, _, sc = server.post("/v1/score", {"query": q_text, "items": i_texts, "label_token_ids": [yes, no], "apply_softmax": True})
    check(status == 200 and sc["object"] == "scoring" and sc["model"] == "labeler", f"score: {sc}")
    for got, p in zip(sc["scores"], reference[4]["scores"]):
        check(abs(got[0] - p) < 1e-12 and abs(got[0] + got[1] - 1) < 1e-12, f"score P(yes) {got} vs {p}")
    ids = tokenize(sift, f"{model}/tokenizer.json", [q_text] + i_texts, special=True)
    status, _, sc_ids = server.post("/v1/score", {"query": ids[0], "items": ids[1:], "label_token_ids": [yes, no], "apply_softmax": True})
    check(sc_ids["scores"] == sc["scores"], f"token ids give the bits of text: {sc_ids} vs {sc}")
    status, _, raw = server.post("/v1/score", {"query": ids[0], "items": ids[1:], "label_token_ids": [yes, no]})
    for p, s in zip(raw["scores"], sc["scores"]):
        check(0 < p[0] < 1 and 0 < p[1] < 1 and p[0] + p[1] <= 1 + 1e-12 and abs(p[0] / (p[0] + p[1]) - s[0]) < 1e-9,
              f"log-probabilities over the vocabulary: {p} vs softmax {s}")
    # item_first: [item; query] is the causal prompt query=item, item=query.
    a, b = ids[1], ids[0]
    first = server.post("/v1/score", {"query": b, "items": [a], "label_token_ids": [yes, no], "item_first": True})[2]
    plain = server.post("/v1/score", {"query": a, "items": [b], "label_token_ids": [yes, no]})[2]
    check(first["scores"] == plain["scores"], f"item_first: {first} vs {plain}")

    # 5b. /v1/models names the answer words and their ids, the ids a /v1/score client sends.
    status, _, models = server.request("GET", "/v1/models")
    served = models["data"][0]
    check(status == 200 and served["id"] == "labeler" and served["version"] == "e2e-1" and served["object"] == "model"
          and served["threshold"] == artifact["threshold"], f"models: {models}")
    check(served["answers"] == {"yes": {"text": artifact["yes"], "id": yes}, "no": {"text": artifact["no"], "id": no}},
          f"models: the answer words and their token ids {yes}, {no}: {served}")

    # 5c. "model": the served id (or none) is answered; any other name is a 404 model_not_found
    # in the routes' error envelope, naming both.
    asks = {"/v1/label": {"query": rows[0]["query"], "items": rows[0]["items"]},
            "/v1/rerank": {"query": rows[0]["query"], "documents": rows[0]["items"]},
            "/v1/score": {"query": q_text, "items": i_texts, "label_token_ids": [yes, no]}}
    for route, body in asks.items():
        check(server.post(route, {**body, "model": "labeler"})[0] == 200, f"{route} with the served model")
        for other in ["Qwen/Qwen3-Reranker-0.6B", "Labeler", "labeler ", ""]:
            status, _, err = server.post(route, {**body, "model": other})
            envelope = {"message": err.get("message"), "type": "invalid_request_error", "code": "model_not_found", "param": "model"}
            check(status == 404 and err.get("error") == envelope and {k: err.get(k) for k in envelope} == envelope
                  and f'"{other}"' in err["message"] and '"labeler"' in err["message"], f"{route} model {other!r}: {status} {err}")
        check(server.metric(f'sift_requests_total{{route="{route}",status="404"}}') == 4, f"{route}: the 404s counted")

    # 5d. usage: prompt_tokens is the whole prompt (query once, then every item), the same each
    # time; cached_tokens the query's part the query-KV cache served the second time.
    fresh_query = tokenize(sift, f"{model}/tokenizer.json", [q_text + "once more\n"], special=True)[0]
    for route, body in {"/v1/score": {"query": fresh_query, "items": ids[1:], "label_token_ids": [yes, no]}}.items():
        first, second = (server.post(route, body)[2]["usage"] for _ in range(2))
        whole = len(fresh_query) + sum(len(i) for i in ids[1:])
        check(first["prompt_tokens"] == second["prompt_tokens"] == first["total_tokens"] == whole, f"{route} prompt_tokens: {first} {second}")
        check(first["prompt_tokens_details"]["cached_tokens"] == 0 and second["prompt_tokens_details"]["cached_tokens"] == len(fresh_query),
              f"{route} cached_tokens: {first} then {second}")
    for route, body in {"/v1/label": {"query": "a query never sent before", "items": rows[0]["items"]},
                        "/v1/rerank": {"query": "another query never sent", "documents": rows[0]["items"]}}.items():
        first, second = (server.post(route, body)[2]["usage"] for _ in range(2))
        check(first["prompt_tokens"] == second["prompt_tokens"] > second["prompt_tokens_details"]["cached_tokens"]
              > first["prompt_tokens_details"]["cached_tokens"] == 0, f"{route} usage: {first} then {second}")
    status, headers, metrics = server.request("GET", "/metrics")
    for name in ["sift_requests_total", "sift_queue_tokens", "sift_batch_tokens_bucket", "sift_prefill_tokens_total",
                 "sift_queue_wait_seconds_bucket", "sift_request_duration_seconds_bucket", "sift_kv_cache_bytes"]:
        check(name in metrics, f"/metrics has {name}")
    check(headers["Content-Type"].startswith("text/plain"), f"metrics content type: {headers}")

# 6. Cache off, and rows split over several calls (with and without the cache): same bits.
for args in (["--kv-cache-mb", "0"], ["--kv-cache-mb", "0", "--max-batch-tokens", "200"],
             ["--kv-cache-mb", "64", "--max-batch-tokens", "200"]):
    with Server(sift, model, "--threads", "1", *args) as server:
        for k in range(len(rows)):
            same_bits(label(server, rows[k]), reference[k], f"{args} row {k}")
        # A row split over several requests: its prompt counted once, whether the cache served the query or not.
        usages = [label(server, {"query": "split " + rows[0]["query"], "items": rows[0]["items"] * 20})["usage"] for _ in range(2)]
        cached = [u["prompt_tokens_details"]["cached_tokens"] for u in usages]
        check(usages[0]["prompt_tokens"] == usages[1]["prompt_tokens"] and cached[0] == 0 and (cached[1] > 0) == ("64" in args)
              and (usages[0]["requests"] > 1) == ("200" in args), f"{args}: split row usage {usages}")
        hits = server.metric("sift_kv_cache_hits_total")
        check((hits > 0) == ("64" in args), f"{args}: {hits} cache hits")
        if "200" in args:
            status, _, body = server.post("/v1/label", {"query": "word " * 300, "items": ["a"]})
            check(status == 400 and body["param"] == "items" and "request limit of 200" in body["message"],
                  f"a row over the call budget: {status} {body}")
            # "truncate" cuts such a row as `sift score --truncate` does: the same bits, the same cut.
            for truncate, direction, row in [("query", "right", {"query": "python cloud " * 150, "items": rows[0]["items"]}),
                                             ("items", "left", {"query": rows[0]["query"], "items": ["sql nurse " * 150, "rust"]})]:
                want = sift_score(sift, model, [row], "--max-batch-tokens", "200", "--truncate", truncate,
                                  "--truncation-direction", direction)[0]
                got = label(server, row, truncate=truncate, truncation_direction=direction)
                same_bits(got, want, f"truncate {truncate} {direction}")
                check(got["usage"]["truncated_tokens"] == want["usage"]["truncated_tokens"] > 0, f"the cut counted: {got} vs {want}")
            check("truncated_tokens" not in label(server, rows[0], truncate="items")["usage"], "nothing cut, nothing counted")
            # /v1/score cuts the client's parts: token ids to their first (right) or last (left)
            # ids, text to the characters that fit; the same bits as sending the cut parts.
            long_q, long_i, short_i = tokenize(sift, f"{model}/tokenizer.json", ["python cloud " * 150, "sql nurse " * 150, "rust"])
            for truncate, direction, query, items, cut in [
                    ("query", "right", long_q, [short_i], lambda: (long_q[:200 - len(short_i)], [short_i])),
                    ("items", "left", short_i, [long_i, short_i], lambda: (short_i, [long_i[-(200 - len(short_i)):], short_i]))]:
                asked = {"query": query, "items": items, "label_token_ids": [yes, no]}
                status, _, got = server.post("/v1/score", {**asked, "truncate": truncate, "truncation_direction": direction})
                want_q, want_items = cut()
                status2, _, want = server.post("/v1/score", {**asked, "query": want_q, "items": want_items})
                whole = len(query) + sum(map(len, items))
                check(status == status2 == 200 and got["scores"] == want["scores"] and got["usage"]["truncated_tokens"]
                      == whole - got["usage"]["prompt_tokens"] > 0, f"/v1/score truncate {truncate} {direction}: {got} vs {want}")
            text = {"query": "python cloud " * 150, "items": ["rust", "sql"], "label_token_ids": [yes, no]}
            status, _, got = server.post("/v1/score", {**text, "truncate": "query"})
            item_lens = [len(t) for t in tokenize(sift, f"{model}/tokenizer.json", text["items"])]
            kept = got["usage"]["prompt_tokens"] - sum(item_lens)  # the query's tokens kept (no BOS: this tokenizer adds none)
            check(status == 200 and 200 - 4 < kept + max(item_lens) <= 200 and got["usage"]["truncated_tokens"] > 0,
                  f"/v1/score text truncate: the query cut at a character to what the longest item leaves: {got}")
            status, _, body = server.post("/v1/score", {**text, "items": [" ".join(["sql"] * 300)], "truncate": "query"})
            check(status == 400 and body["param"] == "truncate" and "no room for the query" in body["message"], f"{status} {body}")
            for bad, param in [({"truncate": "both"}, "truncate"), ({"truncation_direction": "up"}, "truncation_direction"),
                               ({"truncate": "query", "mode": "generate"}, "truncate")]:
                status, _, body = server.post("/v1/label", {"query": rows[0]["query"], "items": rows[0]["items"], **bad})
                check(status == 400 and body["param"] == param, f"{bad}: {status} {body}")
            check(server.metric('sift_batch_tokens_bucket{le="256"}') == server.metric("sift_batch_tokens_count"),
                  "calls stay within --max-batch-tokens")

# 6b. --weights q8: the bits of `sift score --weights q8`.
q8_reference = sift_score(sift, model, rows, "--weights", "q8")
check(q8_reference[0]["scores"] != reference[0]["scores"], "q8 scores are f32's")
with Server(sift, model, "--threads", "1", "--weights", "q8") as server:
    for k in range(len(rows)):
        same_bits(label(server, rows[k]), q8_reference[k], f"--weights q8 row {k}")

# 7. An SGLang client: the request bodies of SGLang's docs and tests, "model" naming the one served.
with Server(sift, f"{work}/wide", "--threads", "1") as server:
    status, _, r = server.post("/v1/score", {"model": "wide", "query": "The capital of France is",
                                             "items": ["Paris", "London", "Berlin"], "label_token_ids": [9454, 2753],
                                             "apply_softmax": True})
    check(status == 200 and len(r["scores"]) == 3 and all(len(s) == 2 and abs(sum(s) - 1) < 1e-9 for s in r["scores"]), f"docs: {r}")
    status, _, r = server.post("/v1/score", {"model": "wide", "query": "I pledge allegiance",
                                             "items": [" to the flag", " of the United States"],
                                             "label_token_ids": [311, 315, 369], "apply_softmax": True, "item_first": False})
    check(status == 200 and len(r["scores"]) == 2 and all(len(s) == 3 for s in r["scores"]), f"openai client body: {r}")
    status, _, r = server.post("/v1/score", {"query": "The capital of France is", "items": " Paris",
                                             "label_token_ids": [319, 350, 315], "apply_softmax": False, "item_first": True})
    check(status == 200 and len(r["scores"]) == 1 and sum(r["scores"][0]) < 1, f"one text item, item_first: {r}")
    status, _, r = server.post("/v1/score", {"query": "The capital of France is", "items": ["Paris"],
                                             "label_token_ids": [999999], "apply_softmax": True})
    check(status == 400 and r["type"] == "BadRequestError" and "Token ID 999999 is out of vocabulary" in r["message"],
          f"SGLang's invalid-token test: {r}")
    status, _, r = server.post("/v1/score", {"query": "q", "items": [], "label_token_ids": [1]})
    check(status == 200 and r["scores"] == [], f"no items: {r}")

# 8. sift loadgen: open-loop Poisson, closed loop, and the search for the highest rate at a p99.
import subprocess
rows_file = f"{work}/rows.jsonl"
with open(rows_file, "w") as f:
    for r in rows: f.write(json.dumps(r) + "\n")
    f.write('{"query": "a bad row", "items": [3]}\n')  # left out with a warning, the others sent
def run_loadgen(rows, *args):
    return subprocess.run([sift, "loadgen", "--url", f"http://127.0.0.1:{server.port}", "--rows", rows, *args],
                          capture_output=True, text=True)
def loadgen(*args):
    out = run_loadgen(rows_file, *args)
    check(out.returncode == 0, f"loadgen {args}: {out.stderr}")
    check(f"{rows_file}:{len(rows) + 1}: " in out.stderr and "(row left out)" in out.stderr, f"bad row: {out.stderr}")
    report = json.loads(out.stdout)
    lines = out.stdout.count("\n")
    check(report["rows_left_out"] == 1 and (lines > 5 if "--pretty" in args else lines == 1), f"report: {out.stdout}")
    return report
with Server(sift, model, "--threads", "1") as server:
    r = loadgen("--rate", "40", "--duration", "1", "--seed", "5", "--pretty")
    lat = r["latency_ms"]
    check(r["sent"] == r["ok"] > 10 and r["errors"] == {} and 0 < lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["max"],
          f"loadgen: {r}")
    served = server.metric('sift_requests_total{route="/v1/label",status="200"}')
    check(served == r["sent"], f"every arrival was one request: {served} vs {r}")
    check(r["labels"] == sum(len(rows[k % len(rows)]["items"]) for k in range(r["sent"])), f"labels counted: {r}")
    r = loadgen("--route", "rerank", "--closed-loop", "--connections", "2", "--duration", "0.5")
    check(r["ok"] > 0 and r["errors"] == {}, f"closed loop, rerank: {r}")
    r = loadgen("--route", "score", "--label-token-ids", "1,2", "--rate", "20", "--duration", "0.5")
    check(r["ok"] > 0 and r["errors"] == {}, f"score route: {r}")
    r = loadgen("--find-max", "--p99-ms", "300", "--rate", "20", "--duration", "0.5", "--bisect-steps", "1")
    # Which trials hold p99 <= 300 ms depends on the machine's load; the search must agree with them.
    held = [t for t in r["trials"] if t["errors"] == {} and t["latency_ms"]["p99"] <= 300]
    check(r["max_rate"] == max((t["rate"] for t in held), default=0) and len(r["trials"]) >= 2
          and (r["labels_per_s"] > 0) == bool(held), f"find-max: {r}")
    # Rows split by the one line rule: bare "\r" endings are three rows, not one unreadable line.
    cr_file = f"{work}/rows_cr.jsonl"
    with open(cr_file, "w", newline="") as f:
        f.write("\r".join(json.dumps(row) for row in rows[:3]) + "\r")
    out = run_loadgen(cr_file, "--rate", "20", "--duration", "0.5")
    check(out.returncode == 0, f"bare-CR rows: {out.stderr}")
    r = json.loads(out.stdout)
    check(r["ok"] > 0 and r["errors"] == {} and r["rows_left_out"] == 0
          and r["labels"] == sum(len(rows[k % 3]["items"]) for k in range(r["sent"])), f"bare-CR rows: {r}")
    # A row longer than --max-line-bytes is left out, named by its line and not parsed; the others are sent.
    long_row = json.dumps({"query": "x" * 200, "items": ["a"]})
    long_file = f"{work}/rows_long.jsonl"
    with open(long_file, "w") as f:
        f.write("\n".join(['{"query": "q", "items": ["a"]}', long_row, '{"query": "r", "items": ["b"]}']) + "\n")
    out = run_loadgen(long_file, "--rate", "20", "--duration", "0.5", "--max-line-bytes", "100")
    want = f"{long_file}:2: line of {len(long_row)} bytes is longer than --max-line-bytes 100 (not parsed) (row left out)"
    check(out.returncode == 0 and want in out.stderr, f"a too-long row: {out.returncode} {out.stderr}")
    r = json.loads(out.stdout)
    check(r["rows_left_out"] == 1 and r["ok"] > 0 and r["labels"] == r["sent"], f"a too-long row: {r}")
PY
echo "serve_api: ok"
