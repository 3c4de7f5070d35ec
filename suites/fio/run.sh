#!/bin/sh
# fio: small write-then-verify jobs under LABMESH_TMP (sequential and
# random 4 KiB writes with crc32c checksums, fsync on close, read back and
# checked). Catches data corruption in the page cache, the block layer and
# the filesystem, which functional tests with tiny files miss.
# Needs fio on the board; SKIPs when the scratch space is too small.

T=${LABMESH_TMP:-/tmp}
SIZE_MB=16
n=0
echo "1..2"
avail=$(df -k "$T" 2>/dev/null | awk 'NR > 1 { v = $(NF - 2) } END { print v + 0 }')
job() {
	n=$((n + 1))
	name=$1
	shift
	if [ "$avail" -lt $((SIZE_MB * 4 * 1024)) ]; then
		echo "ok $n - $name # SKIP only ${avail}K free in $T"
		return
	fi
	log=$T/fio-$name.log
	timeout 120 fio --name="$name" --filename="$T/fio-$name.dat" --size=${SIZE_MB}M --bs=4k \
		--ioengine=psync --verify=crc32c --do_verify=1 --verify_fatal=1 --fsync_on_close=1 \
		"$@" >"$log" 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -q 'err= *0' "$log" && ! grep -qiE 'verify: bad|verify failed' "$log"; then
		echo "ok $n - $name"
		grep -E '^ *(READ|WRITE):' "$log" | sed 's/^ */#   /'
	else
		echo "not ok $n - $name"
		echo "#   fio exit $rc"
		grep -iE 'err=|verify|error' "$log" | head -n 4 | sed 's/^ */#   /'
	fi
	rm -f "$log" "$T/fio-$name.dat"
}
job seq_write_verify --rw=write
job rand_write_verify --rw=randwrite --randrepeat=1
exit 0
