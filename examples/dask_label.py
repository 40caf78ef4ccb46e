#!/usr/bin/env python3
"""Label JSON-lines rows on a Dask cluster with sift (the Python package; `make python`).

    PYTHONPATH=build/python python3 examples/dask_label.py                  # a local cluster
    PYTHONPATH=build/python python3 examples/dask_label.py --scheduler tcp://scheduler:8786

Reads rows {"id", "query", "items"} (items: strings or {"id", "text"}; default
examples/sample.jsonl), labels them partition by partition with one labeler per worker process
(sift.dask.label) and writes one line per row, in input order: {"id", "scores", "labels",
"artifact": {"version", "threshold"}}, or {"id", "error"} for a row that could not be scored.
Without --scheduler it starts a LocalCluster of --workers processes x 1 thread on this machine;
with it, the same code runs on a multi-machine cluster (each worker needs the package and the
labeler directory at the same path)."""
import argparse
import json
import pathlib
import sys
import time

import dask.dataframe
import pandas
from distributed import Client, LocalCluster

import sift.dask

REPOSITORY = pathlib.Path(__file__).resolve().parent.parent


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=str(REPOSITORY / "models" / "default-labeler"), help="labeler directory")
    parser.add_argument("--input", default=str(REPOSITORY / "examples" / "sample.jsonl"), help="JSON-lines rows")
    parser.add_argument("--output", default="-", help="JSON-lines output (default: stdout)")
    parser.add_argument("--scheduler", help="address of a running Dask scheduler (default: a LocalCluster)")
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (default 2)")
    parser.add_argument("--partitions", type=int, default=4, help="partitions of the input (default 4)")
    args = parser.parse_args()

    rows = pandas.read_json(args.input, lines=True, dtype=False)
    frame = dask.dataframe.from_pandas(rows[["id", "query", "items"]], npartitions=args.partitions, sort=False)
    sift_json = json.loads((pathlib.Path(args.model) / "sift.json").read_text())  # what every line names
    artifact = {"version": sift_json["version"], "threshold": sift_json["threshold"]}

    with (Client(args.scheduler) if args.scheduler else
          Client(LocalCluster(n_workers=args.workers, threads_per_worker=1, dashboard_address=None))) as client:
        start = time.monotonic()
        scored = sift.dask.label(frame, args.model).compute()
        seconds = time.monotonic() - start
        workers = len(client.scheduler_info()["workers"])

    output = sys.stdout if args.output == "-" else open(args.output, "w")
    with output:
        for row in scored.itertuples():
            line = ({"id": row.id, "error": row.error} if row.error is not None else
                    {"id": row.id, "scores": row.scores, "labels": row.labels, "artifact": artifact})
            output.write(json.dumps(line, default=lambda value: value.item()) + "\n")  # numpy ids
    labels = sum(len(s) for s in scored["scores"] if s is not None)
    errors = int(scored["error"].notna().sum())
    print(f"dask_label: {len(scored)} rows ({errors} errors), {labels} labels on {workers} workers in "
          f"{seconds:.1f} s ({labels / seconds:.0f} labels/s)", file=sys.stderr)


if __name__ == "__main__":
    main()
