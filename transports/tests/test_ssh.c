/*
 * The ssh transport against a real sshd started here on a loopback port:
 * the transport contract; a timed-out remote command really gone from the
 * target; a wrong or missing pinned host key refused with a clear error;
 * a lost connection reported, then re-established.
 */
#include "proto/tests/check.h"
#include "transports/backend.h"
#include "transports/tests/contract.h"
#include "transports/tests/sshd_fixture.h"
#include "transports/transport.h"

#include "proto/buf.h"
#include "proto/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEST_PORT 22201
#define BOARD_PORT_FROM 22240 /* the command-booted board's sshd */

int check_failures;

static void s_collect(void *arg, enum transport_stream st, const char *data,
		      size_t len)
{
	if (st == TRANSPORT_STDOUT)
		buf_append(arg, data, len);
}

static void s_board(lab_board_t *b, sshd_fixture_t *f, const char *known)
{
	memset(b, 0, sizeof(*b));
	b->name = "ssh-board";
	b->transport.type = LAB_TRANSPORT_SSH;
	b->transport.host = "127.0.0.1";
	b->transport.port = f->port;
	b->transport.user = f->user;
	b->transport.identity = f->identity;
	b->transport.known_hosts = (char *)known;
	b->transport.connect_timeout_s = 5;
}

/* The master idles out (ControlPersist) during a long pause: the next
 * command brings up a new one rather than connecting on its own. */
static void s_master_gone(transport_t *t)
{
	char *ctl = xasprintf("%s/ssh-ctl", t->workdir);
	char *exit_cmd = xasprintf("ssh -o ControlPath=%s -O exit 127.0.0.1 2>/dev/null", ctl);
	int st = -1;

	if (access(ctl, F_OK) < 0) { /* socket elsewhere (deep workdir) */
		free(ctl);
		free(exit_cmd);
		return;
	}
	CHECK(system(exit_cmd) == 0);
	for (int i = 0; i < 250 && access(ctl, F_OK) == 0; i++)
		usleep(20 * 1000);
	CHECK(access(ctl, F_OK) < 0);
	CHECK(transport_run(t, "exit 6", 10000, NULL, NULL, &st) == 0 && st == 6);
	CHECK(access(ctl, F_OK) == 0);
	free(ctl);
	free(exit_cmd);
}

/* A workdir too deep for a unix socket path still gets a master. */
static void test_long_workdir(const lab_board_t *b, sshd_fixture_t *f)
{
	char *deep = xasprintf("%s/%s/%s", f->dir,
			       "a-rather-long-directory-name-for-a-job-0123456789abcdef",
			       "and-another-level-below-it-0123456789abcdef0123456789");
	transport_opts_t o = { .workdir = deep };
	transport_t *t = NULL;
	char *err = NULL;
	int st = -1;

	CHECK(transport_open(b, &o, &t, &err) == 0);
	if (t) {
		CHECK(transport_run(t, "exit 5", 10000, NULL, NULL, &st) == 0 && st == 5);
		s_master_gone(t);
		transport_close(&t);
	} else
		fprintf(stderr, "long workdir: %s\n", err);
	free(err);
	free(deep);
}

static void test_remote_kill(transport_t *t)
{
	buf_t out;
	int st = -1, r;

	buf_init(&out, 4096);
	r = transport_run(t, "sleep 1717", 1000, s_collect, &out, &st);
	CHECK(r == -ETIMEDOUT);
	CHECK(contract_procs_gone("sleep 1717", 5000));
	/* a whole tree, with a child ignoring SIGTERM */
	r = transport_run(t, "sh -c 'trap \"\" TERM; sleep 1718' & sleep 1719; wait",
			  1000, s_collect, &out, &st);
	CHECK(r == -ETIMEDOUT);
	CHECK(contract_procs_gone("sleep 1718", 5000));
	CHECK(contract_procs_gone("sleep 1719", 5000));
	buf_reset(&out);
	r = transport_run(t, "echo still", 10000, s_collect, &out, &st);
	CHECK(r == 0 && st == 0 && strcmp(buf_str(&out), "still\n") == 0);
	buf_free(&out);
}

static void test_connection_lost(transport_t *t)
{
	buf_t out;
	int st = -1, r;

	buf_init(&out, 4096);
	/* the parent of the remote shell is sshd's side of the connection */
	r = transport_run(t, "kill -9 $PPID; sleep 2", 20000, s_collect, &out, &st);
	CHECK(r == -ECONNRESET);
	fprintf(stderr, "lost connection: %s\n", transport_error(t));
	r = transport_run(t, "echo back", 20000, s_collect, &out, &st);
	CHECK(r == 0 && st == 0 && strcmp(buf_str(&out), "back\n") == 0);
	buf_free(&out);
}

static void test_host_keys(sshd_fixture_t *f)
{
	char empty[300];
	lab_board_t b;
	transport_t *t = NULL;
	char *err = NULL;
	FILE *fp;

	s_board(&b, f, f->wrong_known_hosts);
	CHECK(transport_open(&b, NULL, &t, &err) == -ECONNREFUSED && !t);
	fprintf(stderr, "wrong key: %s\n", err ? err : "(none)");
	CHECK(err && strstr(err, "host key does not match"));
	free(err);
	err = NULL;
	snprintf(empty, sizeof(empty), "%s/empty_known_hosts", f->dir);
	fp = fopen(empty, "w");
	if (fp)
		fclose(fp);
	s_board(&b, f, empty);
	CHECK(transport_open(&b, NULL, &t, &err) == -ECONNREFUSED && !t);
	fprintf(stderr, "missing key: %s\n", err ? err : "(none)");
	CHECK(err && strstr(err, "host key not pinned"));
	free(err);
	err = NULL;
	/* the host key is never accepted on first sight: still not pinned */
	CHECK(transport_open(&b, NULL, &t, &err) < 0);
	free(err);
	err = NULL;
	s_board(&b, f, f->known_hosts);
	b.transport.port = 22299; /* nothing listens there */
	CHECK(transport_open(&b, NULL, &t, &err) == -ECONNREFUSED && !t);
	fprintf(stderr, "no server: %s\n", err ? err : "(none)");
	CHECK(err && strstr(err, "cannot connect"));
	free(err);
	err = NULL;
	s_board(&b, f, f->known_hosts);
	b.transport.host = "-oProxyCommand=touch /tmp/x";
	CHECK(transport_open(&b, NULL, &t, &err) == -EINVAL);
	free(err);
}

/* A configured password goes to sshpass in SSHPASS, never in argv. */
static void test_password_path(sshd_fixture_t *f)
{
	const char *path = getenv("PATH");
	char *newpath = xasprintf("%s:%s", SSHPASS_STANDIN_DIR, path ? path : "/usr/bin:/bin");
	char *oldpath = xstrdup(path ? path : "/usr/bin:/bin");
	char *log = xasprintf("%s/sshpass.log", f->dir);
	lab_board_t b;
	transport_t *t = NULL;
	char *err = NULL, line[2048];
	int st = -1, argv_lines = 0, env_ok = 0, leaks = 0, batch_no = 0;
	FILE *fp;

	setenv("PATH", newpath, 1);
	setenv("LABMESH_SSHPASS_LOG", log, 1);
	s_board(&b, f, f->known_hosts);
	b.transport.password = "s3cret-pw";
	CHECK(transport_open(&b, NULL, &t, &err) == 0);
	if (t) {
		CHECK(transport_run(t, "true", 10000, NULL, NULL, &st) == 0 && st == 0);
		transport_close(&t);
	} else
		fprintf(stderr, "password open: %s\n", err);
	free(err);
	fp = fopen(log, "r");
	while (fp && fgets(line, sizeof(line), fp)) {
		if (strncmp(line, "argv: ", 6) == 0) {
			argv_lines++;
			leaks += strstr(line, "s3cret-pw") != NULL;
			batch_no += strstr(line, "BatchMode=no") != NULL;
		} else if (strcmp(line, "env: s3cret-pw\n") == 0)
			env_ok++;
	}
	if (fp)
		fclose(fp);
	CHECK(argv_lines >= 2 && leaks == 0 && env_ok == argv_lines &&
	      batch_no == argv_lines);
	setenv("PATH", oldpath, 1);
	free(newpath);
	free(oldpath);
	free(log);
}

/* Pin the fixture's host key for another port too. */
static int s_pin_port(sshd_fixture_t *f, int port, char *out, size_t outsz)
{
	FILE *in = fopen(f->known_hosts, "r"), *o;
	char line[1024], *key;

	snprintf(out, outsz, "%s/board_known_hosts", f->dir);
	if (!in || !fgets(line, sizeof(line), in) || !(key = strchr(line, ' '))) {
		if (in)
			fclose(in);
		return -1;
	}
	fclose(in);
	o = fopen(out, "w");
	if (!o)
		return -1;
	fprintf(o, "[127.0.0.1]:%d%s", port, key);
	return fclose(o);
}

/*
 * A board with the command boot method behind ssh: power_on brings up its
 * sshd a while later (as a board boots), board_open waits for it, a power
 * cycle reconnects, and board_close powers it off.
 */
static void test_command_board_over_ssh(sshd_fixture_t *f)
{
	char known[300], *on, *off, *pid;
	lab_board_t b;
	board_t *bd = NULL;
	char *err = NULL;
	buf_t out;
	int st = -1;

	int port = BOARD_PORT_FROM + (int)(getpid() % 50);

	if (s_pin_port(f, port, known, sizeof(known)) < 0) {
		CHECK(!"cannot write known_hosts");
		return;
	}
	pid = xasprintf("%s/board.pid", f->dir);
	on = xasprintf("sed -e 's/^Port .*/Port %d/' -e 's|^PidFile .*|PidFile %s|' "
		       "%s/sshd_config > %s/board_config && "
		       "setsid sh -c 'sleep 2; exec /usr/sbin/sshd -f %s/board_config' "
		       "</dev/null >/dev/null 2>&1 &",
		       port, pid, f->dir, f->dir, f->dir);
	off = xasprintf("if [ -f %s ]; then kill $(cat %s); rm -f %s; fi", pid, pid, pid);
	s_board(&b, f, known);
	b.transport.port = port;
	b.transport.connect_timeout_s = 2;
	b.boot.method = LAB_BOOT_COMMAND;
	b.boot.power_on = on;
	b.boot.power_off = off;
	b.boot.boot_timeout_s = 30;
	buf_init(&out, 4096);
	CHECK(board_open(&b, NULL, NULL, &bd, &err) == 0);
	if (!bd) {
		fprintf(stderr, "command board over ssh: %s\n", err);
		goto out;
	}
	CHECK(transport_run(board_transport(bd), "echo up", 10000, s_collect, &out,
			    &st) == 0 && st == 0 && strcmp(buf_str(&out), "up\n") == 0);
	CHECK(board_power(bd, TRANSPORT_POWER_CYCLE) == 0);
	if (board_transport(bd)) {
		buf_reset(&out);
		CHECK(transport_run(board_transport(bd), "echo again", 10000, s_collect,
				    &out, &st) == 0 && strcmp(buf_str(&out), "again\n") == 0);
	} else
		fprintf(stderr, "power cycle: %s\n", board_error(bd));
	board_close(&bd);
	CHECK(access(pid, F_OK) < 0); /* powered off */
out:
	free(err);
	buf_free(&out);
	free(on);
	free(off);
	free(pid);
}

int main(void)
{
	const char *why = sshd_fixture_unavailable();
	sshd_fixture_t f;
	lab_board_t b;
	transport_t *t = NULL;
	char err[512], *oerr = NULL;

	if (why) {
		fprintf(stderr, "skipped: %s\n", why);
		return 77;
	}
	if (sshd_fixture_start(&f, TEST_PORT, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		sshd_fixture_stop(&f);
		return 1;
	}
	s_board(&b, &f, f.known_hosts);
	if (transport_open(&b, NULL, &t, &oerr) < 0) {
		fprintf(stderr, "open: %s\n", oerr);
		free(oerr);
		check_failures++;
	} else {
		check_failures += contract_run(t, "ssh");
		s_master_gone(t);
		test_long_workdir(&b, &f);
		test_remote_kill(t);
		test_connection_lost(t);
		transport_close(&t);
	}
	test_host_keys(&f);
	test_password_path(&f);
	test_command_board_over_ssh(&f);
	sshd_fixture_stop(&f);
	fprintf(stderr, "%d failures\n", check_failures);
	return check_failures ? 1 : 0;
}
