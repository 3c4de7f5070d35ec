/*
 * blob: content-addressed files in HOME/blobs (see blob.h). Written to a
 * temporary file, hashed, fsynced and renamed into place.
 */
#include "node/store/blob.h"

#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOB_IO_CHUNK (256 * 1024)

int blob_touch(const char *home, const uint8_t id[BLOB_ID_BYTES])
{
	char hex[65];
	char *p;
	int rc = 0;

	proto_hex(id, BLOB_ID_BYTES, hex);
	p = xasprintf("%s/blobs/%.2s/%s", home, hex, hex);
	if (utimensat(AT_FDCWD, p, NULL, 0) < 0)
		rc = -errno;
	free(p);
	return rc;
}

/* Whoever asks for a blob's path (or whether we have it) is about to
 * read or serve it: mark it used for the retention order (results_gc.c);
 * a blob not held yet is left alone. */
char *blob_path(const char *home, const uint8_t id[BLOB_ID_BYTES])
{
	char hex[2 * BLOB_ID_BYTES + 1];

	proto_hex(id, BLOB_ID_BYTES, hex);
	(void)blob_touch(home, id);
	return xasprintf("%s/blobs/%.2s/%s", home, hex, hex);
}

char *blob_part_path(const char *home, const uint8_t id[BLOB_ID_BYTES])
{
	char hex[2 * BLOB_ID_BYTES + 1];

	proto_hex(id, BLOB_ID_BYTES, hex);
	return xasprintf("%s/blobs/tmp/%s.part", home, hex);
}

bool blob_have(const char *home, const uint8_t id[BLOB_ID_BYTES])
{
	char *path = blob_path(home, id);
	bool ok = access(path, R_OK) == 0;

	free(path);
	return ok;
}

static int s_mkdirs(const char *home, const char *hex2)
{
	char *d = xasprintf("%s/blobs", home);
	int rc = 0;

	if (mkdir(d, 0700) < 0 && errno != EEXIST)
		rc = -errno;
	free(d);
	d = xasprintf("%s/blobs/%s", home, hex2);
	if (rc == 0 && mkdir(d, 0700) < 0 && errno != EEXIST)
		rc = -errno;
	free(d);
	return rc;
}

int blob_hash_file(const char *path, uint8_t ret_id[BLOB_ID_BYTES],
		   uint64_t *ret_size)
{
	crypto_generichash_state st;
	uint8_t *buf;
	uint64_t total = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	buf = xmalloc(BLOB_IO_CHUNK);
	crypto_generichash_init(&st, NULL, 0, BLOB_ID_BYTES);
	while ((n = read(fd, buf, BLOB_IO_CHUNK)) > 0) {
		total += (uint64_t)n;
		if (total > BLOB_MAX_SIZE) {
			rc = -EFBIG;
			break;
		}
		crypto_generichash_update(&st, buf, (size_t)n);
	}
	if (n < 0)
		rc = -errno;
	crypto_generichash_final(&st, ret_id, BLOB_ID_BYTES);
	free(buf);
	close(fd);
	if (rc == 0 && ret_size)
		*ret_size = total;
	return rc;
}

/* Move a verified temporary file to its id's place. */
static int s_place(const char *home, const char *tmp,
		   const uint8_t id[BLOB_ID_BYTES])
{
	char hex[2 * BLOB_ID_BYTES + 1], *dst;
	int rc;

	proto_hex(id, BLOB_ID_BYTES, hex);
	rc = s_mkdirs(home, (char[]){ hex[0], hex[1], 0 });
	if (rc < 0)
		return rc;
	dst = blob_path(home, id);
	rc = rename(tmp, dst) < 0 ? -errno : 0;
	free(dst);
	return rc;
}

static int s_tmp_open(const char *home, char **ret_tmp)
{
	char *dir = xasprintf("%s/blobs/tmp", home), *tmp;
	int fd;

	s_mkdirs(home, "tmp");
	tmp = xasprintf("%s/blob-XXXXXX", dir);
	free(dir);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		free(tmp);
		return -e;
	}
	*ret_tmp = tmp;
	return fd;
}

static int s_write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

int blob_put_mem(const char *home, const void *p, size_t n,
		 uint8_t ret_id[BLOB_ID_BYTES])
{
	char *tmp = NULL;
	int fd, rc;

	if (n > BLOB_MAX_SIZE)
		return -EFBIG;
	proto_id(p, n, ret_id);
	if (blob_have(home, ret_id))
		return 0;
	fd = s_tmp_open(home, &tmp);
	if (fd < 0)
		return fd;
	rc = s_write_all(fd, p, n);
	if (rc == 0 && fsync(fd) < 0)
		rc = -errno;
	close(fd);
	if (rc == 0)
		rc = s_place(home, tmp, ret_id);
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

static int s_copy(int in, int out)
{
	uint8_t *buf = xmalloc(BLOB_IO_CHUNK);
	uint64_t total = 0;
	ssize_t n;
	int rc = 0;

	while (rc == 0 && (n = read(in, buf, BLOB_IO_CHUNK)) != 0) {
		if (n < 0) {
			rc = errno == EINTR ? 0 : -errno;
			continue;
		}
		total += (uint64_t)n;
		rc = total > BLOB_MAX_SIZE ? -EFBIG :
					     s_write_all(out, buf, (size_t)n);
	}
	free(buf);
	return rc;
}

int blob_put_file(const char *home, const char *src,
		  uint8_t ret_id[BLOB_ID_BYTES])
{
	char *tmp = NULL;
	int in, out, rc;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = s_tmp_open(home, &tmp);
	if (out < 0) {
		close(in);
		return out;
	}
	rc = s_copy(in, out);
	close(in);
	if (rc == 0 && fsync(out) < 0)
		rc = -errno;
	close(out);
	/* hash what was written, not what the source holds now */
	if (rc == 0)
		rc = blob_hash_file(tmp, ret_id, NULL);
	if (rc == 0 && blob_have(home, ret_id)) {
		unlink(tmp);
	} else if (rc == 0) {
		rc = s_place(home, tmp, ret_id);
	}
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

int blob_commit_part(const char *home, const uint8_t id[BLOB_ID_BYTES])
{
	char *part = blob_part_path(home, id);
	uint8_t got[BLOB_ID_BYTES];
	int rc = blob_hash_file(part, got, NULL);

	if (rc == 0 && sodium_memcmp(got, id, BLOB_ID_BYTES) != 0)
		rc = -EBADMSG;
	if (rc == 0)
		rc = s_place(home, part, id);
	if (rc == -EBADMSG)
		unlink(part);
	free(part);
	return rc;
}
