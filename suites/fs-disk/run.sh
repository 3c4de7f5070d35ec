#!/bin/sh
# fs-disk: the same filesystem semantics as fs-tmpfs (fs.sh, an identical
# copy), on a disk filesystem (ext2/3/4, xfs, btrfs, f2fs, vfat...), where
# the block layer, the page cache writeback and the journal are involved.
# Uses LABMESH_TMP when it is on a disk filesystem, else a writable disk
# mount from /proc/mounts; SKIPs on RAM-only boards.
cd "${LABMESH_DIR:-.}" || exit 1
. ./fs.sh
DISK_TYPES="ext2 ext3 ext4 xfs btrfs f2fs vfat msdos exfat jfs reiserfs nilfs2 ubifs jffs2 bcachefs"

is_disk() {
	for d in $DISK_TYPES; do
		[ "$1" = "$d" ] && return 0
	done
	return 1
}

T=${LABMESH_TMP:-/tmp}
dir=""
type=$(fs_type_of "$T")
if is_disk "$type"; then
	dir=$T/fs.$$
else
	# the first read-write disk mount we can write into
	for m in $(awk '$4 ~ /(^|,)rw(,|$)/ { print $2 "|" $3 }' /proc/mounts); do
		if is_disk "${m#*|}" && mkdir "${m%|*}/.labmesh-fs.$$" 2>/dev/null; then
			dir=${m%|*}/.labmesh-fs.$$
			type=${m#*|}
			break
		fi
	done
fi
if [ -z "$dir" ] || ! mkdir -p "$dir"; then
	echo "1..0 # SKIP no writable disk filesystem mounted (LABMESH_TMP is on ${type:-unknown})"
	exit 0
fi
fs_cases "$dir" "$type"
rm -rf "$dir"
exit 0
