#!/bin/sh
# kconfig: the running kernel's configuration has the options a test lab
# relies on (proc/sys/devtmpfs, initramfs, ELF and script binaries,
# futex/epoll, timers, IPC, Unix and IPv4 sockets, ptys). A kernel built
# without them boots but silently cannot run half the catalog.
# Reads /proc/config.gz, else /boot/config-$(uname -r); SKIPs when neither.

# name:accepted values (y = built in; y|m = built in or module)
OPTIONS="
CONFIG_PROC_FS:y
CONFIG_PROC_SYSCTL:y
CONFIG_SYSFS:y
CONFIG_DEVTMPFS:y
CONFIG_TMPFS:y
CONFIG_SHMEM:y
CONFIG_BLK_DEV_INITRD:y
CONFIG_BINFMT_ELF:y
CONFIG_BINFMT_SCRIPT:y|m
CONFIG_PRINTK:y
CONFIG_MULTIUSER:y
CONFIG_FUTEX:y
CONFIG_EPOLL:y
CONFIG_POSIX_TIMERS:y
CONFIG_HIGH_RES_TIMERS:y
CONFIG_SYSVIPC:y
CONFIG_POSIX_MQUEUE:y
CONFIG_UNIX:y|m
CONFIG_INET:y
CONFIG_UNIX98_PTYS:y
"

CFG=${LABMESH_TMP:-/tmp}/kconfig.$$
src=""
if [ -r /proc/config.gz ] && zcat /proc/config.gz >"$CFG" 2>/dev/null && [ -s "$CFG" ]; then
	src=/proc/config.gz
elif [ -r "/boot/config-$(uname -r)" ]; then
	cp "/boot/config-$(uname -r)" "$CFG" && src="/boot/config-$(uname -r)"
fi
if [ -z "$src" ]; then
	echo "1..0 # SKIP no /proc/config.gz and no /boot/config-$(uname -r)"
	exit 0
fi

set -- $OPTIONS
echo "1..$(($# + 1))"
echo "# kernel $(uname -r), config from $src"
n=0
# the file must look like a kernel config at all
n=$((n + 1))
if grep -q '^CONFIG_' "$CFG"; then
	echo "ok $n - config_parses"
else
	echo "not ok $n - config_parses"
fi
for spec in "$@"; do
	opt=${spec%%:*}
	want=${spec#*:}
	got=$(sed -n "s/^$opt=//p" "$CFG" | tail -n 1)
	[ -n "$got" ] || got=n
	n=$((n + 1))
	case "|$want|" in
	*"|$got|"*) echo "ok $n - $opt" ;;
	*)
		echo "not ok $n - $opt"
		echo "#   $opt=$got, want $want"
		;;
	esac
done
rm -f "$CFG"
exit 0
