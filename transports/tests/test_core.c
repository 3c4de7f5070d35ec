/*
 * The shared pieces, fast and self-contained: shell quoting as a real
 * /bin/sh reads it, the output cap at its exact edges (stdout and stderr
 * together), argument checks, and proc's environment and errors.
 */
#include "proto/tests/check.h"
#include "transports/backend.h"
#include "transports/proc.h"
#include "transports/remote.h"
#include "transports/transport.h"

#include "proto/buf.h"
#include "proto/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int check_failures;

static void s_collect(void *arg, enum transport_stream st, const char *data,
		      size_t len)
{
	buf_append(arg, data, len);
}

static void test_quote(void)
{
	static const char *const cases[] = {
		"", "plain", "it's", "'", "''", "$(touch /tmp/x) `id` $HOME",
		"a\nb", "back\\slash", "*?[ab]", "; rm -rf /; echo",
	};
	buf_t out;

	buf_init(&out, 4096);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *q = proc_shell_quote(cases[i]);
		char *cmd = xasprintf("printf %%s %s", q);
		proc_spec_t s;
		char err[128];
		int st = -1;

		buf_reset(&out);
		proc_spec_init(&s);
		proc_arg(&s, "/bin/sh");
		proc_arg(&s, "-c");
		proc_arg(&s, cmd);
		s.fn = s_collect;
		s.arg = &out;
		CHECK(proc_run(&s, &st, err, sizeof(err)) == 0 && st == 0);
		CHECK(strcmp(buf_str(&out), cases[i]) == 0);
		free(cmd);
		free(q);
	}
	buf_free(&out);
}

static void s_cap_case(transport_t *t, const char *cmd, const char *want)
{
	buf_t out;
	int st = -1;

	buf_init(&out, 4096);
	CHECK(transport_run(t, cmd, 10000, s_collect, &out, &st) == 0 && st == 0);
	CHECK(strcmp(buf_str(&out), want) == 0);
	if (strcmp(buf_str(&out), want) != 0)
		fprintf(stderr, "cap: '%s': got '%s'\n", cmd, buf_str(&out));
	buf_free(&out);
}

static void test_cap(void)
{
	lab_board_t b = { .name = "host" };
	transport_opts_t o = { .output_cap = 10 };
	transport_t *t = NULL;
	char *err = NULL, *want;
	int st = 42;

	b.transport.type = LAB_TRANSPORT_LOCAL;
	CHECK(transport_open(&b, &o, &t, &err) == 0);
	if (!t)
		return;
	s_cap_case(t, "printf 0123456789", "0123456789");
	want = xasprintf("0123456789%s", TRANSPORT_TRUNCATED_MARKER);
	s_cap_case(t, "printf 0123456789A", want);
	s_cap_case(t, "printf 01234; sleep 0.1; printf 56789ABC; printf more", want);
	free(want);
	/* stdout and stderr share one cap */
	want = xasprintf("01234abcde%s", TRANSPORT_TRUNCATED_MARKER);
	s_cap_case(t, "printf 01234; sleep 0.1; printf abcdefgh >&2", want);
	free(want);
	CHECK(transport_run(t, NULL, 1000, NULL, NULL, &st) == -EINVAL && st == 42);
	CHECK(transport_run(t, "true", -1, NULL, NULL, &st) == -EINVAL && st == 42);
	CHECK(transport_put(t, "", "x") == -EINVAL);
	CHECK(transport_get(t, "x", NULL) == -EINVAL);
	CHECK(transport_put(t, "/nonexistent/labmesh", "x") == -ENOENT);
	CHECK(strstr(transport_error(t), "/nonexistent/labmesh") != NULL);
	transport_close(&t);
	transport_close(&t); /* NULL is fine */
}

static void test_proc(void)
{
	buf_t out;
	proc_spec_t s;
	char err[128];
	int st = -1;

	buf_init(&out, 4096);
	proc_spec_init(&s);
	proc_arg(&s, "labmesh-no-such-program");
	CHECK(proc_run(&s, &st, err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "not found") != NULL);
	setenv("LABMESH_TEST_VAR", "old", 1);
	proc_spec_init(&s);
	proc_arg(&s, "/bin/sh");
	proc_arg(&s, "-c");
	proc_arg(&s, "printf '%s,%s' \"$LABMESH_TEST_VAR\" \"$LABMESH_OTHER\"");
	proc_env(&s, "LABMESH_TEST_VAR=new");
	proc_env(&s, "LABMESH_OTHER=x y");
	CHECK(proc_env(&s, "NOEQUALS") == -E2BIG);
	s.fn = s_collect;
	s.arg = &out;
	CHECK(proc_run(&s, &st, err, sizeof(err)) == 0 && st == 0);
	CHECK(strcmp(buf_str(&out), "new,x y") == 0);
	for (int i = 0; i < PROC_MAX_ARGS + 1; i++)
		if (proc_arg(&s, "x") < 0) {
			CHECK(s.argc == PROC_MAX_ARGS);
			break;
		}
	buf_free(&out);
}

/* Live processes with exactly this command line. */
static int s_count(const char *want)
{
	char cmd[200], out[32] = { 0 };
	FILE *f;

	snprintf(cmd, sizeof(cmd), "pgrep -x -f '%s' | wc -l", want);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (!fgets(out, sizeof(out), f))
		out[0] = '\0';
	pclose(f);
	return atoi(out);
}

/* The remote kill against a command that starts late, and one that has
 * not started at all, with a real /bin/sh standing for the board's. */
static void test_remote_kill_race(void)
{
	char dir[] = "/tmp/lmkill-XXXXXX";
	char *pid, *w, *k, *env_w, *env_k;
	proc_spec_t s;
	char err[128];
	int st = -1;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	pid = remote_pidfile(dir, "/tmp", "0123456789abcdef");
	/* starts a second after the timeout fired: still found and killed */
	w = remote_wrap("sleep 1722", pid, 6, NULL);
	k = remote_kill(pid, 6);
	env_w = xasprintf("W=%s", w);
	env_k = xasprintf("K=%s", k);
	proc_spec_init(&s);
	proc_arg(&s, "/bin/sh");
	proc_arg(&s, "-c");
	proc_arg(&s, "setsid sh -c 'sleep 1; exec sh -c \"$W\"' </dev/null >/dev/null 2>&1 & "
		     "sh -c \"$K\"");
	proc_env(&s, env_w);
	proc_env(&s, env_k);
	s.timeout_ms = 20000;
	CHECK(proc_run(&s, &st, err, sizeof(err)) == 0 && st == 0);
	CHECK(s_count("sleep 1722") == 0);
	free(w);
	free(k);
	free(env_w);
	free(env_k);
	/* never started before the kill gave up: cancelled, never runs */
	k = remote_kill(pid, 7);
	proc_spec_init(&s);
	proc_arg(&s, "/bin/sh");
	proc_arg(&s, "-c");
	proc_arg(&s, k);
	CHECK(proc_run(&s, &st, err, sizeof(err)) == 0 && st == 0);
	w = remote_wrap("echo ran", pid, 7, NULL);
	{
		buf_t out;

		buf_init(&out, 4096);
		proc_spec_init(&s);
		proc_arg(&s, "/bin/sh");
		proc_arg(&s, "-c");
		proc_arg(&s, w);
		s.fn = s_collect;
		s.arg = &out;
		CHECK(proc_run(&s, &st, err, sizeof(err)) == 0 && st == 124);
		CHECK(out.len == 0);
		buf_free(&out);
	}
	free(w);
	free(k);
	free(pid);
	transport_rmtree(dir);
}

int main(void)
{
	test_quote();
	test_cap();
	test_proc();
	test_remote_kill_race();
	fprintf(stderr, "%d failures\n", check_failures);
	return check_failures ? 1 : 0;
}
