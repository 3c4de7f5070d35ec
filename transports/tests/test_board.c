/*
 * Boot methods none and command: the operator's deploy and power commands
 * run with LABMESH_BOARD/KERNEL/INITRD/APPEND in their environment, request
 * values stay inert (no shell ever sees them as code), output goes to the
 * console log, failures and timeouts are reported, power control works
 * and the board is powered off at close.
 */
#include "proto/tests/check.h"
#include "transports/backend.h"
#include "transports/transport.h"

#include "proto/buf.h"
#include "proto/mem.h"

#include <errno.h>
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

static char *s_slurp(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	buf_t b;
	char chunk[512];
	size_t n;

	free(path);
	buf_init(&b, 1 << 20);
	while (f && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_append(&b, chunk, n);
	if (f)
		fclose(f);
	return buf_steal(&b);
}

static void s_command_board(lab_board_t *b)
{
	memset(b, 0, sizeof(*b));
	b->name = "cmd-board";
	b->transport.type = LAB_TRANSPORT_LOCAL;
	b->boot.method = LAB_BOOT_COMMAND;
	b->boot.initrd = "/boot/initrd-default";
	b->boot.deploy = "env | grep '^LABMESH_' | sort > deploy.env";
	b->boot.power_on = "echo on >> power.log; echo console-on; echo err-on >&2";
	b->boot.power_off = "echo off >> power.log";
	b->boot.power_cycle = "echo cycle >> power.log";
	b->boot.command_timeout_s = 10;
	b->boot.boot_timeout_s = 5;
}

static void test_command_boot(const char *dir, const char *canary)
{
	char *evil_kernel = xasprintf("/k/bzImage $(touch %s) `touch %s`", canary, canary);
	char *evil_append = xasprintf("console=ttyS0; touch %s", canary);
	board_kernel_t k = { .kernel = evil_kernel, .append = evil_append };
	transport_opts_t o = { .workdir = dir, .console_fn = s_collect };
	buf_t console, out;
	lab_board_t cfg;
	board_t *b = NULL;
	char *err = NULL, *env, *want, *log;
	int st = -1;

	buf_init(&console, 1 << 20);
	buf_init(&out, 1 << 20);
	o.console_arg = &console;
	s_command_board(&cfg);
	CHECK(board_open(&cfg, &k, &o, &b, &err) == 0);
	if (!b) {
		fprintf(stderr, "board_open: %s\n", err);
		free(err);
		return;
	}
	env = s_slurp(dir, "deploy.env");
	want = xasprintf("LABMESH_APPEND=%s\nLABMESH_BOARD=cmd-board\n"
			 "LABMESH_INITRD=/boot/initrd-default\nLABMESH_KERNEL=%s\n",
			 evil_append, evil_kernel);
	CHECK(strcmp(env, want) == 0);
	if (strcmp(env, want) != 0)
		fprintf(stderr, "got:\n%s\nwant:\n%s\n", env, want);
	CHECK(access(canary, F_OK) < 0);
	CHECK(strstr(buf_str(&console), "console-on\n") != NULL);
	CHECK(strstr(buf_str(&console), "err-on\n") != NULL);
	/* the board's transport runs in the same scratch dir */
	CHECK(transport_run(board_transport(b), "cat power.log", 10000, s_collect,
			    &out, &st) == 0 && st == 0);
	CHECK(strcmp(buf_str(&out), "on\n") == 0);
	CHECK(board_power(b, TRANSPORT_POWER_CYCLE) == 0);
	CHECK(board_power(b, TRANSPORT_POWER_OFF) == 0);
	CHECK(board_transport(b) == NULL);
	CHECK(board_power(b, TRANSPORT_POWER_ON) == 0);
	CHECK(board_transport(b) != NULL);
	board_close(&b);
	CHECK(b == NULL);
	log = s_slurp(dir, "power.log");
	CHECK(strcmp(log, "on\ncycle\noff\non\noff\n") == 0);
	CHECK(access(dir, F_OK) == 0); /* given by the caller: kept */
	free(log);
	free(env);
	free(want);
	free(evil_kernel);
	free(evil_append);
	buf_free(&console);
	buf_free(&out);
}

static void test_command_failures(const char *dir)
{
	transport_opts_t o = { .workdir = dir };
	lab_board_t cfg;
	board_t *b = NULL;
	char *err = NULL;

	s_command_board(&cfg);
	cfg.boot.deploy = "echo deploying; exit 3";
	CHECK(board_open(&cfg, NULL, &o, &b, &err) == -EIO && !b);
	fprintf(stderr, "deploy failure: %s\n", err ? err : "(none)");
	CHECK(err && strstr(err, "deploy command exited with status 3"));
	free(err);
	err = NULL;
	s_command_board(&cfg);
	cfg.boot.power_on = "sleep 100";
	cfg.boot.command_timeout_s = 1;
	CHECK(board_open(&cfg, NULL, &o, &b, &err) == -ETIMEDOUT && !b);
	fprintf(stderr, "power_on timeout: %s\n", err ? err : "(none)");
	CHECK(err && strstr(err, "timed out"));
	free(err);
}

static void test_none(void)
{
	lab_board_t cfg = { .name = "host" };
	board_t *b = NULL;
	char *err = NULL, *wd;
	buf_t out;
	int st = -1;

	cfg.transport.type = LAB_TRANSPORT_LOCAL;
	cfg.boot.method = LAB_BOOT_NONE;
	buf_init(&out, 4096);
	CHECK(board_open(&cfg, NULL, NULL, &b, &err) == 0);
	if (!b) {
		free(err);
		return;
	}
	CHECK(transport_run(board_transport(b), "pwd", 10000, s_collect, &out,
			    &st) == 0 && st == 0);
	wd = xstrndup(buf_str(&out), out.len ? out.len - 1 : 0);
	CHECK(access(wd, F_OK) == 0);
	CHECK(board_power(b, TRANSPORT_POWER_CYCLE) == -ENOTSUP);
	CHECK(strstr(board_error(b), "no power control") != NULL);
	board_close(&b);
	CHECK(access(wd, F_OK) < 0); /* made by the board: removed */
	free(wd);
	buf_free(&out);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *dir = xasprintf("%s/board-XXXXXX", tmp);
	char *canary = xasprintf("%s/lm-inert-%d", tmp, (int)getpid());

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	unlink(canary);
	test_command_boot(dir, canary);
	test_command_failures(dir);
	test_none();
	unlink(canary);
	transport_rmtree(dir);
	fprintf(stderr, "%d failures\n", check_failures);
	free(dir);
	free(canary);
	return check_failures ? 1 : 0;
}
