#!/bin/sh
# Integration test: the runner and `run` command on the local board with
# the fixture suites. A suite made to fail is reported FAIL naming the
# failing case and the command exits non-zero; a board's fail_ok override
# for that case makes it pass and the report says why. Also: a missing
# need is SKIP with the reason, a built benchmark reports numbers with
# units, --json is valid JSON, bad usage exits 2.
# usage: run_fixtures.sh LABMESH_SUITES_EXE SUITES_SOURCE_DIR
set -u
exe=$1
fixtures=$2/tests/fixtures
work=$(mktemp -d "${TMPDIR:-/tmp}/labmesh-suites-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0

check() { # description, command...
	desc=$1
	shift
	if "$@"; then
		echo "ok - $desc"
	else
		echo "not ok - $desc"
		fails=$((fails + 1))
	fi
}

has() { grep -qF -- "$1" "$2"; }

run() { # out-file, args...
	out=$1
	shift
	"$exe" run --home "$work/home" --suites "$fixtures" "$@" >"$out" 2>"$out.err"
	echo $? >"$out.rc"
}

# 1. the failing fixture on the default lab's host board
run "$work/fail" --board host --suite fixture-fails
cat "$work/fail" "$work/fail.err"
check "fixture-fails exits 1" test "$(cat "$work/fail.rc")" = 1
check "the report names the failing case" \
	has "FAIL  fixture-fails: 1 case failed (max_fail 0): fixture-fails.files.rename" "$work/fail"
check "the failing case carries its diagnostic" \
	has "expected 'b', found 'a'" "$work/fail"
check "progress on stderr" has "[1/1] fixture-fails: running" "$work/fail.err"
check "logs kept and named" has "logs kept in $work/home/work/runs/host-" "$work/fail.err"
check "the log has the output" sh -c "cat '$work'/home/work/runs/host-*/fixture-fails.log | grep -q 'not ok 3 - files.rename'"

# 1b. progress is live: read as it comes, the first suite's verdict and the
# second's start arrive while the second (fixture-slow sleeps 2 s) runs,
# well before it finishes
check "progress lines come as the run goes" python3 - "$exe" "$work" "$fixtures" <<'PY'
import subprocess, sys, time
exe, work, fixtures = sys.argv[1:4]
p = subprocess.Popen([exe, "run", "--home", work + "/home", "--suites", fixtures,
                      "--board", "host", "--suite", "fixture-fails,fixture-slow"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
seen = {}
for raw in p.stderr:
    line = raw.decode(errors="replace").rstrip("\n")
    t = time.monotonic()
    print("# %.2f %s" % (t, line))
    for key, text in (("first", "[1/2] fixture-fails: FAIL in"),
                      ("start", "[2/2] fixture-slow: running"),
                      ("last", "[2/2] fixture-slow: PASS in")):
        if line.startswith(text) and key not in seen:
            seen[key] = t
p.wait()
assert set(seen) == {"first", "start", "last"}, seen
gap1, gap2 = seen["last"] - seen["first"], seen["last"] - seen["start"]
print("# first suite's verdict %.2f s, second's start %.2f s before the end" % (gap1, gap2))
assert gap1 >= 1.5 and gap2 >= 1.5, (gap1, gap2)
PY

# 2. the same with a board override accepting the failure
arch=$(uname -m)
cat >"$work/lab.yaml" <<LAB
lab:
  name: fixture-lab
boards:
  - name: host
    arch: $arch
    transport: {type: local}
    boot: {method: none}
    criteria:
      - suite: fixture-fails
        fail_ok:
          - {case: files.rename, reason: "rename is known broken on this board"}
LAB
run "$work/ok" --config "$work/lab.yaml" --board host --suite fixture-fails
cat "$work/ok" "$work/ok.err"
check "with fail_ok it exits 0" test "$(cat "$work/ok.rc")" = 0
check "the suite passes" has "PASS  fixture-fails: 2 passed, 1 skipped; 1 known failure accepted" "$work/ok"
sed 's/fail_ok:/max_fail: 1/; /case: files.rename/d' "$work/lab.yaml" >"$work/lab1.yaml"
run "$work/mf" --config "$work/lab1.yaml" --board host --suite fixture-fails
check "a PASS within max_fail names the failing case" \
	has "1 failed within max_fail 1: fixture-fails.files.rename" "$work/mf"
check "the report says why" has "known failure: rename is known broken on this board" "$work/ok"
check "the case is shown as a known failure" has "KNOWN fixture-fails.files.rename" "$work/ok"

# 2b. a board's max_fail, min_pass and must_pass replace the suite's
# (fixture-fails: 2 pass, files.rename fails, 1 skip; the suite says
# max_fail 0 and must_pass basics.echo)
board() { # name, criteria lines (indented for the list item)
	printf '  - name: %s\n    arch: %s\n    transport: {type: local}\n    boot: {method: none}\n    criteria:\n      - suite: fixture-fails\n%s\n' \
		"$1" "$arch" "$2"
}
{
	printf 'lab:\n  name: criteria-lab\nboards:\n'
	board maxfail '        max_fail: 1'
	board minpass-met '        max_fail: 1
        min_pass: 2'
	board minpass-missed '        max_fail: 1
        min_pass: 3'
	board mustpass-met '        max_fail: 1
        must_pass: [basics]'
	board mustpass-failed '        max_fail: 1
        must_pass: [basics.cat, files]'
	board mustpass-absent '        max_fail: 1
        must_pass: [basics.nosuch]'
} >"$work/crit.yaml"
crit() { # board: run fixture-fails there
	run "$work/$1" --config "$work/crit.yaml" --board "$1" --suite fixture-fails
	cat "$work/$1" "$work/$1.err"
}
crit maxfail
check "max_fail 1 from the lab: exit 0" test "$(cat "$work/maxfail.rc")" = 0
check "max_fail 1 from the lab: the suite passes with its failure" \
	has "PASS  fixture-fails: 2 passed, 1 skipped" "$work/maxfail"
crit minpass-met
check "min_pass 2 from the lab, 2 passed: exit 0" test "$(cat "$work/minpass-met.rc")" = 0
check "min_pass 2 from the lab, 2 passed: PASS" has "PASS  fixture-fails:" "$work/minpass-met"
crit minpass-missed
check "min_pass 3 from the lab, 2 passed: exit 1" test "$(cat "$work/minpass-missed.rc")" = 1
check "min_pass 3 from the lab: FAIL saying so" \
	has "FAIL  fixture-fails: 2 cases passed (min_pass 3)" "$work/minpass-missed"
crit mustpass-met
check "must_pass basics from the lab, all passed: exit 0" test "$(cat "$work/mustpass-met.rc")" = 0
check "must_pass basics from the lab: PASS" has "PASS  fixture-fails:" "$work/mustpass-met"
crit mustpass-failed
check "must_pass files from the lab, files.rename failed: exit 1" \
	test "$(cat "$work/mustpass-failed.rc")" = 1
check "must_pass from the lab: FAIL naming the set" \
	has "FAIL  fixture-fails: must_pass fixture-fails.files: FAIL" "$work/mustpass-failed"
check "must_pass from the lab: a listed case that passed is not named" \
	sh -c "! grep -q 'must_pass fixture-fails.basics.cat' '$work/mustpass-failed'"
crit mustpass-absent
check "must_pass of an absent case from the lab: exit 1" \
	test "$(cat "$work/mustpass-absent.rc")" = 1
check "must_pass of an absent case from the lab: FAIL naming it" \
	has "FAIL  fixture-fails: must_pass fixture-fails.basics.nosuch absent" "$work/mustpass-absent"

# 3. needs, build, metrics, JSON
run "$work/all" --board host --suite fixture-needs,fixture-build --json
cat "$work/all" "$work/all.err"
check "needs and build exit 0" test "$(cat "$work/all.rc")" = 0
check "--json is JSON with the results" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = {x["name"]: x for x in d["suites"]}
assert d["board"] == "host" and d["kernel"]["release"]
assert s["fixture-needs"]["status"] == "SKIP"
assert "missing commands: labmesh-no-such-command" in s["fixture-needs"]["reason"]
b = s["fixture-build"]
assert b["status"] == "PASS", b
m = {x["name"]: x for x in b["metrics"]}
assert m["loops"]["value"] == 100000 and m["loops"]["unit"] == "iterations"
assert m["ratio"]["unit"] == "%" and m["ratio"]["better"] == "lower"
' "$work/all"

# 3b. other missing needs: a kernel option, an architecture. Each is SKIP
# with the reason naming what is missing, never FAIL, and the run exits 0.
run "$work/needs" --board host --suite fixture-kconfig,fixture-arch --json
cat "$work/needs" "$work/needs.err"
check "missing kconfig and arch needs exit 0" test "$(cat "$work/needs.rc")" = 0
if [ -r /proc/config.gz ] || [ -r "/boot/config-$(uname -r)" ]; then
	kconfig_readable=1
else
	kconfig_readable=0
	echo "# this kernel's config is not readable: the kconfig need cannot be checked," \
		"fixture-kconfig skips by itself"
fi
check "SKIP naming the missing kernel option, SKIP naming the arch" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = {x["name"]: x for x in d["suites"]}
assert d["status"] == "PASS", d["status"]
k, a = s["fixture-kconfig"], s["fixture-arch"]
for x in (k, a):
    assert x["status"] == "SKIP", (x["name"], x["status"], x["reason"])
    assert not x["cases"], (x["name"], x["cases"])
if sys.argv[2] == "1":
    assert k["reason"] == "kernel options not set: CONFIG_LABMESH_NO_SUCH_OPTION", k["reason"]
else:
    assert k["reason"] == "kconfig need not checked: no kernel config readable", k["reason"]
assert a["reason"] == "arch %s not among s390x riscv64" % d["kernel"]["machine"], a["reason"]
' "$work/needs" "$kconfig_readable"
check "the text report says why each skipped" sh -c "
	'$exe' run --home '$work/home' --suites '$fixtures' --board host \
		--suite fixture-kconfig,fixture-arch >'$work/needs.txt' 2>/dev/null &&
	grep -q '^SKIP  fixture-arch: arch [^ ]* not among s390x riscv64' '$work/needs.txt' &&
	{ [ $kconfig_readable = 0 ] ||
	  grep -q '^SKIP  fixture-kconfig: kernel options not set: CONFIG_LABMESH_NO_SUCH_OPTION' \
		'$work/needs.txt'; }"
check "a suite skipped for its needs never runs" \
	sh -c "! grep -q 'ran on' '$work'/home/work/runs/host-*/fixture-arch.log"

# a second run builds nothing (the cache)
run "$work/again" --board host --suite fixture-build
check "the second build comes from the cache" sh -c "grep -q '# build (cached)' '$work'/home/work/runs/host-*/fixture-build.log"

# 4. a build that fails, a run past its timeout
run "$work/err" --board host --suite fixture-badbuild,fixture-timeout
cat "$work/err" "$work/err.err"
check "errors exit 1" test "$(cat "$work/err.rc")" = 1
check "a failed build is ERROR with the compiler's error" \
	has "ERROR fixture-badbuild: build failed: " "$work/err"
check "the build log is kept" sh -c "grep -q this_is_not_declared '$work'/home/work/runs/host-*/fixture-badbuild.log"
check "a run past its timeout is ERROR" has "ERROR fixture-timeout: timed out after 2 s" "$work/err"
check "what ran before the timeout is kept" has "PASS  fixture-timeout.started" "$work/err"
check "the missing case is MISS" has "MISS  fixture-timeout.test2" "$work/err"

# 5. errors
run "$work/nob" --board nosuch --suite fixture-fails
check "an unknown board exits 2" test "$(cat "$work/nob.rc")" = 2
check "and names the boards" has "no board 'nosuch'" "$work/nob.err"
run "$work/nos" --board host --suite nosuch
check "an unknown suite exits 2" test "$(cat "$work/nos.rc")" = 2
"$exe" run --help >"$work/help" 2>&1
check "run --help" has "usage: labmesh run --board B" "$work/help"
"$exe" suites --suites "$fixtures" >"$work/list"
check "suites lists the fixtures" has "fixture-needs        functional 1       max " "$work/list"
check "with their needs" has " commands: sh,labmesh-no-such-command; kconfig: CONFIG_LABMESH_NO_SUCH_OPTION" "$work/list"

echo "$fails failed"
[ $fails -eq 0 ]
