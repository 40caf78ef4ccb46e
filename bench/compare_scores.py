#!/usr/bin/env python3
"""How far one `sift score` output is from another on the same input (bench/weights_agreement.sh).

    compare_scores.py BASE.jsonl OTHER.jsonl --threshold T [--truth INPUT.jsonl] [--name NAME]

Prints one markdown table row: pairs compared, max and mean |P(yes) difference|, label
agreement at T (label = score >= T, as sift labels), pairs whose label flips, and how many
base scores lie within 0.01 of T (the pairs a small score change can flip); with --truth (the
synth input: rows carry "truth", one flag per item), each side's agreement with the clean truth as well.
Rows are matched by "id" and items by position; a row with an error on either side is an
error here (the comparison would be incomplete).
"""
import argparse
import json
import sys


def read_rows(path):
    rows = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            row = json.loads(line)
            if "error" in row:
                sys.exit(f"compare_scores.py: {path}:{n}: the row failed: {row['error']}")
            rows[row["id"]] = row["scores"]
    return rows


def read_truth(path):
    truth = {}
    with open(path) as f:
        for line in f:
            row = json.loads(line)
            truth[row["id"]] = [bool(t) for t in row["truth"]]
    return truth


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("other")
    parser.add_argument("--threshold", type=float, required=True)
    parser.add_argument("--truth")
    parser.add_argument("--name", default="")
    args = parser.parse_args()
    base, other = read_rows(args.base), read_rows(args.other)
    if base.keys() != other.keys():
        sys.exit(f"compare_scores.py: the two outputs hold different rows ({len(base)} vs {len(other)})")
    truth = read_truth(args.truth) if args.truth else None
    n = agree = near = 0
    total_gap = max_gap = 0.0
    truth_agree = [0, 0]
    for row_id, scores in base.items():
        theirs = other[row_id]
        if len(scores) != len(theirs):
            sys.exit(f"compare_scores.py: row {row_id}: {len(scores)} vs {len(theirs)} scores")
        for k, (a, b) in enumerate(zip(scores, theirs)):
            gap = abs(a - b)
            total_gap += gap
            max_gap = max(max_gap, gap)
            agree += (a >= args.threshold) == (b >= args.threshold)
            near += abs(a - args.threshold) < 0.01
            if truth is not None:
                truth_agree[0] += (a >= args.threshold) == truth[row_id][k]
                truth_agree[1] += (b >= args.threshold) == truth[row_id][k]
            n += 1
    if n == 0:
        sys.exit("compare_scores.py: nothing to compare")
    cells = [args.name, f"{n:,}", f"{max_gap:.2e}", f"{total_gap / n:.2e}", f"{agree / n:.4%}", f"{n - agree:,}",
             f"{near:,}"]
    if truth is not None:
        cells += [f"{truth_agree[0] / n:.4f}", f"{truth_agree[1] / n:.4f}"]
    print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
