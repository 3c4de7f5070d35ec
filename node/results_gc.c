/*
 * results_gc: blob retention. Blobs (logs, kernel images) live under
 * HOME/blobs/<2 hex>/<64 hex>, named by their BLAKE2b id. They are a
 * cache of content anyone can fetch again from a peer that holds it, so
 * under a size budget the least recently used go first. Records are never
 * touched here.
 *
 * "Used" is the later of atime and mtime: results_blob_touch() sets both,
 * so the order holds on noatime mounts too. Ties break by name, so the
 * eviction order is deterministic.
 */
#include "node/results.h"

#include "proto/mem.h"
#include "proto/types.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GC_MAX_FILES (16 * 1024 * 1024) /* blobs considered in one pass */

typedef struct {
	char name[65];
	uint64_t size;
	struct timespec used;
} s_blob_t;

typedef struct {
	s_blob_t *b;
	size_t n, alloc;
} s_list_t;

static bool s_is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[n] == '\0';
}

static struct timespec s_later(struct timespec a, struct timespec b)
{
	if (a.tv_sec != b.tv_sec)
		return a.tv_sec > b.tv_sec ? a : b;
	return a.tv_nsec > b.tv_nsec ? a : b;
}

static int s_scan_dir(int dfd, const char *prefix, s_list_t *l)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;

	if (!d) {
		close(dfd);
		return -errno;
	}
	while ((e = readdir(d))) {
		struct stat st;
		s_blob_t *b;

		if (strlen(e->d_name) != 64 || !s_is_hex(e->d_name, 64) ||
		    strncmp(e->d_name, prefix, 2) != 0)
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || l->n >= GC_MAX_FILES)
			continue;
		if (l->n == l->alloc) {
			l->alloc = l->alloc ? l->alloc * 2 : 256;
			l->b = xreallocarray(l->b, l->alloc, sizeof(*l->b));
		}
		b = &l->b[l->n++];
		memcpy(b->name, e->d_name, 65);
		b->size = (uint64_t)st.st_size;
		b->used = s_later(st.st_atim, st.st_mtim);
	}
	closedir(d);
	return 0;
}

static int s_cmp_lru(const void *pa, const void *pb)
{
	const s_blob_t *a = pa, *b = pb;

	if (a->used.tv_sec != b->used.tv_sec)
		return a->used.tv_sec < b->used.tv_sec ? -1 : 1;
	if (a->used.tv_nsec != b->used.tv_nsec)
		return a->used.tv_nsec < b->used.tv_nsec ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int s_scan(const char *dir, s_list_t *l)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d)) && rc == 0) {
		int fd;

		if (strlen(e->d_name) != 2 || !s_is_hex(e->d_name, 2))
			continue;
		fd = openat(dirfd(d), e->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		rc = s_scan_dir(fd, e->d_name, l);
	}
	closedir(d);
	return rc;
}

int results_gc(const char *home, uint64_t budget,
	       results_gc_stats_t *ret_stats)
{
	char *dir = xasprintf("%s/blobs", home);
	results_gc_stats_t st = { 0 };
	s_list_t l = { 0 };
	int rc = s_scan(dir, &l);

	if (rc < 0)
		goto out;
	if (l.n)
		qsort(l.b, l.n, sizeof(*l.b), s_cmp_lru);
	for (size_t i = 0; i < l.n; i++) {
		st.files++;
		st.bytes += l.b[i].size;
	}
	for (size_t i = 0; i < l.n && st.bytes - st.freed > budget; i++) {
		char *p = xasprintf("%s/%.2s/%s", dir, l.b[i].name, l.b[i].name);

		if (unlink(p) == 0) {
			st.evicted++;
			st.freed += l.b[i].size;
		} else if (errno != ENOENT) {
			rc = -errno;
			free(p);
			break;
		}
		free(p);
	}
	if (ret_stats)
		*ret_stats = st;
out:
	free(l.b);
	free(dir);
	return rc;
}

int results_blob_touch(const char *home, const uint8_t id[32])
{
	char hex[65];
	char *p;
	int rc = 0;

	proto_hex(id, 32, hex);
	p = xasprintf("%s/blobs/%.2s/%s", home, hex, hex);
	if (utimensat(AT_FDCWD, p, NULL, 0) < 0)
		rc = -errno;
	free(p);
	return rc;
}

int results_parse_size(const char *s, uint64_t *ret)
{
	unsigned long long v;
	char *end;
	unsigned shift = 0;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case '\0': break;
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	case 'T': case 't': shift = 40; end++; break;
	default: return -EINVAL;
	}
	if (*end == 'i' || *end == 'B')
		end += (*end == 'i' && end[1] == 'B') ? 2 : 1;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -EINVAL;
	*ret = (uint64_t)v << shift;
	return 0;
}
