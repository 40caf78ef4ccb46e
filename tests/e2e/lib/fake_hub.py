"""A local stand-in for the Hugging Face Hub, for tests/e2e/hub_models.sh: it answers the Hub's
resolve paths with the Hub's headers and redirects, over plain HTTP on 127.0.0.1.

  python3 fake_hub.py add ROOT ORG/NAME DIR [REF ...]
      adds DIR's files to the repository as a commit (its hash: SHA-1 of the files' names and
      bytes) and points each REF (a branch or tag) at it; prints the commit.
  python3 fake_hub.py serve ROOT PORT_FILE LOG_FILE [--cut-first] [--corrupt]
      serves ROOT; writes its port (bound to 0) to PORT_FILE and one JSON line per request
      ({"method", "path", "range", "authorization"}) to LOG_FILE.

ROOT/<org>/<name>/refs.json maps refs to commits; ROOT/<org>/<name>/<commit>/ holds the files;
ROOT/<org>/<name>/gated holds the token a gated repository wants. As the Hub answers
HEAD or GET /<org>/<name>/resolve/<revision>/<file>:
  - a file that is not *.safetensors: 200, ETag "<git blob SHA-1>", Content-Length, X-Repo-Commit;
  - a *.safetensors file (LFS): 302 to http://127.0.0.1:PORT/lfs/<sha256> (the "CDN"), with
    X-Linked-Etag "<sha256>", X-Linked-Size, ETag, X-Repo-Commit;
  - an unknown repository: 401 X-Error-Code RepoNotFound; a gated one without the token: 401
    GatedRepo, with another token: 403; an unknown revision: 404 RevisionNotFound; a missing
    file: 404 EntryNotFound with X-Repo-Commit.
GET /lfs/<sha256> sends the bytes, a "Range: bytes=N-" as 206 from N. A request to /lfs/ that
carries an Authorization header is answered 400 (a token must never go to the CDN).
--cut-first: the first GET of each LFS file announces its whole length, sends half, and closes.
--corrupt: every LFS file is sent with its last byte changed.
"""
import hashlib
import http.server
import json
import os
import sys
import threading
import urllib.parse


def add(root, repo, src, refs):
    names = sorted(os.listdir(src))
    digest = hashlib.sha1()
    for name in names:
        digest.update(name.encode() + b"\0" + open(os.path.join(src, name), "rb").read())
    commit = digest.hexdigest()
    target = os.path.join(root, repo, commit)
    os.makedirs(target, exist_ok=True)
    for name in names:
        with open(os.path.join(src, name), "rb") as f, open(os.path.join(target, name), "wb") as out:
            out.write(f.read())
    refs_path = os.path.join(root, repo, "refs.json")
    table = json.load(open(refs_path)) if os.path.exists(refs_path) else {}
    for ref in refs:
        table[ref] = commit
    json.dump(table, open(refs_path, "w"))
    print(commit)


def serve(root, port_file, log_file, cut_first, corrupt):
    lock = threading.Lock()
    cut_done = set()
    lfs_blobs = {}  # sha256 -> path

    def git_blob_sha1(data):
        return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def log_request_line(self):
            with lock, open(log_file, "a") as log:
                log.write(json.dumps({"method": self.command, "path": self.path,
                                      "range": self.headers.get("Range"),
                                      "authorization": self.headers.get("Authorization")}) + "\n")

        def answer(self, status, headers, body=b""):
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            if "Content-Length" not in headers:
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD" and body:
                self.wfile.write(body)

        def do_HEAD(self):
            self.handle_request()

        def do_GET(self):
            self.handle_request()

        def handle_request(self):
            self.log_request_line()
            path = urllib.parse.urlsplit(self.path).path
            if path.startswith("/lfs/"):
                return self.send_lfs(path[len("/lfs/"):])
            parts = path.lstrip("/").split("/", 4)
            if len(parts) < 5 or parts[2] != "resolve":
                return self.answer(404, {}, b"not a resolve path")
            repo = parts[0] + "/" + parts[1]
            revision, file = urllib.parse.unquote(parts[3]), urllib.parse.unquote(parts[4])
            repo_dir = os.path.join(root, repo)
            if not os.path.isdir(repo_dir):
                return self.answer(401, {"X-Error-Code": "RepoNotFound"}, b"Repository Not Found")
            gated = os.path.join(repo_dir, "gated")
            if os.path.exists(gated):
                token = open(gated).read().strip()
                sent = self.headers.get("Authorization")
                if sent is None:
                    return self.answer(401, {"X-Error-Code": "GatedRepo"}, b"Access to this model is restricted")
                if sent != "Bearer " + token:
                    return self.answer(403, {"X-Error-Code": "GatedRepo"}, b"Your token has no access")
            refs = json.load(open(os.path.join(repo_dir, "refs.json")))
            commit = refs.get(revision, revision)
            if not os.path.isdir(os.path.join(repo_dir, commit)) or "/" in commit or commit.startswith("."):
                return self.answer(404, {"X-Error-Code": "RevisionNotFound"}, b"Revision Not Found")
            file_path = os.path.join(repo_dir, commit, file)
            if "/" in file or not os.path.isfile(file_path):
                return self.answer(404, {"X-Error-Code": "EntryNotFound", "X-Repo-Commit": commit},
                                   b"Entry not found")
            data = open(file_path, "rb").read()
            if file.endswith(".safetensors"):
                sha = hashlib.sha256(data).hexdigest()
                with lock:
                    lfs_blobs[sha] = file_path
                port = self.server.server_address[1]
                return self.answer(302, {"Location": f"http://127.0.0.1:{port}/lfs/{sha}?signed=1",
                                         "X-Linked-Etag": f'"{sha}"', "X-Linked-Size": str(len(data)),
                                         "ETag": f'"{git_blob_sha1(sha.encode())}"', "X-Repo-Commit": commit,
                                         "Content-Length": "0"})
            return self.answer(200, {"ETag": f'"{git_blob_sha1(data)}"', "X-Repo-Commit": commit,
                                     "Content-Length": str(len(data))}, data)

        def send_lfs(self, sha):
            if self.headers.get("Authorization") is not None:
                return self.answer(400, {}, b"a token was sent to the CDN")
            with lock:
                path = lfs_blobs.get(sha)
            if path is None:
                return self.answer(404, {}, b"no such blob")
            data = bytearray(open(path, "rb").read())
            if corrupt:
                data[-1] ^= 0xFF
            start = 0
            wanted = self.headers.get("Range")
            if wanted:
                start = int(wanted[len("bytes="):].rstrip("-"))
            with lock:
                cut = cut_first and sha not in cut_done and self.command == "GET"
                cut_done.add(sha)
            body = bytes(data[start:])
            headers = {"Content-Length": str(len(body))}
            if wanted:
                headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
            if cut:
                self.send_response(206 if wanted else 200)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)
                return
            self.answer(206 if wanted else 200, headers, body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    if sys.argv[1] == "add":
        add(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    else:
        serve(sys.argv[2], sys.argv[3], sys.argv[4], "--cut-first" in sys.argv, "--corrupt" in sys.argv)
