/*
 * test_cpio: a folder packed as the newc archive the kernel unpacks: the
 * prefix's folders first, then the folder in name order with folders
 * before what they hold, modes kept, owner root, a link's target as its
 * data, every header on a 4-byte boundary, the trailer last; the same
 * folder gives the same bytes; a fifo is refused and leaves no archive;
 * two archives joined start the second on a 4-byte boundary.
 */
#include "proto/tests/check.h"
#include "node/jobs/cpio.h"

#include "proto/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int check_failures;

static void s_write(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static char *s_read(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	char *buf = xmalloc(1 << 20);

	*ret_len = f ? fread(buf, 1, 1 << 20, f) : 0;
	if (f)
		fclose(f);
	return buf;
}

static unsigned long s_field(const char *h, int i)
{
	char f[9];

	memcpy(f, h + 6 + 8 * i, 8);
	f[8] = '\0';
	return strtoul(f, NULL, 16);
}

/* Walk the archive: names joined by ' ', and each entry's checks. */
static void s_walk(const char *a, size_t len, char *names, size_t nsz)
{
	size_t off = 0;

	names[0] = '\0';
	while (off + 110 <= len) {
		const char *h = a + off;
		unsigned long mode = s_field(h, 1), size = s_field(h, 6);
		unsigned long nlen = s_field(h, 11);

		CHECK(memcmp(h, "070701", 6) == 0);
		CHECK(off % 4 == 0);
		CHECK(s_field(h, 2) == 0 && s_field(h, 3) == 0);
		CHECK(h[110 + nlen - 1] == '\0');
		snprintf(names + strlen(names), nsz - strlen(names), "%s%s",
			 names[0] ? " " : "", h + 110);
		if (!strcmp(h + 110, "p/x/run.sh"))
			CHECK((mode & 07777) == 0755 && size == 5 &&
			      !memcmp(h + 110 + ((nlen + 1) & ~3UL) + 2,
				      "echo\n", 5));
		if (!strcmp(h + 110, "p/x/link"))
			CHECK((mode & 0170000) == 0120000 && size == 6);
		if (!strcmp(h + 110, "TRAILER!!!"))
			break;
		off += (110 + nlen + 3) & ~3UL;
		off += (size + 3) & ~3UL;
	}
}

/* dir/rel in a static buffer of its own (one of four, in turn). */
static const char *s_p(const char *dir, const char *rel)
{
	static char bufs[4][256];
	static int i;
	char *b = bufs[i++ % 4];

	snprintf(b, sizeof(bufs[0]), "%s/%s", dir, rel);
	return b;
}

int main(void)
{
	char dir[] = "/tmp/test-cpio-XXXXXX", names[512], x[256], out[256];
	char *a, *b;
	size_t alen, blen;

	if (!mkdtemp(dir))
		return 1;
	snprintf(x, sizeof(x), "%s/x", dir);
	snprintf(out, sizeof(out), "%s/a.cpio", dir);
	mkdir(x, 0755);
	mkdir(s_p(dir, "x/sub"), 0700);
	s_write(s_p(dir, "x/run.sh"), "echo\n", 0755);
	s_write(s_p(dir, "x/sub/data"), "abc", 0644);
	CHECK(symlink("run.sh", s_p(dir, "x/link")) == 0);
	CHECK(cpio_pack_dir(x, "p/x", out) == 0);
	CHECK(cpio_pack_dir(x, "p/x", s_p(dir, "b.cpio")) == 0);
	a = s_read(out, &alen);
	b = s_read(s_p(dir, "b.cpio"), &blen);
	CHECK(alen > 0 && alen == blen && !memcmp(a, b, alen));
	CHECK(alen % 4 == 0);
	s_walk(a, alen, names, sizeof(names));
	CHECK(!strcmp(names, "p p/x p/x/link p/x/run.sh p/x/sub p/x/sub/data"
			     " TRAILER!!!"));
	free(b);

	/* joined after a 3-byte file: the second archive at offset 4 */
	s_write(s_p(dir, "first"), "abc", 0644);
	CHECK(cpio_concat(s_p(dir, "first"), out, s_p(dir, "joined")) == 0);
	b = s_read(s_p(dir, "joined"), &blen);
	CHECK(blen == alen + 4 && b[3] == '\0' && !memcmp(b + 4, a, alen));

	/* folders nested past CPIO_MAX_DEPTH: refused */
	snprintf(x, sizeof(x), "%s/deep", dir);
	mkdir(x, 0755);
	for (int i = 0; i <= CPIO_MAX_DEPTH; i++) {
		strcat(x, "/d");
		mkdir(x, 0755);
	}
	snprintf(x, sizeof(x), "%s/deep", dir);
	CHECK_ERR(cpio_pack_dir(x, "p", out), -E2BIG);
	snprintf(x, sizeof(x), "%s/x", dir);

	/* a fifo: refused, no archive left */
	CHECK(mkfifo(s_p(dir, "x/fifo"), 0600) == 0);
	unlink(out);
	CHECK_ERR(cpio_pack_dir(x, "p/x", out), -EINVAL);
	CHECK(access(out, F_OK) != 0);
	CHECK(access(s_p(dir, "a.cpio.tmp"), F_OK) != 0);
	free(a);
	free(b);
	snprintf(x, sizeof(x), "rm -rf %s", dir);
	(void)!system(x);
	CHECK_DONE();
}
