#!/bin/sh
# hackbench: scheduler and IPC throughput (rt-tests' hackbench). Groups of
# senders and receivers pass messages over pipes and over Unix sockets;
# the time to pass them all is dominated by wake-ups and context switches,
# so scheduler regressions show as larger times. Median of three runs.
# Needs hackbench on the board. Prints metric lines.

GROUPS=${LABMESH_HACKBENCH_GROUPS:-2}
LOOPS=${LABMESH_HACKBENCH_LOOPS:-200}

# med3 A B C
med3() { printf '%s\n%s\n%s\n' "$1" "$2" "$3" | sort -n | sed -n 2p; }

# one MODE-ARGS: prints the median time of three runs, or nothing
one() {
	t1=""
	t2=""
	t3=""
	for i in 1 2 3; do
		t=$(timeout 60 hackbench -P $1 -g "$GROUPS" -f 10 -l "$LOOPS" 2>&1 |
			sed -n 's/^Time: *\([0-9][0-9.]*\).*/\1/p')
		[ -n "$t" ] || return 1
		eval "t$i=\$t"
	done
	med3 "$t1" "$t2" "$t3"
}

echo "# hackbench -P -g $GROUPS -f 10 -l $LOOPS, median of 3"
if p=$(one -p); then
	echo "pipe_time $p s"
else
	echo "# hackbench over pipes failed"
fi
if s=$(one ""); then
	echo "socket_time $s s"
else
	echo "# hackbench over sockets failed"
fi
exit 0
