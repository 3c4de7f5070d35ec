/*
 * The serial transport against real far ends on this machine: the
 * transport contract on a shell behind a pty (dash and busybox sh), on a
 * pty path, on a ser2net-like TCP relay and on a unix socket (both socat);
 * a login prompt; console noise in the middle of output; put by escaped
 * bytes of the bytes the tty would take as controls, and of files that
 * end on a read's boundary; the base64 and printf fallbacks; commands run
 * without a subshell leave the session as it was.
 */
#include "proto/tests/check.h"
#include "transports/tests/contract.h"
#include "transports/tests/serial_fixture.h"
#include "transports/backend.h"
#include "transports/serial.h"

#include "proto/buf.h"
#include "proto/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TEST_TCP_PORT 25501
#define TEST_NOISY_COMMANDS 100

int check_failures;

static void s_collect(void *arg, enum transport_stream st, const char *data,
		      size_t len)
{
	buf_append(arg, data, len);
}

static int s_run(transport_t *t, const char *cmd, buf_t *out, int *status)
{
	buf_reset(out);
	*status = -1;
	return transport_run(t, cmd, 30000, s_collect, out, status);
}

static void s_board(lab_board_t *b, enum lab_serial_kind kind, char *device)
{
	memset(b, 0, sizeof(*b));
	b->name = "serial-test";
	b->transport.type = LAB_TRANSPORT_SERIAL;
	b->transport.serial_kind = kind;
	b->transport.device = device;
	b->transport.connect_timeout_s = 10;
}

/* Commands that may run in the session's shell change nothing in it. */
static void test_isolation(transport_t *t)
{
	static const char *const cmds[] = {
		"cd /", "umask 077", "set -e", "trap 'echo trapped' EXIT", "x=1",
		"'exit' 4", "ex''it 5", "alias true=false", "readonly PATH",
	};
	buf_t before, out;
	int st;

	buf_init(&before, 4096);
	buf_init(&out, 4096);
	CHECK(s_run(t, "pwd; umask; echo \"x=$x\"", &before, &st) == 0 && st == 0);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		CHECK(s_run(t, cmds[i], &out, &st) == 0);
	CHECK(s_run(t, "'exit' 4", &out, &st) == 0 && st == 4);
	CHECK(s_run(t, "false", &out, &st) == 0 && st == 1);
	CHECK(s_run(t, "true", &out, &st) == 0 && st == 0 && out.len == 0);
	CHECK(s_run(t, "pwd; umask; echo \"x=$x\"", &out, &st) == 0 && st == 0 &&
	      strcmp(buf_str(&out), buf_str(&before)) == 0);
	/* a plain command's stdin is not the console either */
	CHECK(s_run(t, "cat", &out, &st) == 0 && st == 0 && out.len == 0);
	CHECK(s_run(t, "echo after", &out, &st) == 0 &&
	      strcmp(buf_str(&out), "after\n") == 0);
	buf_free(&before);
	buf_free(&out);
}

static bool s_put_get(transport_t *t, const unsigned char *data, size_t n)
{
	char src[] = "/tmp/lm-edge-XXXXXX", back[64], *cmd;
	int fd = mkstemp(src);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, data, n) == (ssize_t)n;
	close(fd);
	snprintf(back, sizeof(back), "%s.back", src);
	ok = ok && transport_put(t, src, "/tmp/lm-edge.bin") == 0 &&
	     transport_get(t, "/tmp/lm-edge.bin", back) == 0;
	if (!ok)
		fprintf(stderr, "put/get of %zu bytes: %s\n", n, transport_error(t));
	cmd = xasprintf("cmp -s %s %s", src, back);
	ok = ok && system(cmd) == 0;
	free(cmd);
	unlink(src);
	unlink(back);
	return ok;
}

/* Files of only the bytes the tty or QEMU would act on, empty files and
 * files that end exactly where a read ends. */
static void test_put_edges(transport_t *t)
{
	static const unsigned char specials[] = { '\n', 3, 4, 0x16, 1, 0x1b, 0x7f, '\r',
						  0x11, 0x13, 0x15, 0x17, 0x1a, 0x1c,
						  0x12, 0, 0xff, 8 };
	unsigned char buf[9001];
	int st;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = specials[i % sizeof(specials)];
	CHECK(s_put_get(t, buf, sizeof(buf)));
	memset(buf, 0x16, sizeof(buf));
	CHECK(s_put_get(t, buf, 3000));
	memset(buf, '\n', sizeof(buf));
	CHECK(s_put_get(t, buf, 6000));
	CHECK(s_put_get(t, buf, 1));
	CHECK(s_put_get(t, buf, 0));
	{
		buf_t out;

		buf_init(&out, 4096);
		CHECK(s_run(t, "rm -f /tmp/lm-edge.bin; echo ok", &out, &st) == 0 &&
		      strcmp(buf_str(&out), "ok\n") == 0);
		buf_free(&out);
	}
}

/* The contract on a shell behind a pty we hold the master of. */
static void test_pty_fd(const char *label, char *const argv[], bool extra)
{
	lab_board_t b;
	transport_t *t = NULL;
	pid_t pid;
	int m, r;

	s_board(&b, LAB_SERIAL_PTY, NULL);
	r = fixture_pty_shell(argv, &m, &pid);
	CHECK(r == 0);
	if (r < 0)
		return;
	r = fixture_transport_fd(&b, m, &t);
	CHECK(r == 0);
	if (r == 0) {
		CHECK(contract_run(t, label) == 0);
		if (extra) {
			buf_t out;
			int st;

			buf_init(&out, 1 << 20);
			/* markers typed on the line cannot end a command */
			r = s_run(t, "echo 'lm-e' 'lm-s'; printf 'lm-%s\\n' e", &out, &st);
			CHECK(r == 0 && st == 0 &&
			      strcmp(buf_str(&out), "lm-e lm-s\nlm-e\n") == 0);
			r = s_run(t, "printf '[ 1.000000] not kernel\\n'; exit 7", &out, &st);
			CHECK(r == 0 && st == 7 &&
			      strcmp(buf_str(&out), "[ 1.000000] not kernel\n") == 0);
			r = s_run(t, "printf 'a\\001b\\033[0m\\r\\n'", &out, &st);
			CHECK(r == 0 && st == 0 && out.len == 9);
			test_isolation(t);
			test_put_edges(t);
			/* untypeable commands go through a script on the target */
			r = s_run(t, "printf '%s' '\001\033'; exit 5", &out, &st);
			CHECK(r == 0 && st == 5 && out.len == 2 && out.data[0] == 1 &&
			      out.data[1] == 033);
			{
				buf_t cmd;

				buf_init(&cmd, 0);
				buf_puts(&cmd, "echo ");
				for (int i = 0; i < 20000; i++)
					buf_putc(&cmd, 'q');
				buf_puts(&cmd, " | wc -c");
				r = s_run(t, buf_str(&cmd), &out, &st);
				CHECK(r == 0 && st == 0 && atoi(buf_str(&out)) == 20001);
				buf_free(&cmd);
			}
			buf_free(&out);
		}
		transport_close(&t);
	}
	close(m);
	fixture_kill(pid);
}

/* A far end that types "[ ts] text\r\n" records (as the kernel console
 * does) from a background loop while commands run. */
static void test_noise(char *const argv[])
{
	lab_board_t b;
	transport_t *t = NULL;
	buf_t out;
	pid_t pid;
	int m, r, st, bad = 0;

	s_board(&b, LAB_SERIAL_PTY, NULL);
	if (fixture_pty_shell(argv, &m, &pid) < 0 || fixture_transport_fd(&b, m, &t) < 0) {
		CHECK(!"noise: far end");
		return;
	}
	buf_init(&out, 1 << 20);
	r = s_run(t, "(while :; do printf '[ %5d.%06d] noise\\r\\n' $$ 1 >/dev/tty; "
		     "sleep 0.005; done) >/dev/null 2>&1 & echo $! > /tmp/lm-noise.$$; "
		     "cat /tmp/lm-noise.$$",
		  &out, &st);
	CHECK(r == 0 && st == 0);
	for (int i = 0; i < TEST_NOISY_COMMANDS; i++) {
		char cmd[96], want[96];

		snprintf(cmd, sizeof(cmd), "seq %d %d; exit %d", i, i + 20, i % 256);
		buf_t w;

		buf_init(&w, 0);
		for (int k = i; k <= i + 20; k++)
			buf_printf(&w, "%d\n", k);
		snprintf(want, sizeof(want), "%s", buf_str(&w));
		r = s_run(t, cmd, &out, &st);
		if (r != 0 || st != i % 256 || strcmp(buf_str(&out), buf_str(&w)) != 0) {
			fprintf(stderr, "noise: command %d: r=%d st=%d out='%.80s'\n", i, r,
				st, buf_str(&out));
			bad++;
		}
		buf_free(&w);
	}
	CHECK(bad == 0);
	fprintf(stderr, "pty noise: %d of %d commands exact\n", TEST_NOISY_COMMANDS - bad,
		TEST_NOISY_COMMANDS);
	s_run(t, "kill $(cat /tmp/lm-noise.*) 2>/dev/null; rm -f /tmp/lm-noise.*", &out, &st);
	buf_free(&out);
	transport_close(&t);
	close(m);
	fixture_kill(pid);
}

/* put/get through the base64 blocks (no_b64: the printf/od fallback). */
static void test_fallback(char *const argv[], bool no_b64)
{
	lab_board_t b;
	transport_t *t = NULL;
	char src[] = "/tmp/lm-fallback-XXXXXX", back[64];
	unsigned char data[70000];
	buf_t out;
	pid_t pid;
	int m, fd, st;

	s_board(&b, LAB_SERIAL_PTY, NULL);
	if (fixture_pty_shell(argv, &m, &pid) < 0 || fixture_transport_fd(&b, m, &t) < 0) {
		CHECK(!"fallback: far end");
		return;
	}
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)((i * 7919) ^ (i >> 8));
	fd = mkstemp(src);
	CHECK(fd >= 0 && write(fd, data, sizeof(data)) == (ssize_t)sizeof(data));
	close(fd);
	snprintf(back, sizeof(back), "%s.back", src);
	serial_no_binary(t);
	if (no_b64)
		serial_no_base64(t);
	CHECK(transport_put(t, src, "/tmp/lm-fallback.bin") == 0);
	CHECK(transport_get(t, "/tmp/lm-fallback.bin", back) == 0);
	buf_init(&out, 1 << 20);
	CHECK(s_run(t, "cmp /tmp/lm-fallback.bin /tmp/lm-fallback.bin && rm /tmp/lm-fallback.bin",
		    &out, &st) == 0 && st == 0);
	{
		char *cmd = xasprintf("cmp %s %s", src, back);

		CHECK(system(cmd) == 0);
		free(cmd);
	}
	buf_free(&out);
	unlink(src);
	unlink(back);
	transport_close(&t);
	close(m);
	fixture_kill(pid);
}

static const char s_login_script[] =
	"printf 'board login: '; read u; printf 'Password: '; stty -echo; read p; "
	"stty echo; echo; if [ \"$u\" = root ] && [ \"$p\" = s3cret ]; then "
	"echo 'Welcome'; exec /bin/sh -i; fi; echo 'Login incorrect'; sleep 5";

static void test_login(const char *password, int want)
{
	char *argv[] = { "/bin/sh", "-c", (char *)s_login_script, NULL };
	lab_board_t b;
	transport_t *t = NULL;
	buf_t out;
	pid_t pid;
	int m, r, st;

	s_board(&b, LAB_SERIAL_PTY, NULL);
	b.transport.login = "root";
	b.transport.login_password = (char *)password;
	if (fixture_pty_shell(argv, &m, &pid) < 0) {
		CHECK(!"login: far end");
		return;
	}
	r = fixture_transport_fd(&b, m, &t);
	CHECK(r == want);
	if (r == 0) {
		buf_init(&out, 4096);
		r = s_run(t, "id -un; exit 4", &out, &st);
		CHECK(r == 0 && st == 4 && out.len > 1);
		buf_free(&out);
		transport_close(&t);
	}
	fprintf(stderr, "login with %s password: %s\n", want == 0 ? "the right" : "a wrong",
		r == want ? "ok" : "FAIL");
	close(m);
	fixture_kill(pid);
}

/* socat relays: a pty path, TCP (ser2net-like), a unix socket. */
static void test_socat(const char *label, enum lab_serial_kind kind,
		       const char *listen, char *device, int port)
{
	lab_board_t b;
	transport_t *t = NULL;
	char *err = NULL;
	pid_t pid;
	int r;

	pid = fixture_socat(listen, "EXEC:/bin/sh -i,pty,setsid,ctty,stderr,sane");
	CHECK(pid > 0);
	s_board(&b, kind, device);
	b.transport.tcp_host = "127.0.0.1";
	b.transport.tcp_port = port;
	r = fixture_transport_open(&b, 10000, &t, &err);
	if (r < 0)
		fprintf(stderr, "%s: open: %s\n", label, err ? err : "?");
	free(err);
	CHECK(r == 0);
	if (r == 0) {
		CHECK(contract_run(t, label) == 0);
		transport_close(&t);
	}
	if (kind == LAB_SERIAL_PTY) {
		/* the same path as a tty device: termios baud, then a bad one */
		buf_t out;
		int st;

		b.transport.serial_kind = LAB_SERIAL_TTY;
		b.transport.baud = 115200;
		r = fixture_transport_open(&b, 5000, &t, &err);
		CHECK(r == 0);
		if (r == 0) {
			buf_init(&out, 4096);
			CHECK(s_run(t, "echo tty; exit 9", &out, &st) == 0 && st == 9 &&
			      strcmp(buf_str(&out), "tty\n") == 0);
			buf_free(&out);
			transport_close(&t);
		}
		free(err);
		err = NULL;
		b.transport.baud = 12345;
		r = transport_open(&b, NULL, &t, &err);
		CHECK(r == -EINVAL && err && strstr(err, "baud"));
		free(err);
	}
	fixture_kill(pid);
}

static void s_console(void *arg, enum transport_stream stream, const char *p,
		      size_t n)
{
	(void)stream;
	buf_append(arg, p, n);
}

/* The far end prints kernel records, then closes while the lab is about
 * to type (a console server or socket that went away): the write fails,
 * and what the far end printed first, more than one read's worth, is
 * still read into the console log. */
static void test_gone_drained(void)
{
	/* yes's stderr is the console too: as it inherits our ignored
	 * SIGPIPE, it would say "Broken pipe" into a record when head ends */
	static const char cmd[] =
		"yes \"$(printf '[    1.000000] board-fill-xxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxx\\r')\" 2>/dev/null | head -n 1000; "
		"printf '[    2.000000] board-fill-end\\r\\n'; exit 0\n";
	char *argv[] = { "/bin/sh", "-i", NULL };
	lab_board_t b;
	transport_t *t = NULL;
	buf_t con;
	int sv[2], st;
	pid_t pid;

	s_board(&b, LAB_SERIAL_PTY, NULL);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		CHECK(0);
		return;
	}
	pid = fork();
	if (pid == 0) {
		dup2(sv[1], 0);
		dup2(sv[1], 1);
		dup2(sv[1], 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(sv[1]);
	CHECK(pid > 0);
	if (pid < 0 || fixture_transport_fd(&b, sv[0], &t) < 0) {
		CHECK(0);
		close(sv[0]);
		if (pid > 0)
			fixture_kill(pid);
		return;
	}
	buf_init(&con, 1 << 20);
	t->console_fn = s_console;
	t->console_arg = &con;
	CHECK(serial_write(t, cmd, strlen(cmd), serial_now_ms() + 10000) == 0);
	for (int i = 0; i < 1000 && waitpid(pid, &st, WNOHANG) == 0; i++)
		usleep(10000);
	if (kill(pid, 0) == 0) {
		CHECK(!"the far end did not end");
		fixture_kill(pid);
	}
	CHECK(serial_write(t, "\n", 1, serial_now_ms() + 10000) == -EPIPE);
	transport_close(&t);
	{
		const char *c = buf_str(&con);
		int lines = 0;

		while ((c = strstr(c, "board-fill-xxx")) != NULL) {
			lines++;
			c++;
		}
		printf("far end gone: %d of 1000 lines in the console log, %s\n",
		       lines, strstr(buf_str(&con), "board-fill-end") ?
				      "and its last" : "not its last");
		CHECK(lines == 1000);
		CHECK(strstr(buf_str(&con), "board-fill-end") != NULL);
	}
	buf_free(&con);
	close(sv[0]);
}

int main(void)
{
	char *dash[] = { "/bin/sh", "-i", NULL };
	char *bbsh[] = { "busybox", "sh", "-i", NULL };
	char *bash[] = { "bash", "--norc", "--noprofile", "-i", NULL };
	char dir[] = "/tmp/lm-serial-XXXXXX";

	signal(SIGPIPE, SIG_IGN);
	if (!mkdtemp(dir))
		return 1;
	test_pty_fd("serial pty (sh)", dash, true);
	if (fixture_have("busybox"))
		test_pty_fd("serial pty (busybox sh)", bbsh, true);
	if (fixture_have("bash"))
		test_pty_fd("serial pty (bash)", bash, false);
	test_noise(dash);
	test_gone_drained();
	test_fallback(dash, false);
	test_fallback(dash, true);
	test_login("s3cret", 0);
	test_login("wrong", -EACCES);
	if (fixture_have("socat")) {
		char *pty = xasprintf("%s/tty", dir), *sock = xasprintf("%s/console.sock", dir);
		char *a = xasprintf("PTY,link=%s,raw,echo=0", pty);
		char *c = xasprintf("UNIX-LISTEN:%s", sock);
		char *d = xasprintf("TCP-LISTEN:%d,bind=127.0.0.1,reuseaddr", TEST_TCP_PORT);

		test_socat("serial pty path", LAB_SERIAL_PTY, a, pty, 0);
		test_socat("serial unix socket", LAB_SERIAL_UNIX, c, sock, 0);
		test_socat("serial tcp (ser2net-like)", LAB_SERIAL_TCP, d, NULL, TEST_TCP_PORT);
		free(a);
		free(c);
		free(d);
		unlink(sock);
		free(pty);
		free(sock);
	} else {
		fprintf(stderr, "socat not installed: pty path, unix and tcp relays not tested\n");
	}
	rmdir(dir);
	if (check_failures)
		fprintf(stderr, "%d checks failed\n", check_failures);
	return check_failures ? 1 : 0;
}
