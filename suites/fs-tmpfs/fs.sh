# fs.sh: filesystem semantics cases, shared by fs-tmpfs and fs-disk (the
# two copies are identical). Sourced by run.sh, which picks the directory.
# fs_cases DIR FSTYPE prints TAP for a fixed list of cases in DIR.
# Needs busybox: dd, cmp, md5sum, stat, truncate, ln, readlink, mv, od.

FS_COUNT=20
FS_BIG_MB=16

fs_n=0
fs_case() {
	fs_n=$((fs_n + 1))
	if ( cd "$FS_DIR" && $2 ) >"$FS_DIR/.out" 2>&1; then
		echo "ok $fs_n - $1"
	else
		echo "not ok $fs_n - $1"
		head -n 3 "$FS_DIR/.out" | sed 's/^/#   /'
	fi
}
fs_skip() {
	fs_n=$((fs_n + 1))
	echo "ok $fs_n - $1 # SKIP $2"
}
fs_size() { stat -c %s "$1"; }

f_create() { : >c && [ -f c ] && [ "$(fs_size c)" -eq 0 ]; }
f_write_read() {
	dd if=/dev/urandom of=rnd bs=4096 count=64 2>/dev/null && cat rnd >wr && cmp rnd wr &&
		[ "$(fs_size wr)" -eq 262144 ]
}
f_append() { echo one >ap && echo two >>ap && echo three >>ap && [ "$(wc -l <ap)" -eq 3 ] && [ "$(tail -n 1 ap)" = three ]; }
f_overwrite() {
	printf 'AAAAAAAAAA' >ow && printf 'XY' | dd of=ow bs=1 seek=4 conv=notrunc 2>/dev/null &&
		[ "$(cat ow)" = AAAAXYAAAA ]
}
f_fsync() {
	dd if=/dev/urandom of=fsrc bs=4096 count=16 2>/dev/null &&
		dd if=fsrc of=fs bs=4096 conv=fsync 2>/dev/null && sync && cmp fsrc fs
}
f_rename() {
	echo moved >r1 && i=$(stat -c %i r1) && mv r1 r2 && [ ! -e r1 ] && [ "$(cat r2)" = moved ] &&
		[ "$(stat -c %i r2)" = "$i" ]
}
f_rename_replace() { echo new >rn && echo old >ro && mv rn ro && [ ! -e rn ] && [ "$(cat ro)" = new ]; }
f_rename_dir() { mkdir -p rd1/sub && echo in >rd1/sub/f && mv rd1 rd2 && [ ! -e rd1 ] && [ "$(cat rd2/sub/f)" = in ]; }
f_unlink() { echo x >ul && rm ul && [ ! -e ul ] && ! ls | grep -qx ul; }
f_unlink_open() {
	echo still-here >uo && exec 3<uo && rm uo && [ ! -e uo ] && [ "$(cat <&3)" = still-here ]
}
f_truncate_shrink() { seq 1 1000 >ts && truncate -s 100 ts && [ "$(fs_size ts)" -eq 100 ]; }
f_truncate_extend() {
	printf abc >te && truncate -s 8192 te && [ "$(fs_size te)" -eq 8192 ] &&
		[ "$(tail -c +4 te | tr -d '\000' | wc -c)" -eq 0 ] && [ "$(tail -c +4 te | wc -c)" -eq 8189 ] &&
		[ "$(head -c 3 te)" = abc ]
}
f_hardlink() {
	echo shared >h1 && ln h1 h2 && [ "$(stat -c %h h1)" -eq 2 ] &&
		[ "$(stat -c %i h1)" = "$(stat -c %i h2)" ] && echo more >>h2 &&
		[ "$(tail -n 1 h1)" = more ] && rm h1 && [ "$(stat -c %h h2)" -eq 1 ] &&
		[ "$(head -n 1 h2)" = shared ]
}
f_symlink() {
	echo pointee >st && ln -s st sl && [ -L sl ] && [ "$(readlink sl)" = st ] &&
		[ "$(cat sl)" = pointee ] && rm st && [ -L sl ] && [ ! -e sl ]
}
f_mkdir_rmdir() {
	mkdir -p md/a/b && : >md/a/f && ! rmdir md/a 2>/dev/null && rm md/a/f && rmdir md/a/b md/a md &&
		[ ! -e md ]
}
f_many_files() {
	mkdir mf && i=0 && while [ $i -lt 200 ]; do : >mf/f$i || return 1; i=$((i + 1)); done &&
		[ "$(ls mf | wc -l)" -eq 200 ] && rm -f mf/f* && [ "$(ls mf | wc -l)" -eq 0 ] && rmdir mf
}
f_large_file() {
	dd if=/dev/urandom of=chunk bs=65536 count=16 2>/dev/null || return 1
	i=0
	while [ $i -lt "$FS_BIG_MB" ]; do cat chunk; i=$((i + 1)); done >big || return 1
	want=$(i=0; while [ $i -lt "$FS_BIG_MB" ]; do cat chunk; i=$((i + 1)); done | md5sum | cut -d' ' -f1)
	[ "$(fs_size big)" -eq $((FS_BIG_MB * 1048576)) ] && [ "$(md5sum <big | cut -d' ' -f1)" = "$want" ]
	r=$?
	rm -f big chunk
	return $r
}
f_mtime() {
	: >mt && TZ=UTC touch -t 200001010000 mt && [ "$(stat -c %Y mt)" -eq 946684800 ] &&
		echo data >>mt && [ "$(stat -c %Y mt)" -gt 946684800 ]
}
f_chmod() { : >pm && chmod 640 pm && [ "$(stat -c %a pm)" = 640 ] && chmod 755 pm && [ "$(stat -c %a pm)" = 755 ]; }

# fs_cases DIR FSTYPE
fs_cases() {
	FS_DIR=$1
	nolinks=""
	case "$2" in
	vfat | msdos | exfat) nolinks="$2 has no hard or symbolic links" ;;
	esac
	avail=$(df -k "$FS_DIR" 2>/dev/null | awk 'NR > 1 { v = $(NF - 2) } END { print v + 0 }')
	echo "1..$FS_COUNT"
	echo "# directory $FS_DIR, filesystem $2, ${avail}K available"
	fs_case create f_create
	fs_case write_read f_write_read
	fs_case append f_append
	fs_case overwrite_in_place f_overwrite
	fs_case fsync f_fsync
	fs_case rename f_rename
	fs_case rename_replaces_target f_rename_replace
	fs_case rename_directory f_rename_dir
	fs_case unlink f_unlink
	fs_case unlink_open_file_still_readable f_unlink_open
	fs_case truncate_shrink f_truncate_shrink
	fs_case truncate_extend_zero_fills f_truncate_extend
	if [ -n "$nolinks" ]; then
		fs_skip hardlink "$nolinks"
		fs_skip symlink "$nolinks"
	else
		fs_case hardlink f_hardlink
		fs_case symlink f_symlink
	fi
	fs_case mkdir_rmdir f_mkdir_rmdir
	fs_case many_files f_many_files
	if [ "$avail" -ge $((FS_BIG_MB * 3 * 1024)) ]; then
		fs_case large_file_checksum f_large_file
	else
		fs_skip large_file_checksum "only ${avail}K free"
	fi
	fs_case mtime_set_and_updated f_mtime
	fs_case chmod_mode_bits f_chmod
	fs_case sync_succeeds sync
	[ "$fs_n" = "$FS_COUNT" ] || echo "# plan mismatch: $fs_n cases"
}

# fs_type_of PATH: the type of the filesystem holding PATH (longest mount)
fs_type_of() {
	p=$(cd "$1" 2>/dev/null && pwd -P) || return 1
	awk -v p="$p" '{ m = $2; if ((p == m || index(p, m "/") == 1 || m == "/") && length(m) >= best) { best = length(m); t = $3 } } END { print t }' /proc/mounts
}
