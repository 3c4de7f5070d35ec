#!/bin/sh
# cyclictest: timer wake-up latency with rt-tests' cyclictest (one thread,
# 1 ms interval, 2000 loops; as root with SCHED_FIFO 80 and mlockall).
# The worst case is what real-time users care about: it moves with
# interrupt handling, preemption and idle-state changes in the kernel.
# Needs cyclictest on the board. Prints metric lines (microseconds).

LOOPS=${LABMESH_CYCLICTEST_LOOPS:-2000}
if [ "$(id -u)" = 0 ]; then
	rt="-m -p 80"
else
	rt=""
	echo "# not root: SCHED_OTHER, no mlockall"
fi
out=$(timeout 60 cyclictest -q $rt -t 1 -i 1000 -l "$LOOPS" 2>&1)
line=$(echo "$out" | grep '^T: *0 ' | tail -n 1)
if [ -z "$line" ]; then
	echo "# cyclictest produced no summary:"
	echo "$out" | tail -n 3 | sed 's/^/# /'
	exit 0
fi
echo "# $line"
echo "$line" | sed -n 's/.*Min: *\([0-9][0-9]*\).*Avg: *\([0-9][0-9]*\).*Max: *\([0-9][0-9]*\).*/min_latency \1 us\
avg_latency \2 us\
max_latency \3 us/p'
exit 0
