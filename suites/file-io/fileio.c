/*
 * file-io: sequential file write and read throughput, as metric lines.
 *
 * Writes a file of up to FILE_MB MiB (scaled down to an eighth of the free
 * space and of free memory) in 1 MiB blocks under the directory given as
 * argv[1], fsyncs it (included in the write time), drops its pages from the
 * page cache with posix_fadvise(DONTNEED) and reads it back, checking every
 * block's pattern. MB/s = 10^6 bytes per second.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define FILE_MB 64
#define MIN_MB 4
#define BLOCK (1 << 20)

static double s_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void s_fill(uint64_t *b, long blockno)
{
	size_t i;

	for (i = 0; i < BLOCK / sizeof(*b); i++)
		b[i] = (uint64_t)blockno * 0x9e3779b97f4a7c15ULL + i;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	long mem = sysconf(_SC_AVPHYS_PAGES) * sysconf(_SC_PAGESIZE);
	long mb = FILE_MB, i;
	struct statvfs vfs;
	char path[4096];
	uint64_t *buf, *want;
	double t0, tw, tr;
	int fd;

	if (statvfs(dir, &vfs) == 0) {
		long long space = (long long)vfs.f_bavail * vfs.f_frsize;
		while (mb > MIN_MB && (long long)mb << 20 > space / 8)
			mb /= 2;
		if ((long long)mb << 20 > space / 2) {
			printf("skip: only %lld MiB free in %s\n", space >> 20, dir);
			return 0;
		}
	}
	while (mb > MIN_MB && mem > 0 && mb << 20 > mem / 8)
		mb /= 2;
	buf = malloc(BLOCK);
	want = malloc(BLOCK);
	snprintf(path, sizeof(path), "%s/fileio.%d", dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (!buf || !want || fd < 0) {
		printf("skip: cannot create %s: %s\n", path, strerror(errno));
		return 0;
	}
	printf("# %ld MiB file in %s\n", mb, dir);
	t0 = s_now();
	for (i = 0; i < mb; i++) {
		s_fill(buf, i);
		if (write(fd, buf, BLOCK) != BLOCK) {
			printf("# write failed at block %ld: %s\n", i, strerror(errno));
			goto fail;
		}
	}
	if (fsync(fd) < 0) {
		printf("# fsync failed: %s\n", strerror(errno));
		goto fail;
	}
	tw = s_now() - t0;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	lseek(fd, 0, SEEK_SET);
	t0 = s_now();
	for (i = 0; i < mb; i++) {
		if (read(fd, buf, BLOCK) != BLOCK) {
			printf("# short read at block %ld\n", i);
			goto fail;
		}
		s_fill(want, i);
		if (memcmp(buf, want, BLOCK) != 0) {
			printf("# data read back differs in block %ld\n", i);
			goto fail;
		}
	}
	tr = s_now() - t0;
	printf("seq_write_fsync %.1f MB/s\n", mb * (double)BLOCK / tw / 1e6);
	printf("seq_read %.1f MB/s\n", mb * (double)BLOCK / tr / 1e6);
	close(fd);
	unlink(path);
	return 0;
fail:
	close(fd);
	unlink(path);
	return 1;
}
