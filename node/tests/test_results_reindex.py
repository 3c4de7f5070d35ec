#!/usr/bin/env python3
"""`store reindex` on a store of 200,000 test cases gives byte-identical answers.

Fills a home with synthetic signed run records (5 commits x 4 labs x 10 boards,
4 suites x 250 cases each: 200 runs, 200,000 cases), records the output of the
matrix (text and JSON), the list (JSON), compare (JSON), history (JSON) and a
KCIDB export, rebuilds the index from the records with `store reindex`, and
asserts every answer is byte-identical; then `store check` passes on every
record and feed. LM_TEST_LONG=1 doubles the store.

usage: test_results_reindex.py LM_RESULTS
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOOL = sys.argv[1]
failed = 0


def check(cond, what):
    global failed
    if not cond:
        print("FAIL:", what)
        failed += 1


def run(*args, rc=0):
    p = subprocess.run([TOOL, *args], capture_output=True)
    if rc is not None and p.returncode != rc:
        print("command", args, "exit", p.returncode,
              p.stderr.decode(errors="replace")[:500])
        check(False, "exit status of %s" % (args[0],))
    return p.stdout


def commit(i):
    return hashlib.blake2b(b"commit-%d" % i, digest_size=32).hexdigest()[:40]


def answers(home):
    h = ["--home", home]
    return {
        "matrix": run("query", *h, "--commit", commit(0)),
        "matrix-json": run("query", *h, "--commit", commit(1)[:12], "--json"),
        "list-json": run("query", *h, "--list", "--json", "--status",
                         "FAIL,ERROR"),
        "list-board": run("query", *h, "--list", "--board", "board-2-3",
                          "--commit", commit(4)),
        "compare-json": run("compare", *h, commit(0), commit(1), "--json",
                            rc=None),
        "history-json": run("history", *h, "suite2.group01.case_0150",
                            "--json"),
        "kcidb": run("export", *h, "--kcidb", "--lab", "lab-c", "--commit",
                     commit(2)),
    }


def main():
    long = os.environ.get("LM_TEST_LONG") == "1"
    home = tempfile.mkdtemp(prefix="lm-reindex-")
    try:
        out = run("synth", "--home", home, "--commits",
                  "10" if long else "5", "--labs", "4", "--boards", "10",
                  "--suites", "4", "--cases", "250")
        cases = int(out.split()[0])
        check(cases == (400000 if long else 200000), "store holds the cases")
        before = answers(home)
        check(b"REGRESSION" not in before["compare-json"] and
              b'"regressions": [' in before["compare-json"],
              "compare answered")
        check(json.loads(before["matrix-json"])["boards"], "matrix has rows")
        check(len(json.loads(before["list-json"])["cases"]) > 1000,
              "list has failing cases")
        out = run("store", "--home", home, "reindex")
        check(out == b"reindexed %d runs\n" % (cases // 1000), "reindex count")
        after = answers(home)
        for k in before:
            check(before[k] == after[k], "byte-identical %s after reindex" % k)
        out = run("store", "--home", home, "check")
        check(out == b"store ok\n", "store check passes")
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print("%s: %d failed" % (os.path.basename(__file__), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
