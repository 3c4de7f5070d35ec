/*
 * test_blob: the content-addressed blob store — ids are the BLAKE2b of
 * the bytes, files land at blobs/<2>/<64>, a partial download is put in
 * place only when its hash is right and removed when it is not.
 */
#include "proto/tests/check.h"
#include "node/store/blob.h"

#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int check_failures;

static void s_write(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		abort();
	fwrite(p, 1, n, f);
	fclose(f);
}

int main(void)
{
	char home[] = "/tmp/test-blob-XXXXXX", *src, *part, *path;
	static const char text[] = "console log\nline two\n";
	uint8_t id[32], id2[32], want[32];
	uint64_t size = 0;

	if (!mkdtemp(home))
		return 1;
	/* memory: the id is the hash of the bytes */
	CHECK(blob_put_mem(home, text, sizeof(text) - 1, id) == 0);
	proto_id(text, sizeof(text) - 1, want);
	CHECK(memcmp(id, want, 32) == 0);
	CHECK(blob_have(home, id));
	path = blob_path(home, id);
	CHECK(blob_hash_file(path, id2, &size) == 0 && size == sizeof(text) - 1);
	CHECK(memcmp(id2, want, 32) == 0);
	free(path);
	/* a file with the same bytes is the same blob */
	src = xasprintf("%s/src", home);
	s_write(src, text, sizeof(text) - 1);
	CHECK(blob_put_file(home, src, id2) == 0);
	CHECK(memcmp(id2, id, 32) == 0);
	/* a part with the wrong bytes is refused and removed */
	path = xasprintf("%s/blobs/tmp", home);
	mkdir(path, 0700);
	free(path);
	proto_id("other", 5, want);
	part = blob_part_path(home, want);
	s_write(part, "not it", 6);
	CHECK(blob_commit_part(home, want) == -EBADMSG);
	CHECK(access(part, F_OK) != 0);
	CHECK(!blob_have(home, want));
	/* the right bytes go into place */
	s_write(part, "other", 5);
	CHECK(blob_commit_part(home, want) == 0);
	CHECK(blob_have(home, want));
	CHECK(access(part, F_OK) != 0);
	/* a missing file is an error, not a blob */
	CHECK(blob_put_file(home, "/nonexistent/file", id2) == -ENOENT);
	free(part);
	free(src);
	{
		char *cmd = xasprintf("rm -rf %s", home);

		if (system(cmd) != 0)
			check_failures++;
		free(cmd);
	}
	if (check_failures)
		fprintf(stderr, "%d check(s) failed\n", check_failures);
	return check_failures ? 1 : 0;
}
