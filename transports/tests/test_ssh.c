/*
 * The ssh transport against a real sshd started here on a loopback port:
 * the transport contract; a timed-out remote command really gone from the
 * target; a wrong or missing pinned host key refused with a clear error;
 * a lost connection reported, then re-established.
 */
#include "transports/tests/contract.h"
#include "transports/tests/sshd_fixture.h"
#include "transports/transport.h"

#include "proto/buf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEST_PORT 22201

static int s_failures;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
			s_failures++;                                          \
		}                                                              \
	} while (0)

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

static void test_remote_kill(transport_t *t)
{
	buf_t out;
	int st = -1, r;

	buf_init(&out, 4096);
	r = transport_run(t, "sleep 1717", 1000, s_collect, &out, &st);
	CHECK(r == -ETIMEDOUT);
	usleep(200 * 1000);
	CHECK(contract_count_procs("sleep 1717") == 0);
	/* a whole tree, with a child ignoring SIGTERM */
	r = transport_run(t, "sh -c 'trap \"\" TERM; sleep 1718' & sleep 1719; wait",
			  1000, s_collect, &out, &st);
	CHECK(r == -ETIMEDOUT);
	usleep(200 * 1000);
	CHECK(contract_count_procs("sleep 1718") == 0);
	CHECK(contract_count_procs("sleep 1719") == 0);
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
	b.transport.host = "-oProxyCommand=touch /tmp/x";
	CHECK(transport_open(&b, NULL, &t, &err) == -EINVAL);
	free(err);
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
		s_failures++;
	} else {
		s_failures += contract_run(t, "ssh");
		test_remote_kill(t);
		test_connection_lost(t);
		transport_close(&t);
	}
	test_host_keys(&f);
	sshd_fixture_stop(&f);
	fprintf(stderr, "%d failures\n", s_failures);
	return s_failures ? 1 : 0;
}
