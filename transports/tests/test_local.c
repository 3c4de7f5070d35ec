/*
 * The local transport: the transport contract, plus what only the host can
 * show — signals as 128+n, commands in the scratch dir, a timeout killing
 * the whole process group, no fd leaking into commands.
 */
#include "proto/tests/check.h"
#include "transports/backend.h"
#include "transports/tests/contract.h"
#include "transports/transport.h"

#include "proto/buf.h"
#include "proto/mem.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int check_failures;

static void s_collect(void *arg, enum transport_stream st, const char *data,
		      size_t len)
{
	buf_append(arg, data, len);
}

static int s_run(transport_t *t, const char *cmd, int timeout_ms, buf_t *out,
		 int *status)
{
	buf_reset(out);
	return transport_run(t, cmd, timeout_ms, s_collect, out, status);
}

/* Gone, or a zombie waiting for a reaper that is not us. */
static bool s_alive(pid_t pid)
{
	char path[64], state = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = 0;
	fclose(f);
	return state != 'Z' && state != 'X';
}

static void test_local_specifics(transport_t *t, const char *workdir)
{
	buf_t out;
	char *want;
	pid_t pid;
	int st = -1, r;

	buf_init(&out, 1 << 20);
	r = s_run(t, "kill -9 $$", 10000, &out, &st);
	CHECK(r == 0 && st == 137);
	r = s_run(t, "pwd", 10000, &out, &st);
	want = xasprintf("%s\n", workdir);
	CHECK(r == 0 && strcmp(buf_str(&out), want) == 0);
	free(want);
	/* fds 0, 1, 2 and the one ls opens for /proc/self/fd: nothing else */
	r = s_run(t, "ls /proc/self/fd | wc -l", 10000, &out, &st);
	CHECK(r == 0 && atoi(buf_str(&out)) == 4);
	/* a background child of a timed-out command dies with it */
	r = s_run(t, "sleep 1000 & echo $! > bg.pid; wait", 1000, &out, &st);
	CHECK(r == -ETIMEDOUT);
	r = s_run(t, "cat bg.pid", 10000, &out, &st);
	CHECK(r == 0 && st == 0);
	pid = atoi(buf_str(&out));
	CHECK(pid > 0);
	for (int i = 0; i < 250 && pid > 0 && s_alive(pid); i++)
		usleep(20 * 1000);
	CHECK(pid > 0 && !s_alive(pid));
	/* a daemon started on purpose outlives its command */
	r = s_run(t, "setsid sleep 1720 </dev/null >/dev/null 2>&1 & echo $! > d.pid",
		  10000, &out, &st);
	CHECK(r == 0 && st == 0);
	usleep(200 * 1000);
	r = s_run(t, "cat d.pid", 10000, &out, &st);
	pid = atoi(buf_str(&out));
	CHECK(pid > 0 && s_alive(pid));
	if (pid > 0)
		kill(pid, SIGKILL);
	/* a command that ignores SIGTERM is still killed */
	r = s_run(t, "trap '' TERM; sleep 1000", 500, &out, &st);
	CHECK(r == -ETIMEDOUT);
	buf_free(&out);
}

static void test_open_errors(void)
{
	lab_board_t b = { .name = "bad" };
	transport_t *t = NULL;
	char *err = NULL;
	transport_opts_t o = { .workdir = "/proc/labmesh-cannot-exist/x" };

	b.transport.type = (enum lab_transport_type)42;
	CHECK(transport_open(&b, NULL, &t, &err) == -EINVAL && !t && err);
	free(err);
	err = NULL;
	b.transport.type = LAB_TRANSPORT_LOCAL;
	CHECK(transport_open(&b, &o, &t, &err) < 0 && !t && err);
	free(err);
}

int main(void)
{
	lab_board_t b = { .name = "host" };
	transport_t *t = NULL;
	char *err = NULL, *workdir;

	b.transport.type = LAB_TRANSPORT_LOCAL;
	b.boot.method = LAB_BOOT_NONE;
	if (transport_open(&b, NULL, &t, &err) < 0) {
		fprintf(stderr, "open: %s\n", err);
		return 1;
	}
	check_failures += contract_run(t, "local");
	workdir = xasprintf("%s/local-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	transport_close(&t);
	if (!mkdtemp(workdir)) {
		perror("mkdtemp");
		return 1;
	}
	{
		transport_opts_t o = { .workdir = workdir };

		CHECK(transport_open(&b, &o, &t, &err) == 0);
		if (t)
			test_local_specifics(t, workdir);
		transport_close(&t);
		CHECK(access(workdir, F_OK) == 0); /* not ours: kept */
	}
	test_open_errors();
	transport_rmtree(workdir);
	free(workdir);
	fprintf(stderr, "%d failures\n", check_failures);
	return check_failures ? 1 : 0;
}
