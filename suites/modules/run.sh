#!/bin/sh
# modules: load and unload a harmless library module (crc7, crc-itu-t,
# cordic...: no hardware, no side effects), checking /proc/modules and
# /sys/module before and after. Module loading, symbol resolution and
# unload are how most drivers reach a board; they break with signing,
# compression and ABI changes. SKIPs without module support or modules.

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "$2" ] && echo "#   $2"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
CASES="list_modules load listed_after_load sysfs_entry unload gone_after_unload"
skip_all() {
	echo "1..6"
	for c in $CASES; do skip "$c" "$1"; done
	exit 0
}

KVER=$(uname -r)
MODDIR=/lib/modules/$KVER
[ -r /proc/modules ] || skip_all "kernel without module support (no /proc/modules)"
[ -d "$MODDIR" ] || skip_all "no $MODDIR"
[ "$(id -u)" = 0 ] || skip_all "needs root"

loaded() { grep -q "^$1 " /proc/modules; }

# first candidate that exists as a file and is not loaded or built in
mod=""
file=""
for m in crc7 crc_itu_t cordic ts_kmp ts_fsm lru_cache rational crc8 crc4; do
	loaded "$m" && continue
	[ -d "/sys/module/$m" ] && continue # built in
	alt=$(echo "$m" | tr _ -)
	f=$(find "$MODDIR" \( -name "$m.ko*" -o -name "$alt.ko*" \) 2>/dev/null | head -n 1)
	if [ -n "$f" ]; then
		mod=$m
		file=$f
		break
	fi
done

echo "1..6"
if cat /proc/modules >/dev/null && { ! command -v lsmod >/dev/null 2>&1 || lsmod >/dev/null; }; then
	ok list_modules
else
	notok list_modules "reading /proc/modules or lsmod failed"
fi
if [ -z "$mod" ]; then
	for c in load listed_after_load sysfs_entry unload gone_after_unload; do
		skip "$c" "no harmless test module available in $MODDIR"
	done
	exit 0
fi
echo "# module $mod from $file"
# modprobe needs modules.dep; without it load the file directly
if [ -r "$MODDIR/modules.dep" ] && command -v modprobe >/dev/null 2>&1; then
	how="modprobe $mod"
else
	how="insmod $file"
fi
if out=$($how 2>&1); then
	ok load
else
	notok load "$how: $out"
fi
if loaded "$mod"; then ok listed_after_load; else notok listed_after_load "$mod not in /proc/modules"; fi
if [ -d "/sys/module/$mod" ]; then ok sysfs_entry; else notok sysfs_entry "no /sys/module/$mod"; fi
if out=$(rmmod "$mod" 2>&1); then ok unload; else notok unload "rmmod $mod: $out"; fi
if loaded "$mod" || [ -d "/sys/module/$mod" ]; then
	notok gone_after_unload "$mod still present"
else
	ok gone_after_unload
fi
exit 0
