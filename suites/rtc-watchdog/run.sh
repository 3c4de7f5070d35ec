#!/bin/sh
# rtc-watchdog: report the presence and basic health of real-time clocks
# and watchdogs. An RTC keeps wall time across power cycles (and sets the
# clock at boot); a watchdog resets a hung board. Both are drivers that
# regress quietly. Absent devices SKIP their cases (same case names on
# every board). The watchdog device is never opened: opening it arms it.

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "$2" ] && echo "#   $2"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

echo "1..6"
rtc=""
for d in /sys/class/rtc/rtc*; do
	[ -d "$d" ] && { rtc=$d; break; }
done
devrtc=""
for d in /dev/rtc0 /dev/rtc /dev/rtc1; do
	[ -e "$d" ] && { devrtc=$d; break; }
done

if [ -n "$rtc" ] || [ -n "$devrtc" ]; then
	ok rtc.present
	echo "# rtc: ${rtc:-no sysfs class} ${devrtc:-no device node} $(cat "$rtc/name" 2>/dev/null)"
else
	skip rtc.present "no RTC on this board"
fi

if [ -z "$rtc" ]; then
	skip rtc.time_readable "no /sys/class/rtc entry"
	skip rtc.time_advances "no /sys/class/rtc entry"
else
	e1=$(cat "$rtc/since_epoch" 2>/dev/null)
	if [ -n "$e1" ] && [ "$e1" -gt 0 ] 2>/dev/null; then
		ok rtc.time_readable
		echo "# rtc date $(cat "$rtc/date" 2>/dev/null) $(cat "$rtc/time" 2>/dev/null)"
		sleep 2
		e2=$(cat "$rtc/since_epoch" 2>/dev/null)
		if [ -n "$e2" ] && [ "$e2" -gt "$e1" ] 2>/dev/null; then
			ok rtc.time_advances
		else
			notok rtc.time_advances "since_epoch $e1 then $e2 after 2s"
		fi
	else
		notok rtc.time_readable "since_epoch unreadable: '$e1'"
		skip rtc.time_advances "time not readable"
	fi
fi

if [ -n "$devrtc" ] && [ "$(id -u)" = 0 ] && command -v hwclock >/dev/null 2>&1; then
	if out=$(hwclock -r -f "$devrtc" 2>&1); then
		ok rtc.ioctl_read
		echo "# hwclock: $out"
	else
		notok rtc.ioctl_read "hwclock -r -f $devrtc: $out"
	fi
else
	skip rtc.ioctl_read "needs an RTC device node, root and hwclock"
fi

wd=""
for d in /sys/class/watchdog/watchdog*; do
	[ -d "$d" ] && { wd=$d; break; }
done
if [ -n "$wd" ] || [ -e /dev/watchdog ]; then
	ok watchdog.present
else
	skip watchdog.present "no watchdog on this board"
fi
if [ -n "$wd" ] && [ -r "$wd/identity" ]; then
	id=$(cat "$wd/identity" 2>/dev/null)
	if [ -n "$id" ]; then
		ok watchdog.identity_readable
		echo "# watchdog: $id, timeout $(cat "$wd/timeout" 2>/dev/null)s, state $(cat "$wd/state" 2>/dev/null)"
	else
		notok watchdog.identity_readable "empty identity"
	fi
else
	skip watchdog.identity_readable "no watchdog sysfs identity"
fi
exit 0
