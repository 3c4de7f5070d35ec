/*
 * fs-metadata: file system metadata operation rates, as metric lines.
 *
 * In a fresh directory under argv[1]: create empty files, stat them,
 * rename them, unlink them, and mkdir+rmdir pairs. Each phase works on up
 * to MAX_FILES names and stops early when BUDGET_S has passed; the rate is
 * operations per second. Leaves nothing behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_FILES 5000
#define BUDGET_S 0.5

static char s_dir[3900];

static double s_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *s_name(const char *prefix, long i)
{
	static char p[4096];

	snprintf(p, sizeof(p), "%s/%s%ld", s_dir, prefix, i);
	return p;
}

int main(int argc, char **argv)
{
	static const char *names[] = { "create", "stat", "rename", "unlink", "mkdir_rmdir" };
	double rate[5], t0, dt;
	long n = 0, i, done;
	struct stat sb;
	char from[4096];
	int fd, ph;

	snprintf(s_dir, sizeof(s_dir), "%s/fsmeta.%d", argc > 1 ? argv[1] : "/tmp", (int)getpid());
	if (mkdir(s_dir, 0700) < 0) {
		printf("skip: cannot create %s: %s\n", s_dir, strerror(errno));
		return 0;
	}
	t0 = s_now();
	for (n = 0; n < MAX_FILES; n++) {
		fd = open(s_name("f", n), O_CREAT | O_EXCL | O_WRONLY, 0600);
		if (fd < 0)
			break;
		close(fd);
		if ((n & 63) == 63 && s_now() - t0 > BUDGET_S) {
			n++;
			break;
		}
	}
	rate[0] = n / (s_now() - t0);
	for (ph = 1; ph <= 3; ph++) {
		t0 = s_now();
		for (i = 0, done = 0; i < n; i++) {
			int r;
			if (ph == 1) {
				r = stat(s_name("f", i), &sb);
			} else if (ph == 2) {
				snprintf(from, sizeof(from), "%s", s_name("f", i));
				r = rename(from, s_name("g", i));
			} else {
				r = unlink(s_name("g", i));
			}
			done += r == 0;
		}
		dt = s_now() - t0;
		rate[ph] = done == n ? n / dt : -1;
	}
	t0 = s_now();
	for (i = 0, done = 0; i < MAX_FILES; i++) {
		done += mkdir(s_name("d", i), 0700) == 0 && rmdir(s_name("d", i)) == 0;
		if ((i & 63) == 63 && s_now() - t0 > BUDGET_S) {
			i++;
			break;
		}
	}
	rate[4] = done == i ? i / (s_now() - t0) : -1;
	for (i = 0; i < n; i++) { /* whatever a failed phase left */
		unlink(s_name("f", i));
		unlink(s_name("g", i));
	}
	rmdir(s_dir);
	printf("# %ld files\n", n);
	for (ph = 0; ph < 5; ph++) {
		if (rate[ph] > 0)
			printf("%s %.1f ops/s\n", names[ph], rate[ph]);
		else
			printf("# %s phase failed\n", names[ph]);
	}
	return 0;
}
