/*
 * procfs-walk: read every readable file under /proc and /sys, bounded.
 *
 * Each file is opened O_RDONLY|O_NONBLOCK and read up to READ_CAP bytes,
 * with an interval timer so a read that blocks is interrupted (EINTR).
 * Files known to block or to have side effects on read are skipped by
 * name. The walk stops at MAX_FILES files or WALK_BUDGET_S seconds per
 * tree. A kernel oops in a show() handler kills us (or the board), which
 * the runner sees as a missing plan or a dead board. Output is TAP plus
 * `# metric` comments with the counts.
 *
 * Usage: walk-test ROOT...   (default: /proc /sys)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define READ_CAP (64 * 1024)
#define MAX_FILES 40000
#define MAX_DEPTH 12
#define WALK_BUDGET_S 25
#define READ_TIMEOUT_US 200000

struct walk {
	long files, read_ok, errors, bytes, dirs;
	int truncated;
	time_t deadline;
};

static int s_n;
static char s_buf[READ_CAP];

static void s_ok(int ok, const char *name)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++s_n, name);
	fflush(stdout);
}

static void s_tick(int sig)
{
	(void)sig;
}

/* Names whose read blocks, drains a queue, or changes kernel state. */
static int s_skip_name(const char *path, const char *leaf)
{
	static const char *leaves[] = { "kmsg", "trace_pipe", "trace_pipe_raw", "kcore",
					"pagemap", "mem", "clear_refs", "sysrq-trigger",
					"kpagecount", "kpageflags", "kpagecgroup", "kpageidle",
					"event", "events", "uevent_seqnum_wait", "snapshot",
					"snapshot_raw", "per_cpu", "hw_random", NULL };
	int i;

	for (i = 0; leaves[i]; i++)
		if (strcmp(leaf, leaves[i]) == 0)
			return 1;
	/* debug/tracing internals, power control, firmware blobs, watchdogs */
	return strstr(path, "/sys/kernel/debug") || strstr(path, "/sys/kernel/tracing") ||
	       strstr(path, "/sys/firmware/efi/efivars") || strstr(path, "/sys/power/") ||
	       strstr(path, "/watchdog");
}

static void s_read_file(struct walk *w, const char *path)
{
	struct itimerval it = { { 0, 0 }, { 0, READ_TIMEOUT_US } }, off = { { 0, 0 }, { 0, 0 } };
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	ssize_t r;
	long got = 0;

	w->files++;
	if (fd < 0) {
		w->errors++;
		return;
	}
	setitimer(ITIMER_REAL, &it, NULL);
	while (got < READ_CAP && (r = read(fd, s_buf, sizeof(s_buf) - got)) > 0)
		got += r;
	setitimer(ITIMER_REAL, &off, NULL);
	close(fd);
	if (got > 0 || r == 0)
		w->read_ok++;
	else
		w->errors++;
	w->bytes += got;
}

static void s_walk(struct walk *w, const char *dir, int depth)
{
	DIR *d;
	struct dirent *e;
	char path[4096];
	struct stat sb;

	if (depth > MAX_DEPTH || w->truncated)
		return;
	d = opendir(dir);
	if (!d)
		return;
	w->dirs++;
	while ((e = readdir(d))) {
		if (w->files >= MAX_FILES || time(NULL) > w->deadline) {
			w->truncated = 1;
			break;
		}
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		/* skip other processes: their files race with their exit */
		if (depth == 0 && strcmp(dir, "/proc") == 0 && e->d_name[0] >= '0' &&
		    e->d_name[0] <= '9')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path))
			continue;
		if (lstat(path, &sb) < 0 || S_ISLNK(sb.st_mode) || s_skip_name(path, e->d_name))
			continue;
		if (S_ISDIR(sb.st_mode))
			s_walk(w, path, depth + 1);
		else if (S_ISREG(sb.st_mode) && (sb.st_mode & 0444))
			s_read_file(w, path);
	}
	closedir(d);
}

static void t_tree(const char *root, const char *label)
{
	struct walk w;
	char name[64];

	memset(&w, 0, sizeof(w));
	w.deadline = time(NULL) + WALK_BUDGET_S;
	s_walk(&w, root, 0);
	printf("# %s: %ld dirs, %ld files, %ld read, %ld refused, %ld bytes%s\n", root, w.dirs,
	       w.files, w.read_ok, w.errors, w.bytes, w.truncated ? " (bounded, stopped early)" : "");
	printf("# metric %s_files_read %ld count\n", label, w.read_ok);
	snprintf(name, sizeof(name), "%s.walk_completes", label);
	/* survived the walk; some files must have been readable */
	s_ok(w.read_ok > 0, name);
}

/* A few files every kernel must serve, with expected content. */
static int s_has(const char *path, const char *needle)
{
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0)
		return 0;
	r = read(fd, s_buf, sizeof(s_buf) - 1);
	close(fd);
	if (r <= 0)
		return 0;
	s_buf[r] = 0;
	return strstr(s_buf, needle) != NULL;
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = s_tick; /* no SA_RESTART: a blocked read returns EINTR */
	sigaction(SIGALRM, &sa, NULL);
	printf("1..7\n");
	s_ok(s_has("/proc/self/status", "Pid:"), "proc.self_status");
	s_ok(s_has("/proc/meminfo", "MemTotal:"), "proc.meminfo");
	s_ok(s_has("/proc/cpuinfo", "processor"), "proc.cpuinfo");
	s_ok(s_has("/proc/mounts", " /proc proc "), "proc.mounts_lists_proc");
	s_ok(s_has("/sys/kernel/uevent_seqnum", "") || s_has("/sys/devices/system/cpu/online", "0"),
	     "sys.mounted_and_readable");
	t_tree("/proc", "proc");
	t_tree("/sys", "sys");
	return 0;
}
