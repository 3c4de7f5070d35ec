#!/bin/sh
# ltp: a small default scenario of Linux Test Project syscall tests (getpid,
# fork, wait, pipe, read/write, open/close, dup, brk, clocks, nanosleep,
# sigaction, mmap, uname), run straight from $LTPROOT/testcases/bin with
# the same ltp-pan framing runltp prints, so the LTP parser sees each
# test's TPASS/TFAIL/TBROK/TCONF/TWARN lines under its tag. Each test is
# bounded by timeout. Without an LTP install every test reports TCONF.

TESTS="getpid01 getppid01 fork01 wait401 pipe01 read01 write01 open01 close01 dup01 brk01
clock_gettime01 nanosleep01 sigaction01 mmap01 uname01"

root=""
for d in "$LTPROOT" /opt/ltp /usr/lib/ltp /usr/ltp /ltp; do
	[ -n "$d" ] && [ -d "$d/testcases/bin" ] && { root=$d; break; }
done
export TMPDIR=${LABMESH_TMP:-/tmp}
export LTP_TIMEOUT_MUL=${LTP_TIMEOUT_MUL:-4}
if [ -n "$root" ]; then
	export LTPROOT=$root
	export PATH="$root/testcases/bin:$PATH"
fi

# block TAG EXIT: one ltp-pan result block around the output on stdin
block() {
	echo "<<<test_start>>>"
	echo "tag=$1 stime=$start"
	echo "cmdline=\"$1\""
	echo "contacts=\"\""
	echo "analysis=exit"
	echo "<<<test_output>>>"
	cat
	echo "<<<execution_status>>>"
	echo "initiation_status=\"ok\""
	echo "duration=$(($(date +%s) - start)) termination_type=exited termination_id=$2 corefile=no"
	echo "cutime=0 cstime=0"
	echo "<<<test_end>>>"
}

# every test of the scenario reports, so the case list is the same on
# every board: a test that is not installed is TCONF (skipped), exit 32
for t in $TESTS; do
	start=$(date +%s)
	if [ -z "$root" ]; then
		echo "run.sh:0: TCONF: no LTP install (\$LTPROOT, /opt/ltp, /usr/lib/ltp) on this board" |
			block "$t" 32
	elif [ ! -x "$root/testcases/bin/$t" ]; then
		echo "run.sh:0: TCONF: $t is not installed in $root/testcases/bin" | block "$t" 32
	else
		out=$(cd "$TMPDIR" && timeout 120 "$root/testcases/bin/$t" 2>&1)
		rc=$?
		echo "$out" | block "$t" $rc
	fi
done
exit 0
