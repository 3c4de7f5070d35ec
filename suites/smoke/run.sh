#!/bin/sh
# smoke: the core user space a test lab relies on is present and behaves:
# shell, file tools, text tools, archivers, checksums, process tools.
# Every other suite's run.sh uses these; on a new kernel or rootfs this is
# the first thing to break (exec, pipes, fork, file I/O all underneath).
# A missing command SKIPs its case; a wrong answer FAILs it.

n=0
W=${LABMESH_TMP:-/tmp}/smoke.$$
mkdir -p "$W" || { echo "1..0 # SKIP cannot create scratch dir"; exit 0; }
cd "$W" || exit 1

# t NAME COMMAND FUNCTION: case NAME needs COMMAND, passes when FUNCTION does
t() {
	n=$((n + 1))
	if ! command -v "$2" >/dev/null 2>&1; then
		echo "ok $n - $1 # SKIP $2 not found"
	elif ( $3 ) >"$W/.out" 2>&1; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		head -n 3 "$W/.out" | sed 's/^/#   /'
	fi
}

c_sh() { [ "$(sh -c 'x=20; echo $((x * 2 + 2))')" = 42 ] && ! sh -c 'exit 3' && { sh -c 'exit 3'; [ $? = 3 ]; }; }
c_echo() { [ "$(printf '%s-%d\n' ab 7)" = "ab-7" ] && [ "$(echo hello)" = hello ]; }
c_cat() { echo one >a && echo two >b && [ "$(cat a b | tr '\n' ' ')" = "one two " ]; }
c_ls() { mkdir -p lsd && : >lsd/x1 && : >lsd/x2 && [ "$(ls lsd | tr '\n' ' ')" = "x1 x2 " ]; }
c_cp() { seq 1 1000 >src && cp src dst && cmp src dst; }
c_mv() { echo mv >m1 && mv m1 m2 && [ ! -e m1 ] && [ "$(cat m2)" = mv ]; }
c_rm() { : >r1 && mkdir -p rd/sub && rm r1 && rm -r rd && [ ! -e r1 ] && [ ! -e rd ]; }
c_mkdir() { mkdir -p d1/d2/d3 && [ -d d1/d2/d3 ] && rmdir d1/d2/d3 && [ ! -e d1/d2/d3 ]; }
c_ln() { echo target >tg && ln -s tg sl && ln tg hl && [ "$(readlink sl)" = tg ] && [ "$(cat hl)" = target ]; }
c_grep() { printf 'alpha\nbeta\ngamma\n' >g && [ "$(grep -c a g)" = 3 ] && [ "$(grep -v -e alpha -e gamma g)" = beta ] && ! grep -q delta g; }
c_sed() { [ "$(echo 'hello world' | sed 's/o/0/g; s/^h/H/')" = "Hell0 w0rld" ]; }
c_awk() { [ "$(printf '1 x\n2 y\n39 z\n' | awk '{ s += $1 } END { print s, NR }')" = "42 3" ]; }
c_sort() { [ "$(printf '10\n9\n100\n' | sort -n | tr '\n' ' ')" = "9 10 100 " ] && [ "$(printf 'b\na\nc\n' | sort -r | tr '\n' ' ')" = "c b a " ]; }
c_uniq() { [ "$(printf 'a\na\nb\na\n' | uniq -c | awk '{print $1 $2}' | tr '\n' ' ')" = "2a 1b 1a " ]; }
c_tr() { [ "$(echo 'Hello' | tr 'a-z' 'A-Z')" = HELLO ] && [ "$(echo 'a-b-c' | tr -d -)" = abc ]; }
c_wc() { seq 1 100 >w && [ "$(wc -l <w)" -eq 100 ] && [ "$(printf abc | wc -c)" -eq 3 ]; }
c_headtail() { seq 1 50 >h && [ "$(head -n 2 h | tr '\n' ' ')" = "1 2 " ] && [ "$(tail -n 1 h)" = 50 ]; }
c_cut() { [ "$(echo 'a:b:c' | cut -d: -f2)" = b ]; }
c_find() { mkdir -p fd/a/b && : >fd/a/b/needle && [ "$(find fd -name needle)" = fd/a/b/needle ]; }
c_xargs() { [ "$(printf '1\n2\n3\n' | xargs echo)" = "1 2 3" ]; }
c_tar() { mkdir -p tsrc && seq 1 200 >tsrc/f && tar cf t.tar tsrc && mkdir tx && (cd tx && tar xf ../t.tar) && cmp tsrc/f tx/tsrc/f; }
c_gzip() { seq 1 5000 >z && cp z z.orig && gzip z && [ ! -e z ] && gunzip z.gz && cmp z z.orig; }
c_md5() { [ "$(printf abc | md5sum | cut -d' ' -f1)" = 900150983cd24fb0d6963f7d28e17f72 ]; }
c_sha256() { [ "$(printf abc | sha256sum | cut -d' ' -f1)" = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad ]; }
c_dd() { dd if=/dev/zero of=dz bs=1024 count=64 2>/dev/null && [ "$(wc -c <dz)" -eq 65536 ]; }
c_od() { [ "$(printf 'AB' | od -An -tx1 | tr -d ' \n')" = 4142 ]; }
c_date() { s=$(date +%s) && [ "$s" -gt 0 ] 2>/dev/null; }
c_ps() { ps >p 2>&1; grep -q . p; }
c_kill() { sleep 30 & p=$!; kill -0 $p && kill $p && wait $p; [ $? -ne 0 ] && ! kill -0 $p 2>/dev/null; }
c_timeout() { ! timeout 1 sleep 10; }
c_uname() { [ -n "$(uname -r)" ] && [ -n "$(uname -m)" ]; }
c_id() { [ "$(id -u)" -ge 0 ] 2>/dev/null; }
c_expr() { [ "$(expr 6 \* 7)" = 42 ]; }
c_cmp() { echo a >x1 && echo b >x2 && ! cmp -s x1 x2 && cmp -s x1 x1; }
c_mount() { mount | grep -q ' /proc '; }

count=35
echo "1..$count"
t shell.sh sh c_sh
t shell.printf printf c_echo
t files.cat cat c_cat
t files.ls ls c_ls
t files.cp cp c_cp
t files.mv mv c_mv
t files.rm rm c_rm
t files.mkdir mkdir c_mkdir
t files.ln ln c_ln
t files.find find c_find
t files.dd dd c_dd
t text.grep grep c_grep
t text.sed sed c_sed
t text.awk awk c_awk
t text.sort sort c_sort
t text.uniq uniq c_uniq
t text.tr tr c_tr
t text.wc wc c_wc
t text.head_tail tail c_headtail
t text.cut cut c_cut
t text.xargs xargs c_xargs
t text.od od c_od
t text.expr expr c_expr
t archive.tar tar c_tar
t archive.gzip gzip c_gzip
t checksum.md5sum md5sum c_md5
t checksum.sha256sum sha256sum c_sha256
t proc.ps ps c_ps
t proc.kill kill c_kill
t proc.timeout timeout c_timeout
t sys.date date c_date
t sys.uname uname c_uname
t sys.id id c_id
t sys.mount mount c_mount
t files.cmp cmp c_cmp
[ "$n" = "$count" ] || echo "# plan mismatch: $n cases"
cd / && rm -rf "$W"
exit 0
