#!/usr/bin/env python3
"""Label a JSON-lines file on a Dask cluster with sift, writing what `sift batch` writes.

    PYTHONPATH=build/python python3 examples/dask_label.py                  # a local cluster
    PYTHONPATH=build/python python3 examples/dask_label.py --scheduler tcp://scheduler:8786

Reads `sift batch`'s input (rows {"id", "query", "items"}, items strings or {"id", "text"},
other fields passed through; default examples/sample.jsonl) as a dask bag of lines in blocks
of --blocksize bytes, labels it block by block with one labeler per worker process
(sift.dask.label_lines), and writes the lines `sift batch --output` would write, byte for
byte, in input order. Without --scheduler it starts a LocalCluster of --workers processes x 1
thread on this machine; with it, the same code runs on a multi-machine cluster (every worker
needs the package, and the labeler directory and the input at the same paths). For outputs
larger than memory, write the bag with .to_textfiles("labels/*.jsonl") instead of gathering
it here.
"""
import argparse
import json
import pathlib
import sys
import time

try:
    import sift.dask  # when dask is missing, its error says what to install
    import dask.bag
    from distributed import Client, LocalCluster
except ModuleNotFoundError as missing:
    if missing.name == "sift":
        sys.exit("dask_label.py: no module sift: build it (make python) and run with PYTHONPATH=build/python")
    if missing.name == "distributed":
        sys.exit("dask_label.py needs distributed, which this Python cannot import: apt-get install "
                 "python3-distributed on Debian, elsewhere pip install distributed")
    sys.exit(f"dask_label.py: {missing}")

REPOSITORY = pathlib.Path(__file__).resolve().parent.parent


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=str(REPOSITORY / "models" / "default-labeler"), help="labeler directory")
    parser.add_argument("--input", default=str(REPOSITORY / "examples" / "sample.jsonl"), help="JSON-lines rows")
    parser.add_argument("--output", default="-", help="JSON-lines output (default: stdout)")
    parser.add_argument("--scheduler", help="address of a running Dask scheduler (default: a LocalCluster)")
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (default 2)")
    parser.add_argument("--blocksize", type=int, default=16384, help="bytes of input per partition (default 16384)")
    args = parser.parse_args()

    # surrogateescape: bytes that are not UTF-8 reach the labeler as they are (an error line).
    lines = dask.bag.read_text(args.input, blocksize=args.blocksize, encoding="utf-8", errors="surrogateescape")
    with (Client(args.scheduler) if args.scheduler else
          Client(LocalCluster(n_workers=args.workers, threads_per_worker=1, dashboard_address=None))) as client:
        start = time.monotonic()
        written = client.compute(sift.dask.label_lines(lines, args.model)).result()
        seconds = time.monotonic() - start
        workers = len(client.scheduler_info()["workers"])

    output = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")
    with output:
        output.writelines(line + "\n" for line in written)
    results = [json.loads(line) for line in written]
    labels = sum(len(r["scores"]) for r in results if "scores" in r)
    errors = sum("error" in r for r in results)
    print(f"dask_label: {counted(len(results), 'row')} ({counted(errors, 'error')}), {counted(labels, 'label')} in "
          f"{counted(lines.npartitions, 'partition')} on {counted(workers, 'worker')} in {seconds:.1f} s "
          f"({labels / seconds:.0f} labels/s)", file=sys.stderr)


def counted(n, noun):
    """1 row, 2 rows."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


if __name__ == "__main__":
    main()
