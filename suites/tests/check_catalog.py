#!/usr/bin/env python3
"""Judge the results of run_catalog.sh: every catalog suite run on each board.

usage: check_catalog.py DIR BOARD...
DIR holds catalog.json (`labmesh suites --json`) and, per board,
BOARD.json (`labmesh run --json`) and BOARD.rc (its exit status).

Checked, per board: a JSON report naming the board's kernel; exactly the
catalog's suites, each once (a suite silently dropped fails); each suite
PASS or SKIP with a reason, never FAIL or ERROR; metrics finite with
units; the exit status 0; at least MIN_PASS real passes (a board that
skips everything fails). Across the two boards: every suite that produced
results (cases or metrics) on both, whatever its status, has the same set
of case paths and the same metric names and units on both; and at least
MIN_COMPARED suites were compared (the check cannot pass vacuously).
On the host board, a FAIL of a suite that judges the host kernel's own
state (HOST_STATE: its boot log) is reported, not asserted: that state is
not under the test's control, and the same tree must pass on any machine.
Everything else about it (structure, paths, units, the floor) is asserted;
run_catalog.sh shows boot-health itself judging controlled logs on the
host board's own path.
Prints TAP-like lines and "N failed"; exits 1 when anything failed.
"""
import json
import math
import os
import sys

# Real passes each board must report. Counted on this machine when the
# floors were set (36 suites): host 32 PASS, 4 SKIP (no kselftest or LTP
# install, no module tools, no RTC); the x86_64 QEMU guest (busybox) 28
# PASS, 8 SKIP (also no cyclictest, fio, hackbench, iperf3, stress-ng, no
# disk filesystem). The floors sit a little under, so one suite that
# starts skipping on a differently equipped machine does not fail the
# test, but a board that skips wholesale does.
MIN_PASS = {"host": 30, "qemu-x86_64": 26}
MIN_PASS_OTHER = 1  # a board not named above
# Suites with results on both boards, compared: 28 when counted (every
# suite that ran on the QEMU guest); the floor is most of the catalog.
MIN_COMPARED = 25
# Suites that judge the state the host booted in, not what the test set up.
HOST_STATE = {"boot-health"}

fails = 0


def bad(msg):
    global fails
    fails += 1
    print("not ok -", msg)


def main():
    work, boards = sys.argv[1], sys.argv[2:]
    try:
        catalog = [s["name"] for s in json.load(open(os.path.join(work, "catalog.json")))["suites"]]
    except Exception as e:
        bad("no catalog (labmesh suites --json): %s" % e)
        catalog = []
    print("# catalog: %d suites" % len(catalog))
    runs = {}
    for b in boards:
        rcf = os.path.join(work, b + ".rc")
        rc = open(rcf).read().strip() if os.path.exists(rcf) else "?"
        try:
            d = json.load(open(os.path.join(work, b + ".json")))
        except Exception as e:
            bad("%s: no JSON result (exit %s): %s" % (b, rc, e))
            continue
        suites = d["suites"]
        runs[b] = {s["name"]: s for s in suites}
        print("# %s: Linux %s %s, %d suites, exit %s" % (b, d["kernel"]["release"],
              d["kernel"]["machine"], len(suites), rc))
        names = [s["name"] for s in suites]
        if len(suites) != len(catalog):
            bad("%s: %d suites reported, the catalog has %d" % (b, len(suites), len(catalog)))
        missing = sorted(set(catalog) - set(names))
        extra = sorted(set(names) - set(catalog))
        twice = sorted(n for n in set(names) if names.count(n) > 1)
        if missing:
            bad("%s: catalog suites not reported: %s" % (b, ", ".join(missing)))
        if extra:
            bad("%s: suites reported that are not in the catalog: %s" % (b, ", ".join(extra)))
        if twice:
            bad("%s: suites reported more than once: %s" % (b, ", ".join(twice)))
        board_fails = fails
        passes = 0
        reported = 0  # host-state FAILs, which also make the exit status 1
        for s in suites:
            st, why = s["status"], s["reason"] or ""
            line = "%s %s: %s %s" % (b, s["name"], st, why)
            host_state = b == "host" and st == "FAIL" and s["name"] in HOST_STATE
            if host_state:
                reported += 1
                print("# %s (the host's own state: reported, not asserted)" % line)
                for c in s["cases"]:
                    if c["status"] == "FAIL":
                        print("#   %s %s %s" % (c["status"], c["path"], c["message"] or ""))
            elif st not in ("PASS", "SKIP"):
                bad(line)
                for c in s["cases"]:
                    if c["status"] not in ("PASS", "SKIP") and not c["known_failure"]:
                        print("#   %s %s %s" % (c["status"], c["path"], c["message"] or ""))
                continue
            if st == "SKIP" and not why:
                bad(line + " (a SKIP without a reason)")
                continue
            for m in s["metrics"]:
                if not isinstance(m["value"], (int, float)) or not math.isfinite(m["value"]) or not m["unit"]:
                    bad("%s %s metric %s: %r %r" % (b, s["name"], m["name"], m["value"], m["unit"]))
            if st == "PASS":
                passes += 1
            if not host_state:
                print("ok - " + line)
        floor = MIN_PASS.get(b, MIN_PASS_OTHER)
        print("# %s: %d PASS, %d SKIP" % (b, passes,
              sum(1 for s in suites if s["status"] == "SKIP")))
        if passes < floor:
            bad("%s: %d suites passed, fewer than the floor of %d" % (b, passes, floor))
        else:
            print("ok - %s: %d suites passed (floor %d)" % (b, passes, floor))
        if rc != "0" and fails == board_fails and not reported:
            bad("%s: exit status %s with every suite PASS or SKIP" % (b, rc))
    if len(runs) == 2:
        compare(runs[boards[0]], runs[boards[1]])
    print("%d failed" % fails)
    return 1 if fails else 0


def has_results(s):
    return bool(s["cases"]) or bool(s["metrics"])


def compare(h, q):
    """Same case paths and metric names and units for every suite with
    results on both boards, PASS or FAIL alike."""
    compared = 0
    for name in sorted(set(h) & set(q)):
        a, b = h[name], q[name]
        if not has_results(a) or not has_results(b):
            continue
        compared += 1
        pa = {c["path"] for c in a["cases"]}
        pb = {c["path"] for c in b["cases"]}
        ua = {m["name"]: m["unit"] for m in a["metrics"]}
        ub = {m["name"]: m["unit"] for m in b["metrics"]}
        if pa != pb:
            bad("%s (%s / %s): case paths differ between boards: %s" % (
                name, a["status"], b["status"], sorted(pa ^ pb)))
        elif ua != ub:
            diff = sorted(k for k in set(ua) | set(ub) if ua.get(k) != ub.get(k))
            bad("%s (%s / %s): metric names or units differ between boards: %s" % (
                name, a["status"], b["status"],
                ", ".join("%s: %s / %s" % (k, ua.get(k, "absent"), ub.get(k, "absent"))
                          for k in diff)))
        else:
            print("ok - %s (%s / %s): %d paths and %d metrics identical on both boards" % (
                name, a["status"], b["status"], len(pa), len(ua)))
    print("# %d suites with results on both boards compared" % compared)
    if compared < MIN_COMPARED:
        bad("only %d suites compared across boards, fewer than the floor of %d" % (
            compared, MIN_COMPARED))


if __name__ == "__main__":
    sys.exit(main())
