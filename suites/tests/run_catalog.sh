#!/bin/bash
# Integration test: every catalog suite on the local (host) board and on a
# QEMU x86_64 board (kernel + busybox initramfs from scripts/mkboard, its
# console on a unix socket, reached by the serial transport). Each suite
# ends PASS or SKIP with a reason, never FAIL or ERROR; benchmark metrics
# are finite numbers with units; a suite that ran on both boards has the
# same case paths and metric units on both. Exit 77 (skipped) only when
# the QEMU board cannot be built or QEMU is missing.
# usage: run_catalog.sh LABMESH_SUITES_EXE SOURCE_ROOT [host|qemu|both]
set -u
exe=$1
root=$2
which=${3:-both}
work=$(mktemp -d "${TMPDIR:-/tmp}/labmesh-catalog-test.XXXXXX")
qemu_pid=
cleanup() {
	[ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null && wait "$qemu_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
arch=$(uname -m)

run_board() { # name, config args...
	local name=$1
	shift
	"$exe" run --home "$work/home" --suites "$root/suites" --board "$name" --suite all \
		--json "$@" >"$work/$name.json" 2>"$work/$name.err"
	echo $? >"$work/$name.rc"
	tail -n 50 "$work/$name.err"
}

if [ "$which" = host ] || [ "$which" = both ]; then
	echo "# host board"
	run_board host
fi

if [ "$which" = qemu ] || [ "$which" = both ]; then
	echo "# qemu board"
	if ! command -v qemu-system-x86_64 >/dev/null || [ "$arch" != x86_64 ]; then
		echo "SKIP: no qemu-system-x86_64 on an x86_64 host"
		exit 77
	fi
	board=$("$root/scripts/mkboard" --arch x86_64 --print-dir 2>"$work/mkboard.log" | tail -n 1)
	if [ -z "$board" ] || [ ! -f "$board/board.env" ]; then
		tail -n 20 "$work/mkboard.log"
		echo "SKIP: the QEMU board cannot be built here"
		exit 77
	fi
	# shellcheck disable=SC1091
	. "$board/board.env"
	sock=$work/console.sock
	start_qemu() { # accelerator and cpu arguments
		rm -f "$sock"
		# shellcheck disable=SC2086
		qemu-system-x86_64 -machine pc "$@" -m 1024 -smp 2 -no-reboot \
			-display none -monitor none -nic none \
			-kernel "$KERNEL" -initrd "$INITRD" -append "$APPEND" \
			-chardev "socket,id=con,path=$sock,server=on,wait=off" \
			-serial chardev:con >"$work/qemu.log" 2>&1 &
		qemu_pid=$!
		for _ in $(seq 30); do
			sleep 0.1
			kill -0 "$qemu_pid" 2>/dev/null || break
		done
		if kill -0 "$qemu_pid" 2>/dev/null && [ -S "$sock" ]; then
			echo "# qemu $* (pid $qemu_pid)"
			return 0
		fi
		wait "$qemu_pid" 2>/dev/null
		qemu_pid=
		return 1
	}
	# TCG: KVM is used only when asked (LABMESH_QEMU_KVM=1), since nested
	# hosts may accept -enable-kvm and then never run the guest
	started=
	if [ "${LABMESH_QEMU_KVM:-0}" = 1 ]; then
		start_qemu -enable-kvm -cpu max && started=1
	fi
	[ -z "$started" ] && start_qemu -cpu max && started=1
	if [ -z "$started" ]; then
		cat "$work/qemu.log"
		echo "SKIP: QEMU does not start here"
		exit 77
	fi
	cat >"$work/lab.yaml" <<LAB
lab:
  name: catalog-test
boards:
  - name: qemu-x86_64
    arch: x86_64
    machine: qemu-pc
    transport:
      type: serial
      socket: $sock
      connect_timeout: 180
    boot: {method: none}
LAB
	run_board qemu-x86_64 --config "$work/lab.yaml"
	kill "$qemu_pid" 2>/dev/null
	wait "$qemu_pid" 2>/dev/null
	qemu_pid=
fi

python3 - "$work" "$which" <<'PY'
import json, math, sys, os
work, which = sys.argv[1], sys.argv[2]
boards = {"host": ["host"], "qemu": ["qemu-x86_64"], "both": ["host", "qemu-x86_64"]}[which]
fails = 0
def bad(msg):
    global fails
    fails += 1
    print("not ok -", msg)
runs = {}
for b in boards:
    rc = open(os.path.join(work, b + ".rc")).read().strip()
    try:
        d = json.load(open(os.path.join(work, b + ".json")))
    except Exception as e:
        bad("%s: no JSON result (exit %s): %s" % (b, rc, e))
        continue
    runs[b] = {s["name"]: s for s in d["suites"]}
    print("# %s: Linux %s %s, %d suites, exit %s" % (b, d["kernel"]["release"],
          d["kernel"]["machine"], len(d["suites"]), rc))
    for s in d["suites"]:
        st, why = s["status"], s["reason"] or ""
        line = "%s %s: %s %s" % (b, s["name"], st, why)
        if st not in ("PASS", "SKIP"):
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
        print("ok - " + line)
    if rc != "0" and not fails:
        bad("%s: exit status %s with every suite PASS or SKIP" % (b, rc))
if len(runs) == 2:
    h, q = runs["host"], runs["qemu-x86_64"]
    for name in sorted(set(h) & set(q)):
        a, b = h[name], q[name]
        if a["status"] != "PASS" or b["status"] != "PASS":
            continue
        pa = [c["path"] for c in a["cases"]]
        pb = [c["path"] for c in b["cases"]]
        ua = {m["name"]: m["unit"] for m in a["metrics"]}
        ub = {m["name"]: m["unit"] for m in b["metrics"]}
        if pa != pb:
            bad("%s: case paths differ between boards: %s" % (name, sorted(set(pa) ^ set(pb))))
        elif ua != ub:
            bad("%s: metric units differ between boards: %s / %s" % (name, ua, ub))
        else:
            print("ok - %s: %d paths and %d metric units identical on both boards" % (name, len(pa), len(ua)))
print("%d failed" % fails)
sys.exit(1 if fails else 0)
PY
