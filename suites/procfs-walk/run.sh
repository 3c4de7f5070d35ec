#!/bin/sh
# procfs-walk: read every readable file under /proc and /sys (bounded in
# file count, bytes per file and time; blocking and side-effect files
# skipped). Every show() handler in the kernel is reachable from here: an
# oops on read is a classic regression. C helper, TAP.
cd "${LABMESH_DIR:-.}" || exit 1
if [ ! -r /proc/self/status ]; then
	echo "1..0 # SKIP /proc is not mounted"
	exit 0
fi
exec ./walk-test
