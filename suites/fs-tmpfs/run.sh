#!/bin/sh
# fs-tmpfs: filesystem semantics on tmpfs (create, write/read/verify,
# append, rename, unlink of an open file, fsync, truncate, hard and
# symbolic links, directories, a 16 MiB checksummed file, mtime, modes).
# tmpfs backs /dev/shm, /run and most initramfs boards; the cases are in
# fs.sh, shared with fs-disk. Uses LABMESH_TMP if it is a tmpfs, else a
# directory in /dev/shm, else (as root) a tmpfs mounted for the run.
cd "${LABMESH_DIR:-.}" || exit 1
. ./fs.sh
T=${LABMESH_TMP:-/tmp}
mnt=""
dir=""
if [ "$(fs_type_of "$T")" = tmpfs ]; then
	dir=$T/fs.$$
elif [ "$(fs_type_of /dev/shm)" = tmpfs ] && [ -w /dev/shm ]; then
	dir=/dev/shm/labmesh-fs.$$
elif [ "$(id -u)" = 0 ] && mkdir -p "$T/tmpfs" && mount -t tmpfs -o size=64m labmesh "$T/tmpfs"; then
	mnt=$T/tmpfs
	dir=$mnt/fs
fi
if [ -z "$dir" ] || ! mkdir -p "$dir"; then
	echo "1..0 # SKIP no tmpfs directory available (LABMESH_TMP and /dev/shm are not tmpfs, cannot mount)"
	exit 0
fi
fs_cases "$dir" tmpfs
rm -rf "$dir"
[ -n "$mnt" ] && umount "$mnt"
exit 0
