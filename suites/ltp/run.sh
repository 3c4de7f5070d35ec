#!/bin/sh
# ltp: a small default scenario of Linux Test Project syscall tests (getpid,
# fork, wait, pipe, read/write, open/close, dup, brk, clocks, nanosleep,
# sigaction, mmap, uname), run straight from $LTPROOT/testcases/bin with
# the same ltp-pan framing runltp prints, so the LTP parser sees each
# test's TPASS/TFAIL/TBROK/TCONF/TWARN lines under its tag. Each test is
# bounded by timeout. SKIPs when no LTP install is found.

TESTS="getpid01 getppid01 fork01 wait401 pipe01 read01 write01 open01 close01 dup01 brk01
clock_gettime01 nanosleep01 sigaction01 mmap01 uname01"

root=""
for d in "$LTPROOT" /opt/ltp /usr/lib/ltp /usr/ltp /ltp; do
	[ -n "$d" ] && [ -d "$d/testcases/bin" ] && { root=$d; break; }
done
if [ -z "$root" ]; then
	echo "skip: no LTP install (\$LTPROOT, /opt/ltp, /usr/lib/ltp) on this board"
	exit 0
fi
export LTPROOT=$root
export PATH="$root/testcases/bin:$PATH"
export TMPDIR=${LABMESH_TMP:-/tmp}
export LTP_TIMEOUT_MUL=${LTP_TIMEOUT_MUL:-4}

ran=0
for t in $TESTS; do
	[ -x "$root/testcases/bin/$t" ] || continue
	ran=$((ran + 1))
	start=$(date +%s)
	echo "<<<test_start>>>"
	echo "tag=$t stime=$start"
	echo "cmdline=\"$t\""
	echo "contacts=\"\""
	echo "analysis=exit"
	echo "<<<test_output>>>"
	(cd "$TMPDIR" && timeout 120 "$root/testcases/bin/$t" 2>&1)
	rc=$?
	echo "<<<execution_status>>>"
	echo "initiation_status=\"ok\""
	echo "duration=$(($(date +%s) - start)) termination_type=exited termination_id=$rc corefile=no"
	echo "cutime=0 cstime=0"
	echo "<<<test_end>>>"
done
[ "$ran" -gt 0 ] || echo "skip: none of the default LTP tests is installed in $root/testcases/bin"
exit 0
