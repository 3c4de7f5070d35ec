#!/usr/bin/env python3
"""The judge of suites-catalog-boards (check_catalog.py) on made-up reports:
it passes a good pair of boards, reports without failing a host whose own
boot log makes boot-health FAIL, and fails when a board loses a suite or a
case path, when any other suite FAILs, when boot-health FAILs on a board
other than the host, and when a metric loses its unit.
usage: test_check_catalog.py   (prints TAP, exits 1 on a failure)
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = ["boot-health"] + ["suite%02d" % i for i in range(31)]


def report(board):
    suites = []
    for n in NAMES:
        cases = [{"path": "%s.a" % n, "status": "PASS", "message": None, "known_failure": False},
                 {"path": "%s.b" % n, "status": "PASS", "message": None, "known_failure": False}]
        metrics = [{"name": "boot_time", "value": 1.5, "unit": "s"}] if n == "boot-health" else []
        suites.append({"name": n, "status": "PASS", "reason": None, "cases": cases,
                       "metrics": metrics})
    return {"kernel": {"release": "6.1.0", "machine": "x86_64"}, "suites": suites}


def judge(host, qemu, host_rc=0):
    with tempfile.TemporaryDirectory() as d:
        json.dump({"suites": [{"name": n} for n in NAMES]}, open(os.path.join(d, "catalog.json"), "w"))
        for b, r, rc in (("host", host, host_rc), ("qemu-x86_64", qemu, 0)):
            json.dump(r, open(os.path.join(d, b + ".json"), "w"))
            open(os.path.join(d, b + ".rc"), "w").write("%d\n" % rc)
        p = subprocess.run([sys.executable, os.path.join(HERE, "check_catalog.py"), d,
                            "host", "qemu-x86_64"], capture_output=True, text=True)
        return p.returncode, p.stdout


def suite(r, name):
    return next(s for s in r["suites"] if s["name"] == name)


def fail_case(r, name, msg):
    s = suite(r, name)
    s["status"] = "FAIL"
    s["reason"] = "1 case failed"
    s["cases"][0]["status"] = "FAIL"
    s["cases"][0]["message"] = msg


SRSO = "[    0.205459] Speculative Return Stack Overflow: WARNING: See ... for mitigation options."
failures = 0


def expect(what, want_rc, host, qemu, host_rc=0, needle=None):
    global failures
    rc, out = judge(host, qemu, host_rc)
    ok = (rc == 0) == (want_rc == 0) and (needle is None or needle in out)
    print("%s - %s: exit %d" % ("ok" if ok else "not ok", what, rc))
    if not ok:
        failures += 1
        print("".join("#   " + line + "\n" for line in out.splitlines()[-15:]))


good = report("host")
expect("two good boards pass", 0, good, report("qemu"))

h = copy.deepcopy(good)
fail_case(h, "boot-health", SRSO)
expect("a host whose own boot log fails boot-health is reported, not failed", 0, h,
       report("qemu"), host_rc=1, needle="reported, not asserted")

q = report("qemu")
fail_case(q, "boot-health", "[ 3.6] WARNING: CPU: 0 PID: 82 at x.c:48 f+0x20/0x1000")
expect("boot-health FAIL on the QEMU board fails", 1, good, q)

h = copy.deepcopy(good)
fail_case(h, "suite05", "broken")
expect("another suite FAIL on the host fails", 1, h, report("qemu"), host_rc=1)

h = copy.deepcopy(good)
h["suites"] = [s for s in h["suites"] if s["name"] != "suite07"]
expect("the host losing a suite fails", 1, h, report("qemu"), needle="suite07")

q = report("qemu")
suite(q, "suite09")["cases"].pop()
expect("a board losing a case path fails", 1, good, q, needle="case paths differ")

h = copy.deepcopy(good)
fail_case(h, "boot-health", SRSO)
suite(h, "boot-health")["metrics"][0]["unit"] = ""
expect("a reported host suite still needs its metric units", 1, h, report("qemu"), host_rc=1)

h = copy.deepcopy(good)
suite(h, "boot-health")["cases"].pop()
fail_case(h, "boot-health", SRSO)
expect("a reported host suite still needs its case paths", 1, h, report("qemu"), host_rc=1,
       needle="case paths differ")

print("%d failed" % failures)
sys.exit(1 if failures else 0)
