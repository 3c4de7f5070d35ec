#!/bin/sh
# boot-health: this boot's kernel log, judged on the host by the klog
# parser (suites/parse_klog.c): oopses, BUGs, WARN() splats, panics, call
# traces, lockups and RCU stalls, each recognised by the form the kernel
# prints it in, and the time the kernel took to hand over to init as a
# metric. These are the first signs of a kernel regression on any board,
# whatever else runs. Needs only busybox (dmesg, grep, head).
#
# Only the lines the parser can judge travel (a serial console is slow): a
# loose filter, a superset of every form the parser recognises, and the
# line of '=' that heads lockdep, KASAN and UBSAN reports.

LOG=${LABMESH_TMP:-/tmp}/dmesg.$$
if ! dmesg >"$LOG" 2>/dev/null || [ ! -s "$LOG" ]; then
	rm -f "$LOG"
	# dmesg_restrict or no printk buffer: nothing to judge, not a failure
	echo "kernel log not readable (kernel.dmesg_restrict=1 and not root?)"
	exit 77
fi
if [ -r /proc/uptime ]; then
	read -r up _ </proc/uptime
	echo "labmesh-klog: uptime $up"
fi
# how much log there was: a log that wrapped past boot may keep no line
# through the filter below, and is then clean, not missing
echo "labmesh-klog: lines $(wc -l <"$LOG")"
grep -E 'WARNING|BUG|Oops|Internal error|Unable to handle|\[#[0-9]+\]|panic|Call [Tt]race|Backtrace|cut here|LOCKUP|lockup|stall|blocked for more than|UBSAN|as init process|Freeing unused kernel|==========$' "$LOG" |
	head -n 4000
rm -f "$LOG"
exit 0
