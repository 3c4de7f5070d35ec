#!/bin/sh
# kselftest: the kernel's own selftests, the kernel developers' tests for
# their own ABI; the output is kselftest TAP, parsed as such.
#
# The selftests a lab's build shipped with the kernel under test (built
# from the same commit: $LABMESH_OUT/kselftest/ of the build recipe) are
# in /opt/labmesh/kselftest, appended to the initramfs by the lab: every
# test of their kselftest-list.txt runs, each with the timeout of its
# collection's `settings` (else 45 s, as run_kselftest.sh), through a
# runner of our own, since run_kselftest.sh calls GNU timeout's
# --foreground, which busybox lacks. Without them, a quick selection of an
# installed run_kselftest.sh runs; without either the suite SKIPs.

SHIPPED=/opt/labmesh/kselftest
# tests that would take the board away from the run, and why
EXCLUDE="breakpoints:step_after_suspend_test"
EXCLUDE_WHY="suspends the board"

# collection:test pairs that run in seconds and need no hardware
PREFERRED="size:get_size sigaltstack:sas kcmp:kcmp_test membarrier:membarrier_test_single_thread
exec:execveat timens:timens timers:posix_timers proc:proc-uptime-001 proc:read mqueue:mq_open_tests"

# timeout=N of a collection's settings file, else 45
timeout_of() {
	t=$(sed -n 's/^timeout=\([0-9][0-9]*\)$/\1/p' "$SHIPPED/$1/settings" 2>/dev/null)
	echo "${t:-45}"
}

# one test: its output as "# " comments, then its ok / not ok line
run_one() {
	i=$1 coll=$2 test=$3
	desc="selftests: $coll: $test"
	for x in $EXCLUDE; do
		if [ "$x" = "$coll:$test" ]; then
			echo "ok $i $desc # SKIP $EXCLUDE_WHY"
			return
		fi
	done
	t=$(timeout_of "$coll")
	echo "# $desc"
	(
		cd "$SHIPPED/$coll" || exit 127
		timeout "$t" "./$test" </dev/null 2>&1
		echo $? >"$LABMESH_TMP/rc"
	) | sed 's/^/# /'
	rc=$(cat "$LABMESH_TMP/rc" 2>/dev/null || echo 127)
	case $rc in
	0) echo "ok $i $desc" ;;
	4) echo "ok $i $desc # SKIP" ;;
	124 | 143) echo "not ok $i $desc # TIMEOUT $t seconds" ;;
	*) echo "not ok $i $desc # exit=$rc" ;;
	esac
}

run_shipped() {
	list=$SHIPPED/kselftest-list.txt
	echo "TAP version 13"
	echo "1..$(grep -c : "$list")"
	i=0
	while IFS=: read -r coll test; do
		[ -n "$coll" ] && [ -n "$test" ] || continue
		i=$((i + 1))
		run_one "$i" "$coll" "$test"
	done <"$list"
}

if [ -r "$SHIPPED/kselftest-list.txt" ]; then
	run_shipped
	exit 0
fi

dir=""
if p=$(command -v run_kselftest.sh 2>/dev/null); then
	dir=${p%/*}
else
	for d in /usr/lib/kselftests /usr/lib/kselftest /usr/libexec/kselftests /opt/kselftests \
		/opt/kselftest /kselftests /kselftest /root/kselftests /usr/share/kselftests; do
		[ -x "$d/run_kselftest.sh" ] && { dir=$d; break; }
	done
fi
if [ -z "$dir" ]; then
	echo "1..0 # SKIP no kselftest install (run_kselftest.sh) on this board"
	exit 0
fi

available=$(cd "$dir" && ./run_kselftest.sh -l 2>/dev/null)
sel=""
for t in $PREFERRED; do
	echo "$available" | grep -qx "$t" && sel="$sel -t $t"
done
if [ -z "$sel" ]; then
	echo "1..0 # SKIP none of the default selftests is installed in $dir"
	exit 0
fi
cd "$dir" || exit 1
# kselftest's own per-test timeout applies; ours bounds the whole run
timeout 600 ./run_kselftest.sh $sel
exit 0
