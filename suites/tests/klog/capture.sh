#!/bin/bash
# capture.sh: record what a real kernel prints when it warns, BUGs, oopses,
# locks up, hangs a task or panics, for the klog parser's tests
# (test_parse.c reads the *.log files here, and the suites-klog fuzz
# harness starts from them).
#
# It boots the QEMU x86_64 test board (scripts/mkboard: Debian's cloud
# kernel) once per report, with a second initramfs layer whose init loads
# lmsplat.ko (built here against the kernel's own headers) to make the
# kernel print the report, then prints the kernel log on the console. The
# log between the markers is written to NAME.log. Needs root (apt-get for
# the headers), qemu-system-x86_64, make and gcc.
# usage: capture.sh SOURCE_ROOT [NAME...]   (default: every report)
set -euo pipefail
root=$(cd "${1:?usage: capture.sh SOURCE_ROOT [NAME...]}" && pwd)
shift
here=$(cd "$(dirname "$0")" && pwd)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(warn bug oops softlockup hungtask panic)

board=$("$root/scripts/mkboard" --arch x86_64 --print-dir | tail -n 1)
# shellcheck disable=SC1091
. "$board/board.env"
hdr=/usr/src/linux-headers-$KVERSION
if [ ! -d "$hdr" ]; then
	apt-get install -y -qq "linux-headers-$KVERSION" >&2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/klog-capture.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp "$here/lmsplat.c" "$here/Kbuild" "$tmp/"
make -s -C "$hdr" M="$tmp" modules >&2

for name in "${names[@]}"; do
	# what the init does before it prints the log
	case $name in
	warn | bug | oops) trigger="insmod /lmsplat.ko what=$name" ;;
	softlockup)
		trigger="echo 1 >/proc/sys/kernel/watchdog_thresh
echo 3 >/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout
insmod /lmsplat.ko what=softlockup spin_seconds=8; sleep 10" ;;
	hungtask)
		trigger="echo 2 >/proc/sys/kernel/hung_task_timeout_secs
insmod /lmsplat.ko what=hungtask spin_seconds=8; sleep 10" ;;
	panic) trigger="echo c >/proc/sysrq-trigger" ;;
	*) echo "capture.sh: unknown report '$name'" >&2; exit 2 ;;
	esac
	layer=$tmp/layer-$name
	rm -rf "$layer"
	mkdir -p "$layer"
	cp "$tmp/lmsplat.ko" "$layer/"
	cat >"$layer/capture-init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
$trigger
sleep 1
echo "=== klog begin"
dmesg
echo "=== klog end"
poweroff -f
INIT
	chmod 755 "$layer/capture-init"
	(cd "$layer" && find . | cpio -o -H newc -R 0:0 --quiet | gzip) >"$tmp/layer.gz"
	cat "$INITRD" "$tmp/layer.gz" >"$tmp/initrd-$name.img"
	echo "capture.sh: $name" >&2
	# the panic never reaches the markers: the console itself is its log
	timeout 180 "$QEMU" -machine "$MACHINE" -cpu "$CPU" -m 512 -smp 1 -nographic \
		-no-reboot -kernel "$KERNEL" -initrd "$tmp/initrd-$name.img" \
		-append "console=ttyS0 panic=-1 rdinit=/capture-init" \
		</dev/null >"$tmp/$name.console" 2>&1 || true
	if [ "$name" = panic ]; then
		tr -d '\r' <"$tmp/$name.console" | sed -n '/^\[ *[0-9]/,$p' >"$here/$name.log"
	else
		tr -d '\r' <"$tmp/$name.console" |
			sed -n '/^=== klog begin/,/^=== klog end/p' | sed '1d;$d' >"$here/$name.log"
	fi
	[ -s "$here/$name.log" ] || { echo "capture.sh: $name: nothing captured" >&2; tail -n 20 "$tmp/$name.console" >&2; exit 1; }
	echo "capture.sh: $name: $(wc -l <"$here/$name.log") lines" >&2
done
