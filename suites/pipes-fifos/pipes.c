/*
 * pipes-fifos: pipe and FIFO semantics, printed as TAP.
 *
 * EOF on writer close, EPIPE/SIGPIPE on reader close, PIPE_BUF atomicity,
 * non-blocking behaviour, poll readiness, capacity, and named FIFOs.
 * FIFOs are made under LABMESH_TMP (argv[1]). Every blocking call is
 * bounded by alarm().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PLAN 13
#define BULK_BYTES (1024 * 1024)
#define ATOMIC_WRITES 200

static int s_n;

static void s_ok(int ok, const char *name)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++s_n, name);
	fflush(stdout);
}

static void t_basic(void)
{
	int fd[2];
	char buf[32] = { 0 };
	ssize_t r1, r2;

	if (pipe(fd) < 0) {
		s_ok(0, "pipe.write_read");
		s_ok(0, "pipe.eof_after_writer_close");
		return;
	}
	r1 = write(fd[1], "hello pipe", 10);
	r2 = read(fd[0], buf, sizeof(buf));
	s_ok(r1 == 10 && r2 == 10 && memcmp(buf, "hello pipe", 10) == 0, "pipe.write_read");
	close(fd[1]);
	s_ok(read(fd[0], buf, sizeof(buf)) == 0, "pipe.eof_after_writer_close");
	close(fd[0]);
}

static void t_epipe(void)
{
	int fd[2], st = 0, e;
	ssize_t r;
	pid_t pid;

	if (pipe(fd) < 0) {
		s_ok(0, "pipe.epipe_when_sigpipe_ignored");
		s_ok(0, "pipe.sigpipe_kills_by_default");
		return;
	}
	close(fd[0]);
	signal(SIGPIPE, SIG_IGN);
	r = write(fd[1], "x", 1);
	e = errno;
	signal(SIGPIPE, SIG_DFL);
	s_ok(r < 0 && e == EPIPE, "pipe.epipe_when_sigpipe_ignored");
	pid = fork();
	if (pid == 0) {
		if (write(fd[1], "x", 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	s_ok(pid > 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE, "pipe.sigpipe_kills_by_default");
}

/* Two writers each write PIPE_BUF-sized records; none may interleave. */
static void t_atomic(void)
{
	static char rec[PIPE_BUF];
	int fd[2], w, i, ok = 1, total = 0;
	pid_t pids[2];

	if (pipe(fd) < 0) {
		s_ok(0, "pipe.pipe_buf_writes_atomic");
		return;
	}
	for (w = 0; w < 2; w++) {
		pids[w] = fork();
		if (pids[w] == 0) {
			close(fd[0]);
			memset(rec, 'A' + w, sizeof(rec));
			alarm(20);
			for (i = 0; i < ATOMIC_WRITES; i++)
				if (write(fd[1], rec, sizeof(rec)) != (ssize_t)sizeof(rec))
					_exit(1);
			_exit(0);
		}
	}
	close(fd[1]);
	for (;;) {
		size_t got = 0;
		ssize_t r = 0;

		while (got < sizeof(rec) && (r = read(fd[0], rec + got, sizeof(rec) - got)) > 0)
			got += r;
		if (got == 0)
			break;
		if (got != sizeof(rec) || memchr(rec, rec[0] == 'A' ? 'B' : 'A', sizeof(rec))) {
			ok = 0;
			break;
		}
		total++;
	}
	close(fd[0]);
	for (w = 0; w < 2; w++)
		if (pids[w] > 0)
			waitpid(pids[w], NULL, 0);
	s_ok(ok && total == 2 * ATOMIC_WRITES, "pipe.pipe_buf_writes_atomic");
}

static void t_nonblock(void)
{
	int fd[2], sz;
	char buf[4096];
	ssize_t r;
	long cap = 0;
	int e;

	if (pipe2(fd, O_NONBLOCK) < 0) {
		s_ok(0, "pipe.nonblock_empty_eagain");
		s_ok(0, "pipe.nonblock_full_eagain");
		s_ok(0, "pipe.capacity_matches_f_getpipe_sz");
		return;
	}
	r = read(fd[0], buf, sizeof(buf));
	e = errno;
	s_ok(r < 0 && e == EAGAIN, "pipe.nonblock_empty_eagain");
	memset(buf, 'z', sizeof(buf));
	/* bounded: a pipe holds at most a few MiB */
	while (cap < 64L * 1024 * 1024 && (r = write(fd[1], buf, sizeof(buf))) > 0)
		cap += r;
	e = errno;
	s_ok(r < 0 && e == EAGAIN && cap >= 4096, "pipe.nonblock_full_eagain");
	sz = fcntl(fd[1], F_GETPIPE_SZ);
	s_ok(sz > 0 && cap == sz, "pipe.capacity_matches_f_getpipe_sz");
	close(fd[0]);
	close(fd[1]);
}

static void t_poll(void)
{
	int fd[2], empty, in, hup;
	struct pollfd p;
	char c;

	if (pipe(fd) < 0) {
		s_ok(0, "pipe.poll_in_and_hup");
		return;
	}
	p.fd = fd[0];
	p.events = POLLIN;
	empty = poll(&p, 1, 0);
	in = write(fd[1], "p", 1) == 1 && poll(&p, 1, 1000) == 1 && (p.revents & POLLIN);
	close(fd[1]);
	in = in && read(fd[0], &c, 1) == 1;
	hup = poll(&p, 1, 1000) == 1 && (p.revents & POLLHUP);
	close(fd[0]);
	s_ok(empty == 0 && in && hup, "pipe.poll_in_and_hup");
}

static void t_bulk(void)
{
	int fd[2], st = -1;
	unsigned long sum = 0, want = 0;
	unsigned char buf[8192];
	long got = 0, i;
	ssize_t r;
	pid_t pid;

	for (i = 0; i < BULK_BYTES; i++)
		want += (unsigned char)(i * 7 + 3);
	if (pipe(fd) < 0) {
		s_ok(0, "pipe.bulk_transfer_intact");
		return;
	}
	pid = fork();
	if (pid == 0) {
		long off = 0;
		close(fd[0]);
		alarm(30);
		while (off < BULK_BYTES) {
			size_t n = sizeof(buf), k;
			for (k = 0; k < n; k++)
				buf[k] = (unsigned char)((off + (long)k) * 7 + 3);
			if (write(fd[1], buf, n) != (ssize_t)n)
				_exit(1);
			off += n;
		}
		_exit(0);
	}
	close(fd[1]);
	while ((r = read(fd[0], buf, sizeof(buf))) > 0) {
		for (i = 0; i < r; i++)
			sum += buf[i];
		got += r;
	}
	close(fd[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	s_ok(got == BULK_BYTES && sum == want && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	     "pipe.bulk_transfer_intact");
}

static void t_fifo(const char *dir)
{
	char path[4096], buf[16] = { 0 };
	struct stat sb;
	int fd, rfd, e, st = -1;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/fifo.%d", dir, (int)getpid());
	unlink(path);
	s_ok(mkfifo(path, 0600) == 0 && stat(path, &sb) == 0 && S_ISFIFO(sb.st_mode),
	     "fifo.mkfifo_creates_fifo");
	fd = open(path, O_WRONLY | O_NONBLOCK);
	e = errno;
	s_ok(fd < 0 && e == ENXIO, "fifo.nonblock_writer_without_reader_enxio");
	if (fd >= 0)
		close(fd);
	rfd = open(path, O_RDONLY | O_NONBLOCK);
	pid = fork();
	if (pid == 0) {
		int w;
		alarm(10);
		w = open(path, O_WRONLY);
		_exit(w >= 0 && write(w, "via fifo", 8) == 8 ? 0 : 1);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	if (rfd >= 0 && read(rfd, buf, sizeof(buf)) != 8)
		buf[0] = 0;
	s_ok(rfd >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && memcmp(buf, "via fifo", 8) == 0,
	     "fifo.write_read_across_processes");
	if (rfd >= 0)
		close(rfd);
	unlink(path);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp";

	printf("1..%d\n", PLAN);
	t_basic();
	t_epipe();
	t_atomic();
	t_nonblock();
	t_poll();
	t_bulk();
	t_fifo(dir);
	if (s_n != PLAN)
		printf("# plan mismatch: %d cases\n", s_n);
	return 0;
}
