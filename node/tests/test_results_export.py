#!/usr/bin/env python3
"""KCIDB and JUnit exports of synthetic signed run records.

Checks that the KCIDB document validates against node/tests/kcidb-v5.3.schema.json
(the upstream schema, unedited; kcidb_check.py: format checking on for
date-time and uri), that the schema has teeth (documents with a null, an
extra key, an unknown _-prefixed key, a bad id, a bad status, a non-https
URL, a bad time or a bad URI fail), that
every parent link resolves, that a non-https tree goes to misc only, that a bad
--origin is a usage error, that output is deterministic, and that the JUnit XML
passes `xmllint --noout` and carries exactly the failures the list view shows.

A kernel built from git (laid out by lm-mkruns: a build suite with its
duration metric and a build log) gives a build with its status, compiler,
config_name, log_url and its duration in seconds; a failed build the same;
a kernel not built here no duration.

usage: test_results_export.py LM_RESULTS LM_MKRUNS
"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import jsonschema

import kcidb_check

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = sys.argv[1]
MKRUNS = sys.argv[2]
failed = 0


def check(cond, what):
    global failed
    if not cond:
        print("FAIL:", what)
        failed += 1


def run(*args, rc=0):
    p = subprocess.run([TOOL, *args], capture_output=True)
    if rc is not None and p.returncode != rc:
        print("command", args, "exit", p.returncode, "stderr",
              p.stderr.decode(errors="replace"))
        check(False, "exit status of %s" % (args,))
    return p


def validator():
    with open(os.path.join(HERE, "kcidb-v5.3.schema.json")) as f:
        schema = json.load(f)
    check("$defs" in schema and "patternProperties" not in json.dumps(schema),
          "the vendored schema is the upstream one (no _-prefix allowance)")
    v = kcidb_check.validator()
    fc = v.format_checker
    check(fc.conforms("2020-08-14T23:08:06.967000+00:00", "date-time") and
          not fc.conforms("2020-08-14 23:08", "date-time") and
          fc.conforms("https://x.org/a?b=1&c=d", "uri") and
          not fc.conforms("x y", "uri"), "date-time and uri are checked")
    return v


def test_kcidb(home, v):
    out = os.path.join(home, "kcidb.json")
    run("export", "--home", home, "--kcidb", "--origin", "lab_mesh",
        "--log-base", "https://logs.example.org/blobs", "--out", out)
    with open(out, "rb") as f:
        raw = f.read()
    doc = json.loads(raw)
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    for e in errors[:5]:
        print("schema:", list(e.path), e.message)
    check(not errors, "KCIDB export validates against the v5.3 schema")
    check(doc["version"] == {"major": 5, "minor": 3}, "version 5.3")
    check(b"null" not in raw, "no null anywhere")
    co = {c["id"] for c in doc["checkouts"]}
    bu = {b["id"] for b in doc["builds"]}
    check(len(doc["builds"]) == 12, "one build per run (12)")
    check(all(b["checkout_id"] in co for b in doc["builds"]),
          "every build's checkout exists")
    check(all(t["build_id"] in bu for t in doc["tests"]),
          "every test's build exists")
    # 3 commits x 2 labs x 2 boards x 3 suites x (suite + 20 cases + 2 metrics)
    check(len(doc["tests"]) == 12 * 3 * 23,
          "every suite, case and metric exported")
    suites = [t for t in doc["tests"] if ":s:" in t["id"]]
    check(len(suites) == 36 and all(t["path"].startswith("suite")
                                    and "." not in t["path"] for t in suites),
          "each suite is a test at its own path")
    ids = [t["id"] for t in doc["tests"]]
    check(len(ids) == len(set(ids)), "test ids are unique")
    check(all(x["id"].startswith("lab_mesh:") for k in ("checkouts",
          "builds", "tests") for x in doc[k]), "ids carry the origin")
    https = [c for c in doc["checkouts"] if "git_repository_url" in c]
    other = [c for c in doc["checkouts"] if "git_repository_url" not in c]
    check(https and all(c["git_repository_url"].startswith("https://")
                        for c in https), "https tree URL kept")
    check(other and all(c["misc"]["git_repository_url"].startswith("git://")
                        for c in other), "non-https tree URL only in misc")
    check(all(c["patchset_hash"] == "" for c in doc["checkouts"]),
          "patchset_hash is empty")
    check(all(c.get("tree_name") and (c.get("git_commit_hash") or
                                      c.get("git_commit_name"))
              for c in doc["checkouts"]),
          "every checkout has a tree name and a commit or a describe")
    check(all(b.get("status") for b in doc["builds"]), "every build has a"
          " status")
    failed = [t for t in doc["tests"] if t["status"] in ("FAIL", "ERROR")
              and t["misc"].get("message")]
    check(failed and all(t.get("comment") == t["misc"]["message"] and
                         t.get("log_excerpt") for t in failed),
          "a failure's reason is its comment and, with no log held, its"
          " excerpt")
    t = doc["tests"][0]
    check(t["environment"]["misc"]["lab"] and t["environment"]["misc"]["board"],
          "environment.misc has lab and board")
    check(t["log_url"].startswith("https://logs.example.org/blobs/"),
          "log_url from --log-base")
    slash = json.loads(run("export", "--home", home, "--kcidb", "--log-base",
                           "https://logs.example.org/blobs/").stdout)
    check(slash["tests"][0]["log_url"] == t["log_url"],
          "a --log-base ending in / gives the same log_url (no //)")
    metrics = [t for t in doc["tests"] if "number" in t]
    check(metrics and all(m["status"] == "DONE" for m in metrics),
          "metrics are DONE tests with a number")
    # deterministic: the same records give the same bytes
    again = run("export", "--home", home, "--kcidb", "--origin", "lab_mesh",
                "--log-base", "https://logs.example.org/blobs").stdout
    check(again == raw, "export is byte-identical when repeated")
    # filters apply
    fails = json.loads(run("export", "--home", home, "--kcidb", "--status",
                           "FAIL", "--board", "board-0-0").stdout)
    check(fails["tests"] and all(x["status"] == "FAIL" and
          x["environment"]["misc"]["board"] == "board-0-0"
          for x in fails["tests"]), "filters select tests")
    check(not list(v.iter_errors(fails)), "filtered export validates")
    return doc


def test_schema_teeth(doc, v):
    def bad(mutate, what):
        d = copy.deepcopy(doc)
        mutate(d)
        check(list(v.iter_errors(d)), "schema rejects " + what)

    bad(lambda d: d["tests"][0].update(comment=None), "a null")
    bad(lambda d: d["builds"][0].update(extra="x"), "an extra key")
    bad(lambda d: d.update(extra=[]), "an extra top-level key")
    bad(lambda d: d["tests"][0].update(id="Bad:1"), "an id with a bad origin")
    bad(lambda d: d["tests"][0].update(status="OK"), "a status outside the enum")
    bad(lambda d: d["tests"][0].update(path="a..b"), "a bad path")
    bad(lambda d: d["checkouts"][0].update(
        git_repository_url="git://x/y.git"), "a non-https repository URL")
    bad(lambda d: d["checkouts"][0].update(git_commit_hash="ABC"),
        "a bad commit hash")
    bad(lambda d: d["tests"][0]["environment"].update(lab="x"),
        "an extra key in environment")
    bad(lambda d: d["version"].update(major=4), "major version 4")
    bad(lambda d: d["builds"][0].update(_labmesh="x"),
        "an unknown _-prefixed key")
    bad(lambda d: d["tests"][0].update(start_time="2026-13-01T00:00:00Z"),
        "a start_time that is no date-time")
    bad(lambda d: d["tests"][0].update(start_time="yesterday"),
        "a start_time that is not RFC 3339")
    bad(lambda d: d["tests"][0].update(log_url="not a uri"),
        "a log_url that is not a URI")
    bad(lambda d: d["tests"][0]["environment"].update(compatible=["a b"]),
        "a compatible string with a space")
    bad(lambda d: d["tests"][0].pop("build_id"), "a test without build_id")
    ok = copy.deepcopy(doc)
    ok["tests"][0]["misc"]["anything"] = {"nested": [1, "x"]}
    ok["tests"][0]["environment"]["compatible"] = ["qemu,virt", "arm,x"]
    check(not list(v.iter_errors(ok)), "schema accepts anything in misc")


def test_origin(home):
    for origin in ("Bad", "a-b", "", "x:y"):
        p = run("export", "--home", home, "--kcidb", "--origin", origin, rc=2)
        check(p.returncode == 2 and p.stdout == b"",
              "--origin %r is a usage error" % origin)


def test_junit(home):
    out = os.path.join(home, "junit.xml")
    run("export", "--home", home, "--junit", "--out", out)
    p = subprocess.run(["xmllint", "--noout", out], capture_output=True)
    check(p.returncode == 0, "xmllint accepts the JUnit XML: %s" %
          p.stderr.decode(errors="replace")[:300])
    root = ET.parse(out).getroot()
    check(root.tag == "testsuites", "root is testsuites")
    suites = root.findall("testsuite")
    check(len(suites) == 12 * 3, "one testsuite per run and suite (36)")
    listed = json.loads(run("query", "--home", home, "--list", "--json",
                            "--status", "FAIL").stdout)["cases"]
    failures = root.findall("./testsuite/testcase/failure")
    check(len(failures) == len(listed), "one <failure> per FAIL case (%d/%d)"
          % (len(failures), len(listed)))
    msgs = [f.get("message") for f in failures]
    special = [m for m in msgs if m.startswith("expected <1> & got")]
    check(special and special[0] == "expected <1> & got \"2\" in 'f'\tat "
          "line 12\nsee log \u00e9\u2713", "network text survives escaping")
    for s in suites:
        n = len(s.findall("testcase"))
        check(int(s.get("tests")) == n, "tests attribute counts testcases")
        check(int(s.get("failures")) == len(s.findall("testcase/failure")),
              "failures attribute counts failures")


BUILD_SPEC = """\
run 7 lab-b built x86_64 https://git.kernel.org/t/linux.git master {c} 1700000000000
build x86_64_defconfig+kselftest gcc-12.2 PASS
runlog build
suite build PASS
case kernel PASS
metric duration 754.25 s lower
suite smoke PASS
case boot PASS
end
run 7 lab-b broken x86_64 https://git.kernel.org/t/linux.git master {c} 1700000001000
build tinyconfig clang-16 FAIL
runlog build
suite build FAIL
case kernel FAIL
metric duration 12.5 s lower
end
run 7 lab-b running x86_64 https://git.kernel.org/t/linux.git master {c} 1700000002000
build - - NONE
suite smoke PASS
case boot PASS
end
""".format(c="ab" * 20)


def test_build(v):
    home = tempfile.mkdtemp(prefix="lm-export-build-")
    try:
        p = subprocess.run([MKRUNS, home], input=BUILD_SPEC, text=True,
                           capture_output=True)
        check(p.returncode == 0, "lm-mkruns: %s" % p.stderr)
        raw = run("export", "--home", home, "--kcidb", "--log-base",
                  "https://logs.example.org/blobs").stdout
        doc = json.loads(raw)
        errors = list(v.iter_errors(doc))
        for e in errors[:5]:
            print("schema:", list(e.path), e.message)
        check(not errors, "an export with builds validates")
        b = {x["misc"]["board"]: x for x in doc["builds"]}
        check(sorted(b) == ["broken", "built", "running"], "three builds")
        ok, bad, none = b.get("built", {}), b.get("broken", {}), \
            b.get("running", {})
        check(ok.get("duration") == 754.25 and
              isinstance(ok.get("duration"), float),
              "a build's duration in seconds: %s" % ok.get("duration"))
        check(b'"duration": 754.25' in raw or b'"duration":754.25' in raw,
              "the duration is written as a JSON number")
        check(ok.get("status") == "PASS" and
              ok.get("compiler") == "gcc-12.2" and
              ok.get("config_name") == "x86_64_defconfig+kselftest",
              "a build has status, compiler and config_name: %s" % ok)
        check(ok.get("log_url", "").startswith(
            "https://logs.example.org/blobs/"), "a build has its log_url")
        check(bad.get("duration") == 12.5 and bad.get("status") == "FAIL" and
              bad.get("compiler") == "clang-16" and
              bad.get("config_name") == "tinyconfig" and
              bad.get("log_url"), "a failed build says the same: %s" % bad)
        check("duration" not in none and none.get("status") == "PASS" and
              "comment" in none, "a kernel not built here has no duration")
    finally:
        shutil.rmtree(home, ignore_errors=True)


def main():
    home = tempfile.mkdtemp(prefix="lm-export-")
    try:
        run("synth", "--home", home)
        v = validator()
        doc = test_kcidb(home, v)
        test_schema_teeth(doc, v)
        test_origin(home)
        test_junit(home)
        test_build(v)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print("%s: %d failed" % (os.path.basename(__file__), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
