#!/bin/sh
# boot-health: the kernel log of this boot must be free of oopses, BUGs,
# WARNINGs, panics, call traces, lockups and RCU stalls, and the time the
# kernel took to hand over to init is reported as a metric. These are the
# first signs of a kernel regression on any board, whatever else runs.
# Needs only busybox (dmesg, grep, sed).

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

LOG=${LABMESH_TMP:-/tmp}/dmesg.$$
echo "1..8"
if dmesg >"$LOG" 2>/dev/null && [ -s "$LOG" ]; then
	ok dmesg_readable
	readable=1
else
	# dmesg_restrict or no printk buffer: nothing to judge, not a failure
	skip dmesg_readable "kernel log not readable (kernel.dmesg_restrict=1 and not root?)"
	readable=0
fi

# check NAME REGEX: the case fails when the log matches, showing the lines
check() {
	if [ "$readable" != 1 ]; then
		skip "$1" "kernel log not readable"
	elif grep -E "$2" "$LOG" >"$LOG.hit" 2>/dev/null; then
		notok "$1"
		head -n 5 "$LOG.hit" | sed 's/^/#   /'
	else
		ok "$1"
	fi
}

check no_oops 'Oops:|Unable to handle kernel|general protection fault|BUG: unable to handle'
check no_bug 'BUG:|kernel BUG at'
check no_warning 'WARNING:|------------\[ cut here \]------------'
check no_panic 'Kernel panic|kernel panic'
check no_call_trace 'Call Trace:|Call trace:'
check no_lockup_or_stall 'soft lockup|hard LOCKUP|detected stalls|blocked for more than [0-9]+ seconds'

# Boot time: the timestamp of the kernel handing over to init; when the log
# has wrapped or has no timestamps, the uptime now (an upper bound).
bt=""
if [ "$readable" = 1 ]; then
	bt=$(grep -E 'Run .* as init process|Freeing unused kernel (image|memory)' "$LOG" |
		sed -n 's/^\[ *\([0-9][0-9]*\.[0-9]*\)\].*/\1/p' | tail -n 1)
fi
src="init hand-over in the kernel log"
if [ -z "$bt" ] && [ -r /proc/uptime ]; then
	read -r bt _ </proc/uptime
	src="/proc/uptime"
fi
if [ -n "$bt" ]; then
	echo "# metric boot_time $bt s"
	ok boot_time
	printf '  ---\n  message: "%s s, from %s"\n  ...\n' "$bt" "$src"
else
	skip boot_time "no kernel log timestamps and no /proc/uptime"
fi
rm -f "$LOG" "$LOG.hit"
exit 0
