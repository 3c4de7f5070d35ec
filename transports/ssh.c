/*
 * ssh: a board reached with the OpenSSH client. One master connection per
 * session (ControlMaster, its socket in the session's scratch dir,
 * ControlPersist so a master left behind by a killed node idles out), so
 * each command is one round trip over it.
 *
 * Trust: host keys are pinned (StrictHostKeyChecking=yes against the lab's
 * known_hosts, never disabled: a missing or changed key is an error that
 * says so). Authentication is by key in BatchMode; a password is used only
 * when the board config gives one explicitly, through sshpass -e with the
 * password in the SSHPASS environment variable, never on a command line.
 *
 * Commands run through remote.c's wrapper in the remote POSIX login shell:
 * it records the process group sshd gave the session in a per-session pid
 * file, so on timeout a second call kills that group and nothing is left
 * running on the board. ssh's own
 * failures exit 255 like a command can: a 255 counts as the command's
 * only while the master is still alive.
 *
 * put/get stream the file through `cat` over the same master (binary-safe
 * without a pty; works on targets with no sftp server), keeping mode bits.
 */
#include "transports/backend.h"
#include "transports/proc.h"
#include "transports/remote.h"

#include "proto/buf.h"
#include "proto/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SSH_CONNECT_TIMEOUT_S 10 /* when the board config gives none */
#define SSH_CONTROL_PERSIST "300" /* an orphaned master idles out (s) */
#define SSH_MAX_CTL_PATH 100     /* sun_path is 108 with the NUL */
#define SSH_MAX_HOST 255
#define SSH_KILL_TIMEOUT_MS 15000 /* the remote kill after a timeout */
#define SSH_CHECK_TIMEOUT_MS 10000
#define SSH_ERR_TAIL 600 /* stderr kept for error messages */

struct ssh_priv {
	char *opt_ctl;     /* ControlPath=... */
	char *opt_known;   /* UserKnownHostsFile=..., or NULL: ssh's default */
	char *opt_connect; /* ConnectTimeout=... */
	char *identity;    /* %-escaped, or NULL */
	char port[12];
	char *pass_env;    /* SSHPASS=..., or NULL */
	char *pidfile;     /* remote pid file, a shell word */
	char *where;       /* host:port, for messages */
	bool up;           /* the master was started */
};

/* Output to the caller, with the tail of stderr kept for messages. */
struct s_tee {
	transport_output_fn *fn;
	void *arg;
	char tail[SSH_ERR_TAIL];
	size_t len;
};

static void s_tee_fn(void *arg, enum transport_stream st, const char *data,
		     size_t len)
{
	struct s_tee *tee = arg;

	if (tee->fn)
		tee->fn(tee->arg, st, data, len);
	if (st != TRANSPORT_STDERR)
		return;
	if (len >= sizeof(tee->tail) - 1) {
		data += len - (sizeof(tee->tail) - 1);
		len = sizeof(tee->tail) - 1;
	}
	if (tee->len + len >= sizeof(tee->tail)) {
		size_t drop = tee->len + len - (sizeof(tee->tail) - 1);

		memmove(tee->tail, tee->tail + drop, tee->len - drop);
		tee->len -= drop;
	}
	memcpy(tee->tail + tee->len, data, len);
	tee->len += len;
	tee->tail[tee->len] = '\0';
}

/* The tail as one line: newlines folded, trailing space cut. */
static const char *s_tee_line(struct s_tee *tee)
{
	for (size_t i = 0; i < tee->len; i++)
		if (tee->tail[i] == '\n' || tee->tail[i] == '\r')
			tee->tail[i] = ' ';
	while (tee->len && tee->tail[tee->len - 1] == ' ')
		tee->tail[--tee->len] = '\0';
	return tee->len ? tee->tail : "no message";
}

/* ssh expands %-tokens in these options: keep our paths literal. */
static char *s_pct_escape(const char *s)
{
	buf_t b;

	buf_init(&b, 0);
	for (; *s; s++) {
		if (*s == '%')
			buf_putc(&b, '%');
		buf_putc(&b, *s);
	}
	return buf_steal(&b);
}

/* The arguments every ssh call shares, up to and including the host. */
static void s_args(transport_t *t, proc_spec_t *s)
{
	const lab_transport_t *c = &t->board->transport;
	struct ssh_priv *p = t->priv;

	proc_spec_init(s);
	if (p->pass_env) {
		proc_arg(s, "sshpass");
		proc_arg(s, "-e");
		proc_env(s, p->pass_env);
	}
	proc_arg(s, "ssh");
	proc_arg(s, "-T");
	proc_arg(s, "-o");
	proc_arg(s, p->pass_env ? "BatchMode=no" : "BatchMode=yes");
	proc_arg(s, "-o");
	proc_arg(s, "StrictHostKeyChecking=yes");
	if (p->opt_known) {
		proc_arg(s, "-o");
		proc_arg(s, p->opt_known);
		proc_arg(s, "-o");
		proc_arg(s, "GlobalKnownHostsFile=/dev/null");
	}
	proc_arg(s, "-o");
	proc_arg(s, p->opt_ctl);
	proc_arg(s, "-o");
	proc_arg(s, p->opt_connect);
	proc_arg(s, "-o");
	proc_arg(s, "LogLevel=ERROR");
	proc_arg(s, "-p");
	proc_arg(s, p->port);
	if (p->identity) {
		proc_arg(s, "-i");
		proc_arg(s, p->identity);
		proc_arg(s, "-o");
		proc_arg(s, "IdentitiesOnly=yes");
	}
	if (c->user) {
		proc_arg(s, "-l");
		proc_arg(s, c->user);
	}
	s->keep_group = true;
}

/* Run one ssh call (args already in s) with output to tee. */
static int s_call(transport_t *t, proc_spec_t *s, int timeout_ms,
		  struct s_tee *tee, int *ret_status)
{
	char err[256];
	int r;

	s->timeout_ms = timeout_ms;
	s->fn = s_tee_fn;
	s->arg = tee;
	r = proc_run(s, ret_status, err, sizeof(err));
	if (r < 0 && r != -ETIMEDOUT)
		transport_set_error(t, "ssh %s: %s", ((struct ssh_priv *)t->priv)->where, err);
	return r;
}

/* A plain remote command over the master (no pid wrapper). */
static int s_remote(transport_t *t, const char *remote, int stdin_fd,
		    int timeout_ms, struct s_tee *tee, int *ret_status)
{
	proc_spec_t s;

	s_args(t, &s);
	proc_arg(&s, "-o");
	proc_arg(&s, "ControlMaster=no");
	proc_arg(&s, "--");
	proc_arg(&s, t->board->transport.host);
	proc_arg(&s, remote);
	s.stdin_fd = stdin_fd;
	return s_call(t, &s, timeout_ms, tee, ret_status);
}

static bool s_master_alive(transport_t *t)
{
	struct s_tee tee = { 0 };
	proc_spec_t s;
	int st = -1;

	s_args(t, &s);
	proc_arg(&s, "-O");
	proc_arg(&s, "check");
	proc_arg(&s, "--");
	proc_arg(&s, t->board->transport.host);
	return s_call(t, &s, SSH_CHECK_TIMEOUT_MS, &tee, &st) == 0 && st == 0;
}

/* Say plainly why the master could not start. */
static void s_master_error(transport_t *t, struct s_tee *tee)
{
	struct ssh_priv *p = t->priv;
	const char *file = t->board->transport.known_hosts
				   ? t->board->transport.known_hosts
				   : "the default known_hosts";
	const char *msg = s_tee_line(tee);

	/* OpenSSH's warning is long: its tail names the offending key */
	if (strstr(msg, "IDENTIFICATION HAS CHANGED") || strstr(msg, "Offending "))
		transport_set_error(t, "ssh %s: host key does not match the key pinned in %s: refused",
				    p->where, file);
	else if (strstr(msg, "Host key verification failed") ||
		 strstr(msg, "host key is known"))
		transport_set_error(t, "ssh %s: host key not pinned in %s: refused (%s)",
				    p->where, file, msg);
	else
		transport_set_error(t, "ssh %s: cannot connect: %s", p->where, msg);
}

static int s_master_start(transport_t *t)
{
	const lab_transport_t *c = &t->board->transport;
	int timeout_s = c->connect_timeout_s > 0 ? c->connect_timeout_s : SSH_CONNECT_TIMEOUT_S;
	struct ssh_priv *p = t->priv;
	struct s_tee tee = { 0 };
	proc_spec_t s;
	int st = -1, r;

	s_args(t, &s);
	proc_arg(&s, "-o");
	proc_arg(&s, "ControlMaster=yes");
	proc_arg(&s, "-o");
	proc_arg(&s, "ControlPersist=" SSH_CONTROL_PERSIST);
	proc_arg(&s, "-o");
	proc_arg(&s, "ServerAliveInterval=15");
	proc_arg(&s, "-o");
	proc_arg(&s, "ServerAliveCountMax=3");
	proc_arg(&s, "-f");
	proc_arg(&s, "-N");
	proc_arg(&s, "--");
	proc_arg(&s, c->host);
	r = s_call(t, &s, (timeout_s + 5) * 1000, &tee, &st);
	if (r == -ETIMEDOUT) {
		transport_set_error(t, "ssh %s: no connection within %d s", p->where,
				    timeout_s + 5);
		return r;
	}
	if (r < 0)
		return r;
	if (st != 0) {
		s_master_error(t, &tee);
		return -ECONNREFUSED;
	}
	p->up = true;
	return 0;
}

/* After a timeout: kill the remote command's process group. */
static void s_remote_kill(transport_t *t)
{
	struct ssh_priv *p = t->priv;
	struct s_tee tee = { 0 };
	char *cmd = remote_kill(p->pidfile);
	int st;

	s_remote(t, cmd, -1, SSH_KILL_TIMEOUT_MS, &tee, &st);
	free(cmd);
}

static int s_run(transport_t *t, const char *cmd, int timeout_ms,
		 transport_output_fn *fn, void *arg, int *ret_status)
{
	struct ssh_priv *p = t->priv;
	struct s_tee tee = { .fn = fn, .arg = arg };
	char *remote;
	int st = -1, r;

	if (!p->up) {
		/* the board went away (power cycle, reboot): reconnect */
		r = s_master_start(t);
		if (r < 0)
			return r;
	}
	remote = remote_wrap(cmd, p->pidfile, NULL);
	r = s_remote(t, remote, -1, timeout_ms, &tee, &st);
	free(remote);
	if (r == -ETIMEDOUT) {
		s_remote_kill(t);
		transport_set_error(t, "ssh %s: command timed out after %d ms, killed",
				    p->where, timeout_ms);
		return r;
	}
	if (r < 0)
		return r;
	if (st == 255 && !s_master_alive(t)) {
		p->up = false;
		transport_set_error(t, "ssh %s: connection lost: %s", p->where,
				    s_tee_line(&tee));
		return -ECONNRESET;
	}
	*ret_status = st;
	return 0;
}

static int s_put(transport_t *t, const char *local, const char *remote)
{
	struct ssh_priv *p = t->priv;
	struct s_tee tee = { 0 };
	char *q = proc_shell_quote(remote), *cmd;
	struct stat sb;
	int fd, st = -1, r;

	fd = open(local, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		r = fd < 0 ? -errno : -EINVAL;
		transport_set_error(t, "ssh put: %s: %s", local,
				    fd < 0 ? strerror(-r) : "not a regular file");
		goto out;
	}
	cmd = xasprintf("cat > %s && chmod %o %s", q, (unsigned)(sb.st_mode & 07777), q);
	r = s_remote(t, cmd, fd, 0, &tee, &st);
	free(cmd);
	if (r == 0 && st != 0) {
		transport_set_error(t, "ssh %s: put %s: exit %d: %s", p->where, remote,
				    st, s_tee_line(&tee));
		r = -EIO;
	}
out:
	if (fd >= 0)
		close(fd);
	free(q);
	return r;
}

/* get's output: a mode line, then the file's bytes. */
struct s_sink {
	int fd;
	int err; /* first write error, as -errno */
	char head[8];
	size_t hlen;
	bool body;
	unsigned mode;
};

static void s_sink_fn(void *arg, enum transport_stream st, const char *data,
		      size_t len)
{
	struct s_sink *k = arg;

	while (st == TRANSPORT_STDOUT && !k->body && len > 0) {
		char c = *data++;

		len--;
		if (c == '\n') {
			k->head[k->hlen] = '\0';
			k->body = sscanf(k->head, "%o", &k->mode) == 1 && k->mode <= 07777;
			if (!k->body)
				k->err = -EPROTO;
		} else if (k->hlen + 1 < sizeof(k->head) && c >= '0' && c <= '7')
			k->head[k->hlen++] = c;
		else
			k->err = -EPROTO;
		if (k->err)
			return;
	}
	while (st == TRANSPORT_STDOUT && !k->err && len > 0) {
		ssize_t w = write(k->fd, data, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			k->err = -errno;
			return;
		}
		data += w;
		len -= (size_t)w;
	}
}

static int s_get(transport_t *t, const char *remote, const char *local)
{
	struct ssh_priv *p = t->priv;
	struct s_sink k = { .fd = -1 };
	struct s_tee tee = { .fn = s_sink_fn, .arg = &k };
	char *q = proc_shell_quote(remote), *cmd;
	int st = -1, r;

	k.fd = open(local, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (k.fd < 0) {
		r = -errno;
		transport_set_error(t, "ssh get: %s: %s", local, strerror(-r));
		free(q);
		return r;
	}
	cmd = xasprintf("[ -f %s ] && [ -r %s ] || { echo 'no such readable file' >&2; exit 1; }; "
			"m=$(stat -c %%a %s 2>/dev/null) || m=644; echo \"$m\" && exec cat %s",
			q, q, q, q);
	r = s_remote(t, cmd, -1, 0, &tee, &st);
	free(cmd);
	if (r == 0 && (st != 0 || k.err || !k.body)) {
		transport_set_error(t, "ssh %s: get %s: %s", p->where, remote,
				    k.err ? strerror(-k.err) : s_tee_line(&tee));
		r = k.err ? k.err : -EIO;
	}
	if (r == 0 && fchmod(k.fd, k.mode) < 0)
		r = -errno;
	if (close(k.fd) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		unlink(local);
	free(q);
	return r;
}

static void s_free(struct ssh_priv *p)
{
	if (!p)
		return;
	free(p->opt_ctl);
	free(p->opt_known);
	free(p->opt_connect);
	free(p->identity);
	if (p->pass_env) {
		explicit_bzero(p->pass_env, strlen(p->pass_env));
		free(p->pass_env);
	}
	free(p->pidfile);
	free(p->where);
	free(p);
}

static void s_close(transport_t *t)
{
	struct ssh_priv *p = t->priv;
	struct s_tee tee = { 0 };
	proc_spec_t s;
	char *cmd;
	int st;

	if (p && p->up) {
		cmd = xasprintf("rm -f %s", p->pidfile);
		s_remote(t, cmd, -1, SSH_CHECK_TIMEOUT_MS, &tee, &st);
		free(cmd);
		s_args(t, &s);
		proc_arg(&s, "-O");
		proc_arg(&s, "exit");
		proc_arg(&s, "--");
		proc_arg(&s, t->board->transport.host);
		s_call(t, &s, SSH_CHECK_TIMEOUT_MS, &tee, &st);
	}
	s_free(p);
	t->priv = NULL;
}

static const struct transport_ops s_ops = {
	.name = "ssh",
	.run = s_run,
	.put = s_put,
	.get = s_get,
	.close = s_close,
};

/* A host or user name that cannot pass for an option or break a line. */
static bool s_word_ok(const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > max || s[0] == '-')
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

static int s_check_config(transport_t *t)
{
	const lab_transport_t *c = &t->board->transport;

	if (!s_word_ok(c->host, SSH_MAX_HOST)) {
		transport_set_error(t, "ssh: bad or missing host");
		return -EINVAL;
	}
	if (c->user && !s_word_ok(c->user, LAB_MAX_NAME)) {
		transport_set_error(t, "ssh: bad user name");
		return -EINVAL;
	}
	if (c->port < 0 || c->port > 65535) {
		transport_set_error(t, "ssh: port %d out of range", c->port);
		return -EINVAL;
	}
	if (strlen(t->workdir) + sizeof("/ssh-ctl") > SSH_MAX_CTL_PATH) {
		transport_set_error(t, "ssh: workdir path too long for a control socket: %s",
				    t->workdir);
		return -ENAMETOOLONG;
	}
	return 0;
}

int ssh_open(transport_t *t)
{
	const lab_transport_t *c = &t->board->transport;
	struct ssh_priv *p;
	char token[REMOTE_TOKEN_HEX + 1];
	char *e;
	int r;

	r = s_check_config(t);
	if (r < 0)
		return r;
	if (remote_token(token) < 0) {
		transport_set_error(t, "ssh: getrandom failed");
		return -EIO;
	}
	p = xzalloc(sizeof(*p));
	t->priv = p;
	e = s_pct_escape(t->workdir);
	p->opt_ctl = xasprintf("ControlPath=%s/ssh-ctl", e);
	free(e);
	if (c->known_hosts) {
		e = s_pct_escape(c->known_hosts);
		p->opt_known = xasprintf("UserKnownHostsFile=%s", e);
		free(e);
	}
	p->opt_connect = xasprintf("ConnectTimeout=%d", c->connect_timeout_s > 0
							   ? c->connect_timeout_s
							   : SSH_CONNECT_TIMEOUT_S);
	p->identity = c->identity ? s_pct_escape(c->identity) : NULL;
	snprintf(p->port, sizeof(p->port), "%d", c->port > 0 ? c->port : 22);
	p->pass_env = c->password ? xasprintf("SSHPASS=%s", c->password) : NULL;
	p->pidfile = remote_pidfile(c->workdir, "/tmp", token);
	p->where = xasprintf("%s:%s", c->host, p->port);
	e = xasprintf("%s/ssh-ctl", t->workdir);
	unlink(e); /* a stale socket from an earlier session in this dir */
	free(e);
	t->ops = &s_ops;
	r = s_master_start(t);
	if (r < 0) {
		s_free(p);
		t->priv = NULL;
		t->ops = NULL;
	}
	return r;
}
