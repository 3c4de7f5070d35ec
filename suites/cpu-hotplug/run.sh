#!/bin/sh
# cpu-hotplug: take the highest-numbered hot-pluggable CPU offline and
# back online, checking that the kernel's online mask follows and that a
# task cannot be pinned to an offline CPU. CPU hotplug is also the path of
# suspend/resume and of kexec; its regressions deadlock or lose CPUs.
# SKIPs on one-CPU boards, without root, when no CPU can be offlined, and
# on a board reached by the local transport: that board is the machine
# labmesh itself runs on, whose other work must keep its CPUs (a run
# killed between offline and online would leave one offline).
# The CPU is always brought back online, even on failure.

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "$2" ] && echo "#   $2"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
skip_all() {
	echo "1..4"
	for c in offline online_mask_follows pin_to_offline_refused online_again; do skip "$c" "$1"; done
	exit 0
}

SYS=/sys/devices/system/cpu
cpu=""
for d in "$SYS"/cpu[0-9]*; do
	[ -w "$d/online" ] && [ "$(cat "$d/online" 2>/dev/null)" = 1 ] && [ "${d##*/cpu}" != 0 ] &&
		cpu=${d##*/cpu}
done
online_count=$(grep -c '^processor' /proc/cpuinfo 2>/dev/null)
[ "${online_count:-1}" -gt 1 ] || skip_all "only one CPU online"
[ "$(id -u)" = 0 ] || skip_all "needs root"
[ "${LABMESH_TRANSPORT:-}" != local ] ||
	skip_all "the board is the machine labmesh runs on (local transport): its CPUs stay online"
[ -n "$cpu" ] || skip_all "no secondary CPU with a writable online control"

restore() { echo 1 >"$SYS/cpu$cpu/online" 2>/dev/null; }
trap restore EXIT INT TERM

# in_mask CPU: is CPU in the ranges of $SYS/online (e.g. 0-3,5)?
in_mask() {
	for r in $(tr ',' ' ' <"$SYS/online"); do
		lo=${r%-*}
		hi=${r#*-}
		[ "$1" -ge "$lo" ] && [ "$1" -le "$hi" ] && return 0
	done
	return 1
}

echo "1..4"
echo "# cpu$cpu of $online_count; online mask $(cat "$SYS/online")"
if ! echo 0 >"$SYS/cpu$cpu/online" 2>/dev/null; then
	# the kernel refuses (e.g. no hotplug support on this platform)
	skip offline "writing 0 to cpu$cpu/online was refused"
	skip online_mask_follows "cpu not offlined"
	skip pin_to_offline_refused "cpu not offlined"
	skip online_again "cpu not offlined"
	exit 0
fi
if [ "$(cat "$SYS/cpu$cpu/online")" = 0 ]; then ok offline; else notok offline "online still reads $(cat "$SYS/cpu$cpu/online")"; fi
if in_mask "$cpu"; then notok online_mask_follows "mask $(cat "$SYS/online")"; else ok online_mask_follows; fi
if command -v taskset >/dev/null 2>&1; then
	if taskset -c "$cpu" true 2>/dev/null; then notok pin_to_offline_refused "taskset to cpu$cpu succeeded"; else ok pin_to_offline_refused; fi
else
	skip pin_to_offline_refused "taskset not found"
fi
if echo 1 >"$SYS/cpu$cpu/online" && [ "$(cat "$SYS/cpu$cpu/online")" = 1 ] && in_mask "$cpu"; then
	ok online_again
else
	notok online_again "cpu$cpu did not come back: mask $(cat "$SYS/online")"
fi
exit 0
