/*
 * cpio: a folder as a newc cpio archive (cpio.h). The folder is walked
 * depth first in name order (scandir with strcmp), folders before what
 * they hold, as the kernel needs them to unpack; each entry is a 110-byte
 * header of hex fields, the NUL-terminated name and the data (a file's
 * bytes, a link's target), each padded to 4 bytes; "TRAILER!!!" ends it.
 * Written to OUT.tmp and renamed, so a half-written archive is never
 * taken for one.
 */
#include "node/jobs/cpio.h"

#include "proto/mem.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
	FILE *f;
	long long bytes; /* written so far */
	unsigned entries;
	unsigned ino;
} s_arch_t;

static int s_pad(s_arch_t *a, long long len)
{
	static const char zero[4];
	size_t n = (size_t)((4 - (len & 3)) & 3);

	if (n && fwrite(zero, 1, n, a->f) != n)
		return -EIO;
	a->bytes += (long long)n;
	return 0;
}

/* One header and name; the data (size bytes) is the caller's to write. */
static int s_header(s_arch_t *a, const char *name, unsigned mode,
		    unsigned long long size)
{
	size_t nlen = strlen(name) + 1;
	int n;

	if (++a->entries > CPIO_MAX_ENTRIES ||
	    a->bytes + 512 + (long long)nlen + (long long)size > CPIO_MAX_BYTES)
		return -E2BIG;
	n = fprintf(a->f,
		    "070701%08X%08X%08X%08X%08X%08X%08llX%08X%08X%08X"
		    "%08X%08zX%08X",
		    ++a->ino, mode, 0u, 0u, S_ISDIR(mode) ? 2u : 1u, 0u, size,
		    0u, 0u, 0u, 0u, nlen, 0u);
	if (n != 110 || fwrite(name, 1, nlen, a->f) != nlen)
		return -EIO;
	a->bytes += 110 + (long long)nlen;
	return s_pad(a, a->bytes);
}

static int s_copy(s_arch_t *a, const char *path, unsigned long long size)
{
	char buf[65536];
	unsigned long long left = size;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n = 0;

	if (fd < 0)
		return -errno;
	while (left > 0 && (n = read(fd, buf, sizeof(buf))) > 0) {
		if ((unsigned long long)n > left)
			n = (ssize_t)left; /* grew while read: keep the size */
		if (fwrite(buf, 1, (size_t)n, a->f) != (size_t)n)
			break;
		left -= (unsigned long long)n;
	}
	close(fd);
	if (left)
		return n < 0 ? -EIO : -EAGAIN; /* shrank or failed */
	a->bytes += (long long)size;
	return s_pad(a, a->bytes);
}

static int s_walk(s_arch_t *a, const char *path, const char *name, int depth);

static int s_entry(s_arch_t *a, const char *path, const char *name, int depth)
{
	struct stat st;
	char target[PATH_MAX];
	ssize_t n;
	int rc;

	if (lstat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode)) {
		if (depth >= CPIO_MAX_DEPTH)
			return -E2BIG;
		rc = s_header(a, name, (st.st_mode & 07777) | S_IFDIR, 0);
		return rc < 0 ? rc : s_walk(a, path, name, depth + 1);
	}
	if (S_ISLNK(st.st_mode)) {
		n = readlink(path, target, sizeof(target));
		if (n < 0 || n >= (ssize_t)sizeof(target))
			return n < 0 ? -errno : -E2BIG;
		rc = s_header(a, name, 0777 | S_IFLNK, (unsigned long long)n);
		if (rc == 0 && fwrite(target, 1, (size_t)n, a->f) != (size_t)n)
			rc = -EIO;
		a->bytes += n;
		return rc < 0 ? rc : s_pad(a, a->bytes);
	}
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	rc = s_header(a, name, (st.st_mode & 07777) | S_IFREG,
		      (unsigned long long)st.st_size);
	return rc < 0 ? rc : s_copy(a, path, (unsigned long long)st.st_size);
}

static int s_byname(const struct dirent **x, const struct dirent **y)
{
	return strcmp((*x)->d_name, (*y)->d_name);
}

static int s_walk(s_arch_t *a, const char *path, const char *name, int depth)
{
	struct dirent **list = NULL;
	int n = scandir(path, &list, NULL, s_byname), rc = 0;

	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		const char *d = list[i]->d_name;

		if (rc == 0 && strcmp(d, ".") && strcmp(d, "..")) {
			char *p = xasprintf("%s/%s", path, d);
			char *e = xasprintf("%s/%s", name, d);

			rc = s_entry(a, p, e, depth);
			free(p);
			free(e);
		}
		free(list[i]);
	}
	free(list);
	return rc;
}

/* The folders of prefix above its last part ("opt", "opt/labmesh"). */
static int s_parents(s_arch_t *a, const char *prefix)
{
	char *p = xstrdup(prefix);
	int rc = 0;

	for (char *s = strchr(p, '/'); rc == 0 && s; s = strchr(s + 1, '/')) {
		*s = '\0';
		rc = s_header(a, p, 0755 | S_IFDIR, 0);
		*s = '/';
	}
	free(p);
	return rc;
}

int cpio_pack_dir(const char *dir, const char *prefix, const char *out)
{
	char *tmp = xasprintf("%s.tmp", out);
	s_arch_t a = {.f = fopen(tmp, "wbe")};
	int rc;

	if (!a.f) {
		rc = -errno;
		free(tmp);
		return rc;
	}
	rc = s_parents(&a, prefix);
	if (rc == 0)
		rc = s_entry(&a, dir, prefix, 0);
	if (rc == 0)
		rc = s_header(&a, "TRAILER!!!", 0, 0);
	if (fclose(a.f) != 0 && rc == 0)
		rc = -EIO;
	if (rc == 0 && rename(tmp, out) < 0)
		rc = -errno;
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

static int s_append(int to, const char *from, off_t *ret_len)
{
	char buf[65536];
	int fd = open(from, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (write(to, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
		*ret_len += n;
	}
	close(fd);
	return n < 0 ? -EIO : 0;
}

int cpio_concat(const char *first, const char *second, const char *out)
{
	static const char zero[4];
	off_t len = 0;
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rc;

	if (fd < 0)
		return -errno;
	rc = s_append(fd, first, &len);
	if (rc == 0 && (len & 3) &&
	    write(fd, zero, (size_t)(4 - (len & 3))) != 4 - (len & 3))
		rc = -EIO;
	if (rc == 0)
		rc = s_append(fd, second, &len);
	if (close(fd) != 0 && rc == 0)
		rc = -EIO;
	if (rc < 0)
		unlink(out);
	return rc;
}
