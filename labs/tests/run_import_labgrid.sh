#!/bin/bash
# Integration test: the labgrid environment files in labs/tests/labgrid/
# load in labgrid's own Environment (python3-labgrid), import with
# `labmesh import labgrid`, and a QEMU x86_64 board whose console is a TCP
# port (as ser2net serves a UART) and whose power is ExternalPowerDriver's
# commands is driven through the imported entry: `labmesh run` powers it
# on, reaches its shell over the TCP console, passes smoke and powers it
# off.
# Without labgrid the loader check is left out, without QEMU or the test
# board the drive is; either makes the test exit 77 after the rest passed.
# usage: run_import_labgrid.sh LABMESH SOURCE_ROOT
set -u
exe=$1
root=$2
here=$root/labs/tests
lg=$here/labgrid
work=$(mktemp -d "${TMPDIR:-/tmp}/labmesh-import-labgrid.XXXXXX")
cleanup() {
	[ -f "$work/qemu.pid" ] && pkill -F "$work/qemu.pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
fails=0
skip=

# 1. labgrid reads the fixtures
envs=("$lg/serial-power.yaml" "$lg/ser2net.yaml" "$lg/ssh.yaml" "$lg/qemu.yaml"
	"$lg/usb-manual.yaml" "$lg/remote.yaml")
/usr/bin/python3 "$here/labgrid_check.py" "${envs[@]}" >"$work/lgcheck.out" 2>&1
rc=$?
cat "$work/lgcheck.out"
if [ $rc -eq 77 ]; then
	skip="python3-labgrid is not installed: the files are not loaded in labgrid"
	echo "# $skip"
elif [ $rc -ne 0 ]; then
	fails=$((fails + 1))
fi

# 2. each imports, with what its resources say
check_import() { # file [options...] -- want-line...
	local f=$1
	shift
	local opts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	if ! "$exe" import labgrid "$lg/$f" "${opts[@]}" >"$work/$f.entry" 2>"$work/$f.err"; then
		echo "not ok - import labgrid $f"
		cat "$work/$f.err"
		fails=$((fails + 1))
		return
	fi
	for want in "$@"; do
		if ! grep -qF -- "$want" "$work/$f.entry"; then
			echo "not ok - import labgrid $f: no '$want' in"
			cat "$work/$f.entry"
			fails=$((fails + 1))
			return
		fi
	done
	echo "ok - import labgrid $f"
}
check_import serial-power.yaml --arch arm -- 'device: "/dev/ttyUSB0"' 'login: "root"' \
	'power_on: "relayctl --board 2 --channel 1 on"' 'power_cycle: "relayctl --board 2 --channel 1 cycle"'
check_import ser2net.yaml --arch aarch64 -- 'tcp: "consoles.lab.example.org:4001"' \
	'power_on: "pduclient --daemon pdu.lab.example.org --hostname apc-1 --port 4 --command on"' \
	'NetworkPowerPort gude at pdu2.lab.example.org index 3'
check_import ssh.yaml --arch riscv64 -- 'type: ssh' 'host: "192.0.2.44"' 'port: 2222'
check_import qemu.yaml -- 'arch: aarch64' 'method: qemu' 'memory: 1024' \
	'kernel: "/srv/images/arm64/Image"' 'append: "console=ttyAMA0 panic=-1"'
check_import usb-manual.yaml --arch aarch64 -- \
	'device: "/dev/serial/by-path/pci-0000:00:14.0-usb-0:2:1.0-port0"' 'baud: 1500000' \
	'ManualPowerDriver'
check_import remote.yaml --arch arm --exporter "$lg/exporter.yaml" -- \
	'tcp: "rack3.lab.example.org:5002"' 'power_on: "labgrid-client -p rack3-bbb power on"' \
	'exported RawSerialPort'

# 3. the serial + power target drives a QEMU board
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
	echo "# the QEMU board is not driven: $qskip"
	skip="${skip:+$skip; }$qskip"
else
	# shellcheck disable=SC1091
	. "$board/board.env"
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	sed -e "s|@PORT@|$port|g" -e "s|@MACHINE@|$MACHINE|" -e "s|@CPU@|$CPU|" \
		-e "s|@KERNEL@|$KERNEL|" -e "s|@INITRD@|$INITRD|" -e "s|@WORK@|$work|g" \
		"$lg/qemu-ser2net.yaml.in" >"$work/qemu-ser2net.yaml"
	if [ -z "$skip" ] && ! /usr/bin/python3 "$here/labgrid_check.py" "$work/qemu-ser2net.yaml"; then
		fails=$((fails + 1))
	fi
	{
		echo "lab: {name: labgrid-import}"
		echo "boards:"
		"$exe" import labgrid "$work/qemu-ser2net.yaml" --arch x86_64
	} >"$work/lab.yaml" 2>"$work/import.err" || { cat "$work/import.err"; fails=$((fails + 1)); }
	if "$exe" run --home "$work/home" --suites "$root/suites" --config "$work/lab.yaml" \
		--board qemu-ser2net --suite smoke --json >"$work/run.json" 2>"$work/run.err" &&
		python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["suites"][0]
sys.exit(0 if s["name"] == "smoke" and s["status"] == "PASS" else 1)' "$work/run.json"; then
		echo "ok - the labgrid serial + power target drives the QEMU board: smoke PASS"
	else
		echo "not ok - the labgrid serial + power target under labmesh run"
		cat "$work/lab.yaml"
		tail -n 40 "$work/run.err"
		fails=$((fails + 1))
	fi
	if [ -f "$work/qemu.pid" ] && kill -0 "$(cat "$work/qemu.pid")" 2>/dev/null; then
		echo "not ok - power_off left QEMU running"
		fails=$((fails + 1))
	fi
fi
[ $fails -eq 0 ] || exit 1
if [ -n "$skip" ]; then
	echo "SKIP: $skip"
	exit 77
fi
exit 0
