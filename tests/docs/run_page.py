#!/usr/bin/env python3
"""Runs every shell and Python block of a documentation page, as a reader would type them.

    run_page.py PAGE SIFT_BINARY REPO_ROOT [--section HEADING] [--workdir DIR] [--stdout FILE]

The blocks (tests/docs/doc_pages.py says which) run in page order in one bash, `set -e`, so a
block may use what an earlier one made (a file, `$!` of a server started in the background).
The working directory is a fresh folder laid out like the repository, where the pages' paths
hold: models/ and examples/ are copies (a page may calibrate a labeler in place), tools/ and
bench/ are links, build/ holds links to the sift and sift-train binaries and the Python
package, and `sift` is on PATH. It runs in a network namespace of its own when the system
allows one, so a page's `sift serve` on port 8000 never meets another program's server; the
namespace's loopback is brought up first. Background processes a page leaves behind are
stopped at the end. Exit 77 (skipped) when the page needs what this build lacks (sift-train,
the Python package), or when a page serves over HTTP and no network namespace can be made
while its ports are taken.
"""
import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from doc_pages import read_page, section_blocks  # noqa: E402

SKIP = 77
PY_MARK = "SIFT_DOCS_PYTHON"


def layout(work, sift, repo):
    """The repository's layout in `work`, as the pages' relative paths expect it."""
    for name in ("models", "examples"):
        shutil.copytree(os.path.join(repo, name), os.path.join(work, name), symlinks=True)
    for name in ("tools", "bench", "python", "docs"):
        os.symlink(os.path.join(repo, name), os.path.join(work, name))
    build = os.path.join(work, "build")
    os.mkdir(build)
    binary_dir = os.path.dirname(os.path.abspath(sift))
    os.symlink(os.path.abspath(sift), os.path.join(build, "sift"))
    for name in ("sift-train", "python"):
        if os.path.exists(os.path.join(binary_dir, name)):
            os.symlink(os.path.join(binary_dir, name), os.path.join(build, name))


def script_of(blocks, page_name):
    """One bash script: each block after a marker naming its line, Python blocks as files."""
    parts = ["set -eo pipefail",
             f"trap 'echo \"docs test: {page_name}:$SIFT_DOCS_LINE: this block failed (exit $?)\" >&2' ERR"]
    for n, block in enumerate(blocks):
        parts.append(f"SIFT_DOCS_LINE={block.line}")
        if block.kind == "python":
            parts.append(f"cat > .docs_block_{n}.py <<'{PY_MARK}'\n{block.text}{PY_MARK}")
            parts.append(f"python3 .docs_block_{n}.py")
        else:
            parts.append(block.text)
    parts.append("trap - ERR")
    return "\n".join(parts) + "\n"


def needs_missing(blocks, build):
    """What the blocks need that this build lacks, or None."""
    text = "\n".join(b.text for b in blocks)
    if "sift train " in text and not os.path.exists(os.path.join(build, "sift-train")):
        return "sift-train (SIFT_BUILD_TRAIN=OFF)"
    if (any(b.kind == "python" for b in blocks) or "build/python" in text) and \
            not os.path.exists(os.path.join(build, "python")):
        return "the Python package (SIFT_BUILD_PYTHON=OFF)"
    return None


def namespace_command():
    """A command prefix that runs its command in a fresh network namespace with loopback up."""
    up = "ip link set lo up 2>/dev/null || python3 -c 'import fcntl, socket, struct; " \
         "fcntl.ioctl(socket.socket(), 0x8914, struct.pack(\"16sH\", b\"lo\", 0x41))'"
    for prefix in (["unshare", "--net"], ["unshare", "--net", "--map-root-user"]):
        probe = subprocess.run(prefix + ["bash", "-c", up], capture_output=True)
        if probe.returncode == 0:
            return prefix + ["bash", "-c", up + ' && exec "$@"', "docs-test"]
    return None


def port_free(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page")
    parser.add_argument("sift")
    parser.add_argument("repo")
    parser.add_argument("--section", help="run only the blocks under this `## ` heading")
    parser.add_argument("--workdir", help="run in this (empty) folder and keep it")
    parser.add_argument("--stdout", help="also write the page's stdout to this file")
    args = parser.parse_args()

    page = read_page(args.page)
    blocks = section_blocks(page, args.section) if args.section else page.blocks
    runnable = [b for b in blocks if b.runs]
    shown = [b for b in blocks if b.kind in ("sh", "python") and not b.runs]
    page_name = os.path.relpath(args.page, args.repo)
    print(f"{page_name}: {len(runnable)} blocks to run, {len(shown)} shown only (no-test, lines "
          f"{', '.join(str(b.line) for b in shown) or '-'})")
    if not runnable:
        return 0

    work = args.workdir or tempfile.mkdtemp(prefix="sift-docs-")
    layout(work, args.sift, os.path.abspath(args.repo))
    missing = needs_missing(runnable, os.path.join(work, "build"))
    if missing:
        print(f"{page_name}: skipped: the page needs {missing}, which this build lacks")
        return SKIP

    env = dict(os.environ, SIFT_REPO=os.path.abspath(args.repo),
               PYTHONPATH=os.path.join(work, "build", "python"),
               # Debian's python3 (with dask, pandas) before any other on PATH
               PATH=os.pathsep.join([os.path.join(work, "build"), "/usr/bin", os.environ.get("PATH", "")]))
    command = ["bash", "-c", script_of(runnable, page_name)]
    serves = "sift serve" in "\n".join(b.text for b in runnable)
    prefix = namespace_command() if serves else []
    if prefix is None:
        if not all(port_free(p) for p in (8000, 8001, 8002)):
            print(f"{page_name}: skipped: no network namespace here and a port of 8000-8002 is taken")
            return SKIP
        prefix = []
    # stdout goes to a file, not a pipe: a server the page left running keeps a pipe open.
    with tempfile.TemporaryFile() as captured:
        process = subprocess.Popen(prefix + command, cwd=work, env=env, stdout=captured, start_new_session=True)
        status = process.wait()
        try:
            os.killpg(process.pid, signal.SIGTERM)  # whatever the page left running in the background
        except ProcessLookupError:
            pass
        captured.seek(0)
        out = captured.read().decode("utf-8", "replace")
    sys.stdout.write(out)
    if args.stdout:
        open(args.stdout, "w").write(out)
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    if status != 0:
        print(f"{page_name}: FAILED (exit {status})")
        return 1
    print(f"{page_name}: every block ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
