/*
 * results_gc: blob retention. Blobs (logs, kernel images) live under
 * HOME/blobs/<2 hex>/<64 hex>, named by their BLAKE2b id. They are a
 * cache of content anyone can fetch again from a peer that holds it, so
 * under a size budget the least recently used go first. Records are never
 * touched here.
 *
 * "Used" is the later of atime and mtime. Atime alone is no use order
 * (noatime and relatime mounts do not keep it), so every reader marks a
 * blob used explicitly: blob_path() and blob_have() (node/store/blob.c)
 * call blob_touch(), which sets both to now, and every read of a blob
 * by the node or a command (serving it to a peer, `labmesh log`, a job's
 * kernel) goes through them. Ties break by name, so the eviction order is
 * deterministic.
 *
 * The running node calls results_gc_node() every few minutes and soon
 * after a blob is stored, with the blobs a job not yet finished names as
 * its kernel or initrd (jobs_pinned_blobs, node/jobs: jobs.db is read
 * only there); those are never removed.
 */
#include "node/results/results.h"

#include "proto/log.h"
#include "proto/mem.h"
#include "proto/types.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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

static int s_cmp_id(const void *pa, const void *pb)
{
	return memcmp(pa, pb, 32);
}

static bool s_kept(const s_blob_t *b, const uint8_t (*keep)[32],
		   size_t n_keep)
{
	uint8_t id[32];

	if (!n_keep || proto_unhex(b->name, id, 32) < 0)
		return false;
	return bsearch(id, keep, n_keep, 32, s_cmp_id) != NULL;
}

static int s_gc(const char *home, uint64_t budget, uint8_t (*keep)[32],
		size_t n_keep, bool say, results_gc_stats_t *ret_stats)
{
	char *dir = xasprintf("%s/blobs", home);
	results_gc_stats_t st = { 0 };
	s_list_t l = { 0 };
	int rc = s_scan(dir, &l);

	if (rc < 0)
		goto out;
	if (l.n)
		qsort(l.b, l.n, sizeof(*l.b), s_cmp_lru);
	if (n_keep)
		qsort(keep, n_keep, 32, s_cmp_id);
	for (size_t i = 0; i < l.n; i++) {
		st.files++;
		st.bytes += l.b[i].size;
	}
	for (size_t i = 0; i < l.n && st.bytes - st.freed > budget; i++) {
		char *p;

		if (s_kept(&l.b[i], keep, n_keep)) {
			st.kept++;
			continue;
		}
		p = xasprintf("%s/%.2s/%s", dir, l.b[i].name, l.b[i].name);
		if (unlink(p) == 0) {
			st.evicted++;
			st.freed += l.b[i].size;
			if (say)
				log_info("evicted blob %s (%llu bytes, last"
					 " used %llds ago)", l.b[i].name,
					 (unsigned long long)l.b[i].size,
					 (long long)(time(NULL) -
						     l.b[i].used.tv_sec));
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

int results_gc(const char *home, uint64_t budget,
	       results_gc_stats_t *ret_stats)
{
	return s_gc(home, budget, NULL, 0, false, ret_stats);
}

int results_gc_keep(const char *home, uint64_t budget, uint8_t (*keep)[32],
		    size_t n_keep, results_gc_stats_t *ret_stats)
{
	return s_gc(home, budget, keep, n_keep, false, ret_stats);
}

int results_gc_node(const char *home, uint64_t budget, uint8_t (*keep)[32],
		    size_t n_keep, results_gc_stats_t *ret_stats)
{
	results_gc_stats_t st = { 0 };
	int rc;

	rc = s_gc(home, budget, keep, n_keep, true, &st);
	if (rc < 0)
		log_warn("blob gc: %s", strerror(-rc));
	else if (st.evicted || st.kept)
		log_info("blob gc: budget %llu bytes, held %llu in %llu blobs;"
			 " evicted %llu (%llu bytes), kept %llu a job needs",
			 (unsigned long long)budget,
			 (unsigned long long)st.bytes,
			 (unsigned long long)st.files,
			 (unsigned long long)st.evicted,
			 (unsigned long long)st.freed,
			 (unsigned long long)st.kept);
	if (ret_stats)
		*ret_stats = st;
	return rc;
}
