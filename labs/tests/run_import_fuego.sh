#!/bin/bash
# Integration test: Fuego's default board (docker.board, and local.board)
# imported with `labmesh import fuego` is a local board `labmesh run`
# uses as it is: the smoke suite passes on it.
# usage: run_import_fuego.sh LABMESH SOURCE_ROOT
set -u
exe=$1
root=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/labmesh-import-fuego.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
for board in docker local; do
	{
		echo "lab: {name: fuego-import}"
		echo "boards:"
		"$exe" import fuego "$root/labs/tests/fuego/$board.board"
	} >"$work/$board.yaml" 2>"$work/$board.import.err"
	if [ $? -ne 0 ] || [ -s "$work/$board.import.err" ]; then
		echo "not ok - import fuego $board.board"
		cat "$work/$board.import.err"
		fails=$((fails + 1))
		continue
	fi
	if "$exe" run --home "$work/home" --suites "$root/suites" --config "$work/$board.yaml" \
		--board "$board" --suite smoke --json >"$work/$board.json" 2>"$work/$board.err" &&
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
s = d["suites"][0]
sys.exit(0 if s["status"] == "PASS" and s["name"] == "smoke" else 1)' "$work/$board.json"; then
		echo "ok - $board.board imported runs smoke: PASS"
	else
		echo "not ok - $board.board imported runs smoke"
		cat "$work/$board.yaml"
		tail -n 30 "$work/$board.err"
		head -c 2000 "$work/$board.json"
		fails=$((fails + 1))
	fi
done
exit $((fails != 0))
