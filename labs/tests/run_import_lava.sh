#!/bin/bash
# Integration test: LAVA device configurations rendered from Debian's
# lava-server device-type templates (scripts/lava-devices) are the ones
# committed in labs/tests/lava/, import with `labmesh import lava`, and
# the qemu one boots the QEMU x86_64 test board (scripts/mkboard) and
# passes smoke under `labmesh run`; a console-server device with power
# commands drives the same board over a raw TCP console.
# When the lava-server package cannot be had, the rendering check is left
# out; when QEMU or the board cannot be had, the boot is; either makes the
# test exit 77 (skipped) after the rest has passed.
# usage: run_import_lava.sh LABMESH SOURCE_ROOT
set -u
exe=$1
root=$2
here=$root/labs/tests
work=$(mktemp -d "${TMPDIR:-/tmp}/labmesh-import-lava.XXXXXX")
cleanup() {
	[ -f "$work/qemu.pid" ] && pkill -F "$work/qemu.pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
fails=0
skip=

# 1. the fixtures are what lava-server's templates render
"$root/scripts/lava-devices" "$work/rendered" "$here"/lava/dict/*.jinja2 2>"$work/render.err"
rc=$?
if [ $rc -eq 77 ]; then
	skip="lava-server's templates cannot be had here"
	echo "# $skip: the rendering is not checked"
elif [ $rc -ne 0 ]; then
	echo "not ok - scripts/lava-devices"
	cat "$work/render.err"
	fails=$((fails + 1))
else
	for d in "$here"/lava/dict/*.jinja2; do
		n=$(basename "$d" .jinja2)
		if cmp -s "$work/rendered/$n.yaml" "$here/lava/$n.yaml"; then
			echo "ok - lava/$n.yaml is lava-server's rendering of dict/$n.jinja2"
		else
			echo "not ok - lava/$n.yaml differs from lava-server's rendering"
			diff -u "$here/lava/$n.yaml" "$work/rendered/$n.yaml" | head -20
			fails=$((fails + 1))
		fi
	done
fi

# 2. each imports into an entry that loads, with what the device says
check_import() { # name want-line... (after the import options)
	local n=$1
	shift
	local opts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	if ! "$exe" import lava "$here/lava/$n.yaml" "${opts[@]}" >"$work/$n.entry" 2>"$work/$n.err"; then
		echo "not ok - import lava $n.yaml"
		cat "$work/$n.err"
		fails=$((fails + 1))
		return
	fi
	for want in "$@"; do
		if ! grep -qF -- "$want" "$work/$n.entry"; then
			echo "not ok - import lava $n.yaml: no '$want' in"
			cat "$work/$n.entry"
			fails=$((fails + 1))
			return
		fi
	done
	echo "ok - import lava $n.yaml"
}
check_import qemu01 --type qemu -- 'tags: [lava, "qemu"]' 'method: qemu' \
	'qemu: "qemu-system-x86_64"' 'memory: 1024' 'console: qemu'
check_import bbb01 --type beaglebone-black -- 'arch: arm' \
	'tcp: "ser2net.lab.example.org:7001"' 'method: command' \
	'power_on: "pduclient --daemon pdu.lab.example.org --hostname pdu01 --port 3 --command on"' \
	'power_cycle: "pduclient --daemon pdu.lab.example.org --hostname pdu01 --port 3 --command reboot"' \
	'# line 152: actions.deploy.methods.tftp: a deploy command'
check_import ssh01 --type ssh --arch x86_64 -- 'type: ssh' 'host: "192.0.2.10"' \
	'port: 2222' 'user: "lava"' 'identity: "/etc/lava-dispatcher/keys/ssh01"'

# 3. the qemu device boots the test board and passes smoke
qskip=
if ! command -v qemu-system-x86_64 >/dev/null || [ "$(uname -m)" != x86_64 ]; then
	qskip="no qemu-system-x86_64 on an x86_64 host"
else
	board=$("$root/scripts/mkboard" --arch x86_64 --print-dir 2>"$work/mkboard.log" | tail -n 1)
	if [ -z "$board" ] || [ ! -f "$board/board.env" ]; then
		tail -n 20 "$work/mkboard.log"
		qskip="the QEMU x86_64 board cannot be built here (scripts/mkboard failed)"
	fi
fi
if [ -n "$qskip" ]; then
	echo "# the qemu device is not booted: $qskip"
	skip="${skip:+$skip; }$qskip"
else
	# shellcheck disable=SC1091
	. "$board/board.env"
	# LAVA's jobs bring the kernel: the lab operator adds the default one
	{
		echo "lab: {name: lava-import}"
		echo "boards:"
		sed "s|^      method: qemu\$|&\n      kernel: $KERNEL\n      initrd: $INITRD\n      append: \"$APPEND\"\n      timeout: 180|" \
			"$work/qemu01.entry"
	} >"$work/lab.yaml"
	if "$exe" run --home "$work/home" --suites "$root/suites" --config "$work/lab.yaml" \
		--board qemu01 --suite smoke --json >"$work/run.json" 2>"$work/run.err" &&
		python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["suites"][0]
sys.exit(0 if s["name"] == "smoke" and s["status"] == "PASS" else 1)' "$work/run.json"; then
		echo "ok - the LAVA qemu device boots and passes smoke"
	else
		echo "not ok - the LAVA qemu device under labmesh run"
		cat "$work/lab.yaml"
		tail -n 40 "$work/run.err"
		fails=$((fails + 1))
	fi
fi
# 4. a board behind a console server with power commands: a LAVA device
# dictionary of the beaglebone-black type whose console is a raw TCP port
# (as ser2net serves a UART) and whose power commands start and stop the
# QEMU board, rendered by lava-server's templates, drives the board
# through the imported entry
if [ -n "$qskip" ] || [ $rc -ne 0 ]; then
	echo "# the console-server device is not driven: ${qskip:-no lava-server templates}"
else
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	on="qemu-system-x86_64 -machine $MACHINE -cpu $CPU -m 512 -kernel $KERNEL -initrd $INITRD"
	on="$on -append 'console=ttyS0 panic=-1 quiet' -display none -monitor none -nic none"
	on="$on -no-reboot -serial tcp:127.0.0.1:$port,server=on,wait=off -daemonize -pidfile $work/qemu.pid"
	mkdir -p "$work/dict"
	cat >"$work/dict/bbb-local.jinja2" <<DICT
{% extends 'beaglebone-black.jinja2' %}
{% set connection_command = 'telnet 127.0.0.1 $port' %}
{% set power_on_command = "$on" %}
{% set power_off_command = 'pkill -F $work/qemu.pid' %}
DICT
	if "$root/scripts/lava-devices" "$work/rendered" "$work/dict/bbb-local.jinja2" 2>"$work/render2.err" &&
		{
			echo "lab: {name: lava-import}"
			echo "boards:"
			"$exe" import lava "$work/rendered/bbb-local.yaml" --arch x86_64 --type beaglebone-black
		} >"$work/lab2.yaml" 2>"$work/import2.err" &&
		"$exe" run --home "$work/home" --suites "$root/suites" --config "$work/lab2.yaml" \
			--board bbb-local --suite smoke --json >"$work/run2.json" 2>"$work/run2.err" &&
		python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["suites"][0]
sys.exit(0 if s["name"] == "smoke" and s["status"] == "PASS" else 1)' "$work/run2.json"; then
		echo "ok - the LAVA console-server device with power commands drives the QEMU board: smoke PASS"
	else
		echo "not ok - the LAVA console-server device under labmesh run"
		cat "$work/render2.err" "$work/import2.err" "$work/lab2.yaml" 2>/dev/null
		tail -n 40 "$work/run2.err" 2>/dev/null
		fails=$((fails + 1))
	fi
	if [ -f "$work/qemu.pid" ] && kill -0 "$(cat "$work/qemu.pid")" 2>/dev/null; then
		echo "not ok - power_off left QEMU running"
		pkill -F "$work/qemu.pid"
		fails=$((fails + 1))
	fi
fi

[ $fails -eq 0 ] || exit 1
if [ -n "$skip" ]; then
	echo "SKIP: $skip"
	exit 77
fi
exit 0
