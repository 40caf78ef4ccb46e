"""Shared checks of the e2e label tests (label_cli.sh on SQLite, label_postgres.sh on a real
PostgreSQL server): running `sift label` and `sift labels export`, comparing stores, and the
kill -9 / re-run test. Imported by the scripts with tests/e2e/lib on sys.path."""
import json
import os
import signal
import subprocess
import sys
import time


def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)


class Sift:
    def __init__(self, binary, model, catalog):
        self.binary, self.model, self.catalog = binary, model, catalog

    def run(self, *args, ok=True):
        out = subprocess.run([self.binary, *args], capture_output=True, text=True)
        if ok:
            check(out.returncode == 0, f"sift {' '.join(args)} failed ({out.returncode}): {out.stderr}")
        return out

    def label_args(self, profiles, store, *extra):
        return [self.binary, "label", "--model", self.model, "--catalog", self.catalog,
                "--profiles", profiles, "--store", store, *extra]

    def label(self, profiles, store, *extra):
        """Runs sift label; returns (summary dict from the one stdout line, stderr)."""
        out = subprocess.run(self.label_args(profiles, store, *extra), capture_output=True, text=True)
        check(out.returncode == 0, f"sift label {extra} failed ({out.returncode}): {out.stderr}")
        lines = out.stdout.splitlines()
        check(len(lines) == 1, f"sift label prints one summary line, got: {out.stdout!r}")
        return json.loads(lines[0]), out.stderr

    def export(self, store):
        out = self.run("labels", "export", "--store", store)
        return [json.loads(line) for line in out.stdout.splitlines()]

    def get(self, store, member):
        return json.loads(self.run("labels", "get", "--store", store, "--member", member).stdout)


def without_run(rows):
    """Export rows minus what differs between two runs that judged the same things."""
    return [{k: v for k, v in row.items() if k not in ("run_id", "labeled_at")} for row in rows]


def by_member(rows):
    members = {}
    for row in rows:
        members.setdefault(row["member"], []).append(row)
    return members


def check_rounds(rows, k, stop_below):
    """Every member's rounds follow the rule: ranks 1..n in rounds of k, labels follow the
    threshold, and only the last round may fall below stop_below."""
    for member, judged in by_member(rows).items():
        check([r["rank"] for r in judged] == list(range(1, len(judged) + 1)), f"{member}: ranks {judged}")
        rounds = {}
        for r in judged:
            check(r["round"] == (r["rank"] - 1) // k + 1, f"{member}: rank {r['rank']} in round {r['round']}")
            check(r["label"] == (r["score"] >= r["threshold"]), f"{member}: label does not follow the threshold: {r}")
            rounds.setdefault(r["round"], []).append(r["label"])
        last = max(rounds)
        for number, labels in rounds.items():
            if number != last:
                check(sum(labels) >= stop_below * len(labels),
                      f"{member}: went on after round {number} with {sum(labels)}/{len(labels)} accepted")


def kill_then_resume(sift, profiles, store, reference_rows, n_profiles, extra, kill_after_members=10):
    """Starts sift label, kill -9s it once kill_after_members members are stored, checks that
    no member is stored in part, re-runs it, and checks the store equals an uninterrupted
    run's (reference_rows) but for run ids and times. Returns the members stored at the kill."""
    process = subprocess.Popen(sift.label_args(profiles, store, *extra), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    stored = set()
    while time.time() < deadline:
        check(process.poll() is None, "the run finished before it could be killed (give it more work)")
        if os.path.exists(store) or store.startswith("postgresql://"):
            out = subprocess.run([sift.binary, "labels", "export", "--store", store], capture_output=True, text=True)
            if out.returncode == 0:
                stored = {json.loads(line)["member"] for line in out.stdout.splitlines()}
                if len(stored) >= kill_after_members:
                    break
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    after_kill = sift.export(store)
    killed_members = by_member(without_run(after_kill))
    check(len(killed_members) < n_profiles, f"kill -9 came after the run had stored all {n_profiles} members")
    reference = by_member(without_run(reference_rows))
    for member, rows in killed_members.items():
        check(rows == reference[member], f"member {member} is stored in part or differently after kill -9")

    summary, _ = sift.label(profiles, store, *extra)
    check(summary["skipped_unchanged"] == len(killed_members),
          f"the re-run skips the {len(killed_members)} members stored before the kill: {summary}")
    check(summary["judged"] == n_profiles - len(killed_members), f"the re-run judges the rest: {summary}")
    check(without_run(sift.export(store)) == without_run(reference_rows),
          "killed + re-run store differs from an uninterrupted run's")
    return len(killed_members)
