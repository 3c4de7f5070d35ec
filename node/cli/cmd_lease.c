/*
 * cmd_lease: a board of any lab held interactively. `labmesh lease`
 * signs a take (renew, release) with the submitter's key and hands it to
 * the local node, which floods it; the lab answers with an accept or a
 * decline record of the lease's id. `exec`, `put`, `get` and `power`
 * sign one operation each, hand it to the local node (control command
 * lease-use), which relays it to the lab, and read the lab's signed
 * replies (lease-poll) until the last, checking each against the lab's
 * node id.
 */
#include "node/cli/cli.h"
#include "node/net/ctl.h"
#include "node/results/results.h"
#include "node/results/reqview.h"
#include "node/store/wire.h"

#include "proto/lease.h"
#include "proto/mem.h"
#include "proto/record.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* the node is asked for the next reply after 1 ms, then twice as long
 * each time up to LEASE_POLL_MS: a reply that comes in a few ms (a
 * console's answer) is seen then, not a whole period later */
#define LEASE_POLL_MS 20
/* The console waits this long for keys, then asks the lab for what the
 * console said, without keys: the lab waits LEASE_CONSOLE_IDLE_MS for
 * it, and keys typed meanwhile wait for that to end. Unprompted output
 * shows within about 250 ms; a typed key waits at most about 30 ms. */
#define LEASE_CONSOLE_KEYS_MS 200
#define LEASE_CONSOLE_IDLE_MS 20
#define LEASE_WAIT_MS (5 * 60 * 1000)  /* for the lab's first reply */
#define LEASE_CHUNK (40 * 1024)        /* bytes of a file per put */

enum { O_KEY = CLI_OPT_FIRST, O_FOR, O_WAIT, O_TIMEOUT };

typedef struct {
	cli_t *cli;
	const char *cmd;
	key_pair_t kp;
	char lab[PROTO_MAX_NAME + 1], board[PROTO_MAX_NAME + 1];
	uint8_t node[32]; /* the lab's node id */
	int timeout_s;
	const char *key;
} s_ctx_t;

static int64_t s_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wall-clock microseconds, strictly increasing in this process. */
static uint64_t s_seq(void)
{
	static uint64_t last;
	struct timespec ts;
	uint64_t v;

	clock_gettime(CLOCK_REALTIME, &ts);
	v = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
	last = v > last ? v : last + 1;
	return last;
}

static int s_target(s_ctx_t *x, const char *t)
{
	const char *slash = strchr(t, '/');

	if (!slash || slash == t || (size_t)(slash - t) > PROTO_MAX_NAME ||
	    strlen(slash + 1) > PROTO_MAX_NAME || !slash[1])
		return cli_usage_error(x->cmd, "'%s' is not LAB/BOARD", t);
	snprintf(x->lab, sizeof(x->lab), "%.*s", (int)(slash - t), t);
	snprintf(x->board, sizeof(x->board), "%s", slash + 1);
	return 0;
}

static int s_load_key(s_ctx_t *x)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *path, err[512];
	int rc;

	if (x->key)
		path = xstrdup(x->key);
	else if (xdg && *xdg)
		path = xasprintf("%s/labmesh/key", xdg);
	else
		path = xasprintf("%s/.config/labmesh/key",
				 home && *home ? home : ".");
	rc = key_load(path, &x->kp, err, sizeof(err));
	free(path);
	if (rc < 0)
		return cli_fail(x->cmd, "%s (make one with 'labmesh keygen')",
				err);
	return 0;
}

/* The node id of lab x->lab, from the newest advert naming it. */
static int s_lab_node(s_ctx_t *x)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int rc = results_open(x->cli->home, false, &db);
	bool found = false;

	if (rc == 0 && sqlite3_prepare_v2(db, "SELECT author, bytes FROM"
					  " records WHERE kind=? ORDER BY"
					  " ts_ms DESC", -1, &st, NULL) ==
			       SQLITE_OK) {
		sqlite3_bind_int(st, 1, RECORD_ADVERT);
		while (!found && sqlite3_step(st) == SQLITE_ROW) {
			size_t n = (size_t)sqlite3_column_bytes(st, 1);
			wire_advert_t a;

			if (sqlite3_column_bytes(st, 0) != 32 ||
			    wire_advert_decode(sqlite3_column_blob(st, 1), n,
					       &a) < 0)
				continue;
			found = strcmp(a.lab, x->lab) == 0;
			if (found)
				memcpy(x->node, sqlite3_column_blob(st, 0), 32);
			wire_advert_free(&a);
		}
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	if (!found)
		return cli_fail(x->cmd, "no lab '%s' is known to the node in %s"
				" (see 'labmesh boards')", x->lab,
				x->cli->home);
	return 0;
}

static int s_ctl(s_ctx_t *x, const char *command, size_t n,
		 const char *const *args, const size_t *lens, char **ret)
{
	bool ok = false;
	char *body = NULL;
	int rc = ctl_call(x->cli->home, command, false, n, args, lens,
			  CTL_TIMEOUT_MS, &ok, &body);

	if (rc == -ECONNREFUSED)
		return cli_fail(x->cmd, "no node is running in %s",
				x->cli->home);
	if (rc < 0)
		return cli_fail(x->cmd, "control socket: %s", strerror(-rc));
	if (!ok) {
		rc = cli_fail(x->cmd, "%s", body);
		free(body);
		return rc;
	}
	if (ret)
		*ret = body;
	else
		free(body);
	return 0;
}

/* ---- operations and their replies ---- */

typedef int (*s_reply_fn)(void *arg, const lease_reply_t *r);

/* Hand operation bytes b to the local node for lab x->node. */
static int s_send_op(s_ctx_t *x, const uint8_t *b, size_t n)
{
	char node[65];
	const char *args[2] = { (const char *)b, node };
	size_t lens[2] = { n, 64 };

	wire_hex(x->node, 32, node);
	return s_ctl(x, "lease-use", 2, args, lens, NULL);
}

/* The next reply to operation id (64 hex: hex), number index, waiting
 * up to x->timeout_s: 0 and *ret (its bytes in *ret_bytes, the caller
 * frees), or an exit code (said). */
static int s_next_reply(s_ctx_t *x, const uint8_t id[32], const char *hex,
			uint64_t index, lease_reply_t *ret,
			uint8_t **ret_bytes)
{
	int64_t deadline = s_now_ms() + (int64_t)x->timeout_s * 1000;
	const char *args[1] = { hex };
	int pause_ms = 1;

	for (;;) {
		char *body = NULL;
		size_t blen;
		uint8_t *rb;

		if (s_ctl(x, "lease-poll", 1, args, NULL, &body))
			return CLI_EXIT_FAIL;
		blen = strlen(body);
		if (!blen) {
			free(body);
			if (s_now_ms() > deadline)
				return cli_fail(x->cmd, "no answer from lab %s"
						" in %d s", x->lab,
						x->timeout_s);
			usleep((useconds_t)pause_ms * 1000);
			if (pause_ms < LEASE_POLL_MS)
				pause_ms = 2 * pause_ms < LEASE_POLL_MS ?
					   2 * pause_ms : LEASE_POLL_MS;
			continue;
		}
		rb = xmalloc(blen / 2 + 1);
		if (blen % 2 || wire_unhex(body, rb, blen / 2) < 0 ||
		    lease_reply_decode(rb, blen / 2, ret) < 0 ||
		    sodium_memcmp(ret->node, x->node, 32) != 0 ||
		    memcmp(ret->op_id, id, 32) != 0 || ret->index != index) {
			free(rb);
			free(body);
			return cli_fail(x->cmd, "a reply that is not lab %s's"
					" answer, or out of order", x->lab);
		}
		free(body);
		*ret_bytes = rb;
		return 0;
	}
}

/* Send operation l and hand each reply to fn until the last; the last
 * reply's status in *ret_status. 0 or CLI_EXIT_FAIL (said). */
static int s_op(s_ctx_t *x, lease_t *l, s_reply_fn fn, void *arg,
		int64_t *ret_status)
{
	uint8_t *b = NULL, id[32];
	size_t n = 0;
	char hex[65];
	int rc;

	snprintf(l->lab, sizeof(l->lab), "%s", x->lab);
	snprintf(l->board, sizeof(l->board), "%s", x->board);
	l->seq = s_seq();
	if (lease_sign(l, &x->kp, &b, &n, id) < 0)
		return cli_fail(x->cmd, "cannot sign the operation (too big?)");
	rc = s_send_op(x, b, n);
	free(b);
	if (rc)
		return CLI_EXIT_FAIL;
	wire_hex(id, 32, hex);
	for (uint64_t index = 0;; index++) {
		lease_reply_t r;
		uint8_t *rb = NULL;

		if ((rc = s_next_reply(x, id, hex, index, &r, &rb)))
			return rc;
		if (r.final && r.status < 0)
			rc = cli_fail(x->cmd, "%.*s", (int)r.data_len,
				      (const char *)r.data);
		else if (fn(arg, &r) < 0)
			rc = CLI_EXIT_FAIL;
		else if (r.final)
			*ret_status = r.status;
		free(rb);
		if (rc || r.final)
			return rc;
	}
}

static int s_out(void *arg, const lease_reply_t *r)
{
	(void)arg;
	if (r->data_len && fwrite(r->data, 1, r->data_len, stdout) !=
				   r->data_len)
		return -EIO;
	fflush(stdout);
	return 0;
}

static int s_none(void *arg, const lease_reply_t *r)
{
	(void)arg;
	(void)r;
	return 0;
}

/* ---- common options ---- */

static const char s_key_help[] =
	"  --key FILE      submitter key (default"
	" ${XDG_CONFIG_HOME:-~/.config}/labmesh/key)\n";
static const char s_timeout_help[] =
	"  --timeout S     seconds without an answer from the lab before"
	" giving up\n                  (default 300; exec: also the"
	" command's own timeout)\n";

/* Each command's --help: its usage, what it does, its options. */
static void s_help(const char *cmd)
{
	if (strcmp(cmd, "lease") == 0)
		fputs("usage: labmesh lease LAB/BOARD --for TIME [--wait]"
		      " [--timeout S] [--key FILE]\n"
		      "       labmesh lease renew LAB/BOARD --for TIME"
		      " [--key FILE]\n"
		      "       labmesh lease release LAB/BOARD [--key FILE]\n"
		      "       (and --home DIR)\n"
		      "Hold a board of any lab for a while: the lease is"
		      " signed with your key and\ntravels through the"
		      " network; the lab grants it by its policy.leases (or\n"
		      "says why not) and queues it with its jobs. Only the"
		      " key holding a lease may\nuse the board (labmesh exec,"
		      " put, get, power, console).\n"
		      "  --for TIME      how long: 90s, 30m, 2h, 1d (at most"
		      " the lab's policy.leases.max)\n"
		      "  --wait          wait for the lab's answer (exit 1"
		      " when refused)\n", stdout);
	else if (strcmp(cmd, "exec") == 0)
		fputs("usage: labmesh exec LAB/BOARD [--timeout S] [--key FILE]"
		      " [--home DIR] -- COMMAND...\n"
		      "Run a command on a board you lease: its output, and"
		      " its exit status as this\ncommand's.\n", stdout);
	else if (strcmp(cmd, "put") == 0)
		fputs("usage: labmesh put LAB/BOARD LOCAL REMOTE [--timeout S]"
		      " [--key FILE] [--home DIR]\n"
		      "Copy a file to a board you lease.\n", stdout);
	else if (strcmp(cmd, "get") == 0)
		fputs("usage: labmesh get LAB/BOARD REMOTE LOCAL [--timeout S]"
		      " [--key FILE] [--home DIR]\n"
		      "Copy a file from a board you lease.\n", stdout);
	else if (strcmp(cmd, "power") == 0)
		fputs("usage: labmesh power LAB/BOARD on|off|cycle"
		      " [--timeout S] [--key FILE] [--home DIR]\n"
		      "Switch a board you lease on or off, or cycle it,"
		      " with the lab's power\ncommands (QEMU: quit and start"
		      " again); on and cycle wait for its shell.\n", stdout);
	else
		fputs("usage: labmesh console LAB/BOARD [--timeout S]"
		      " [--key FILE] [--home DIR]\n"
		      "The console of a board you lease, interactive: the"
		      " terminal in raw mode,\nkeys go to the board, what it"
		      " says comes back; ~. at the start of a line\nleaves"
		      " (~~ types one ~).\n", stdout);
	fputs(s_timeout_help, stdout);
	fputs(s_key_help, stdout);
}

static const struct option s_opts[] = {
	{ "key", required_argument, NULL, O_KEY },
	{ "for", required_argument, NULL, O_FOR },
	{ "wait", no_argument, NULL, O_WAIT },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ 0 },
};

typedef struct {
	const char *dur;
	bool wait;
} s_opts_t;

/* Options anywhere before "--"; up to max positionals into pos
 * (*ret_n); *ret_rest: the first argument after "--" (argc: none). 0,
 * 1 (help shown) or the exit code of a usage error. */
static int s_parse(s_ctx_t *x, int argc, char **argv, s_opts_t *o,
		   char **pos, int max, int *ret_n, int *ret_rest)
{
	int c, n = 0;

	x->timeout_s = LEASE_WAIT_MS / 1000;
	*ret_rest = argc;
	for (;;) {
		c = cli_getopt(x->cli, argc, argv, "", s_opts);
		if (c == -1) {
			if (optind > 1 && optind <= argc &&
			    strcmp(argv[optind - 1], "--") == 0) {
				*ret_rest = optind;
				break;
			}
			if (optind >= argc)
				break;
			if (n == max)
				return cli_usage_error(x->cmd, "too many"
						       " arguments");
			pos[n++] = argv[optind++];
			continue;
		}
		if (c == 'h') {
			s_help(x->cmd);
			return 1;
		}
		if (c == O_KEY)
			x->key = optarg;
		else if (c == O_FOR && o)
			o->dur = optarg;
		else if (c == O_WAIT && o)
			o->wait = true;
		else if (c != O_TIMEOUT || (x->timeout_s = atoi(optarg)) <= 0)
			return cli_usage_error(x->cmd, "bad option");
	}
	*ret_n = n;
	return 0;
}

/* "90s", "30m", "2h", "1d" in ms; -EINVAL. */
static int s_duration(const char *s, uint64_t *ret)
{
	char *end = NULL;
	long long v = s ? strtoll(s, &end, 10) : 0;
	uint64_t unit = 1000;

	if (!s || end == s || v <= 0)
		return -EINVAL;
	if (*end == 'm')
		unit = 60000;
	else if (*end == 'h')
		unit = 3600000;
	else if (*end == 'd')
		unit = 86400000;
	else if (*end && *end != 's')
		return -EINVAL;
	if (*end && end[1])
		return -EINVAL;
	*ret = (uint64_t)v * unit;
	return *ret <= LEASE_MAX_MS ? 0 : -ERANGE;
}
/* ---- lease ---- */

/* Wait for lab x->lab's accept or decline of lease id. */
static int s_wait_answer(s_ctx_t *x, const uint8_t id[32])
{
	int64_t deadline = s_now_ms() + (int64_t)x->timeout_s * 1000;

	while (s_now_ms() < deadline) {
		sqlite3 *db = NULL;
		reqview_t v = { 0 };
		int rc = CLI_EXIT_FAIL + 1;

		if (results_open(x->cli->home, false, &db) == 0 &&
		    reqview_collect(db, id, &v) == 0) {
			for (size_t i = 0; i < v.n; i++) {
				if (v.labs[i].answer == REQVIEW_ACCEPTED)
					rc = 0;
				else if (v.labs[i].answer == REQVIEW_DECLINED)
					rc = cli_fail(x->cmd, "lab %s refused"
						      " the lease: %s",
						      x->lab, v.labs[i].decline);
			}
		}
		reqview_free(&v);
		sqlite3_close(db);
		if (rc <= CLI_EXIT_FAIL) {
			if (rc == 0)
				printf("leased %s/%s\n", x->lab, x->board);
			return rc;
		}
		usleep(100 * 1000);
	}
	return cli_fail(x->cmd, "no answer from lab %s in %d s", x->lab,
			x->timeout_s);
}

static int s_lease_send(s_ctx_t *x, enum lease_op op, const char *dur,
			bool wait)
{
	lease_t l = { .op = op };
	uint8_t *b = NULL, id[32];
	size_t n = 0;
	char hex[65];
	int rc;

	if (op != LEASE_RELEASE && s_duration(dur, &l.value) < 0)
		return cli_usage_error(x->cmd, "need --for TIME (90s, 30m, 2h"
				       " or 1d; at most 7d)");
	snprintf(l.lab, sizeof(l.lab), "%s", x->lab);
	snprintf(l.board, sizeof(l.board), "%s", x->board);
	l.seq = s_seq();
	if (lease_sign(&l, &x->kp, &b, &n, id) < 0)
		return cli_fail(x->cmd, "'%s/%s': not a lab and board name",
				x->lab, x->board);
	{
		const char *args[1] = { (const char *)b };

		rc = s_ctl(x, "lease-send", 1, args, &n, NULL);
	}
	free(b);
	if (rc)
		return rc;
	wire_hex(id, 32, hex);
	if (op == LEASE_TAKE)
		printf("lease %.12s sent to lab %s\n", hex, x->lab);
	else
		printf("%s of %s/%s sent\n", lease_op_name(op), x->lab,
		       x->board);
	fflush(stdout);
	return op == LEASE_TAKE && wait ? s_wait_answer(x, id) : 0;
}

int cmd_lease(cli_t *cli, int argc, char **argv)
{
	s_ctx_t x = { .cli = cli, .cmd = "lease" };
	s_opts_t o = { 0 };
	enum lease_op op = LEASE_TAKE;
	char *pos[2];
	int n, rest, rc = s_parse(&x, argc, argv, &o, pos, 2, &n, &rest);

	if (rc)
		return rc == 1 ? CLI_EXIT_OK : rc;
	if (n == 2 && strcmp(pos[0], "renew") == 0)
		op = LEASE_RENEW;
	else if (n == 2 && strcmp(pos[0], "release") == 0)
		op = LEASE_RELEASE;
	else if (n != 1)
		return cli_usage_error("lease", "need LAB/BOARD (or renew or"
				       " release LAB/BOARD)");
	if ((rc = s_target(&x, pos[n - 1])) || (rc = s_load_key(&x)))
		return rc;
	rc = s_lease_send(&x, op, o.dur, o.wait);
	key_wipe(&x.kp);
	return rc;
}

/* ---- exec, put, get, power ---- */

/* The target, the key and the lab's node; 0 or an exit code. */
static int s_ready(s_ctx_t *x, const char *target)
{
	int rc = s_target(x, target);

	if (rc == 0)
		rc = s_load_key(x);
	if (rc == 0 && (rc = s_lab_node(x)))
		key_wipe(&x->kp);
	return rc;
}

int cmd_exec(cli_t *cli, int argc, char **argv)
{
	s_ctx_t x = { .cli = cli, .cmd = "exec" };
	lease_t l = { .op = LEASE_EXEC };
	char *pos[1], *cmd = NULL;
	int n, rest, rc = s_parse(&x, argc, argv, NULL, pos, 1, &n, &rest);
	int64_t status = 0;

	if (rc)
		return rc == 1 ? CLI_EXIT_OK : rc;
	if (n != 1 || rest >= argc)
		return cli_usage_error("exec", "need LAB/BOARD -- COMMAND");
	for (int i = rest; i < argc; i++) {
		char *c = xasprintf("%s%s%s", cmd ? cmd : "", cmd ? " " : "",
				    argv[i]);

		free(cmd);
		cmd = c;
	}
	if (strlen(cmd) > PROTO_MAX_TEXT) {
		free(cmd);
		return cli_usage_error("exec", "the command is over %d bytes",
				       PROTO_MAX_TEXT);
	}
	if ((rc = s_ready(&x, pos[0]))) {
		free(cmd);
		return rc;
	}
	l.arg = cmd;
	l.value = (uint64_t)x.timeout_s;
	rc = s_op(&x, &l, s_out, NULL, &status);
	free(cmd);
	key_wipe(&x.kp);
	if (rc)
		return rc;
	return status < 0 || status > 255 ? CLI_EXIT_FAIL : (int)status;
}

static int s_put_file(s_ctx_t *x, const char *local, const char *remote)
{
	lease_t l = { .op = LEASE_PUT, .arg = remote };
	uint8_t *buf = xmalloc(LEASE_CHUNK);
	uint64_t off = 0;
	int64_t st;
	ssize_t r;
	int fd = open(local, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0) {
		free(buf);
		return cli_fail(x->cmd, "%s: %s", local, strerror(errno));
	}
	/* an empty file still sends one (empty) chunk: it truncates */
	do {
		r = read(fd, buf, LEASE_CHUNK);
		if (r < 0) {
			rc = cli_fail(x->cmd, "%s: %s", local, strerror(errno));
			break;
		}
		if (r == 0 && off)
			break;
		l.op = LEASE_PUT;
		l.value = off;
		l.data = buf;
		l.data_len = (size_t)r;
		rc = s_op(x, &l, s_none, NULL, &st);
		off += (uint64_t)r;
	} while (rc == 0 && r > 0);
	close(fd);
	free(buf);
	if (rc)
		return rc;
	l.op = LEASE_PUT_END;
	l.value = off;
	l.data = NULL;
	l.data_len = 0;
	return s_op(x, &l, s_none, NULL, &st);
}

int cmd_put(cli_t *cli, int argc, char **argv)
{
	s_ctx_t x = { .cli = cli, .cmd = "put" };
	char *pos[3];
	int n, rest, rc = s_parse(&x, argc, argv, NULL, pos, 3, &n, &rest);

	if (rc)
		return rc == 1 ? CLI_EXIT_OK : rc;
	if (n != 3 || strlen(pos[2]) > PROTO_MAX_TEXT)
		return cli_usage_error("put", "need LAB/BOARD LOCAL REMOTE");
	if ((rc = s_ready(&x, pos[0])))
		return rc;
	rc = s_put_file(&x, pos[1], pos[2]);
	key_wipe(&x.kp);
	return rc;
}

typedef struct {
	int fd;
	uint64_t n;
} s_get_t;

static int s_get_chunk(void *arg, const lease_reply_t *r)
{
	s_get_t *g = arg;

	if (r->data_len && write(g->fd, r->data, r->data_len) !=
				   (ssize_t)r->data_len)
		return -EIO;
	g->n += r->data_len;
	return 0;
}

int cmd_get(cli_t *cli, int argc, char **argv)
{
	s_ctx_t x = { .cli = cli, .cmd = "get" };
	lease_t l = { .op = LEASE_GET };
	char *pos[3], *tmp;
	int n, rest, rc = s_parse(&x, argc, argv, NULL, pos, 3, &n, &rest);
	s_get_t g = { 0 };
	int64_t total = 0;

	if (rc)
		return rc == 1 ? CLI_EXIT_OK : rc;
	if (n != 3 || strlen(pos[1]) > PROTO_MAX_TEXT)
		return cli_usage_error("get", "need LAB/BOARD REMOTE LOCAL");
	if ((rc = s_ready(&x, pos[0])))
		return rc;
	tmp = xasprintf("%s.part", pos[2]);
	g.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (g.fd < 0) {
		rc = cli_fail("get", "%s: %s", tmp, strerror(errno));
	} else {
		l.arg = pos[1];
		rc = s_op(&x, &l, s_get_chunk, &g, &total);
		if (close(g.fd) < 0 && rc == 0)
			rc = cli_fail("get", "%s: %s", tmp, strerror(errno));
		if (rc == 0 && (uint64_t)total != g.n)
			rc = cli_fail("get", "%s: got %" PRIu64 " of %" PRId64
				      " bytes", pos[1], g.n, total);
		if (rc == 0 && rename(tmp, pos[2]) < 0)
			rc = cli_fail("get", "%s: %s", pos[2], strerror(errno));
		if (rc)
			unlink(tmp);
	}
	free(tmp);
	key_wipe(&x.kp);
	return rc;
}

int cmd_power(cli_t *cli, int argc, char **argv)
{
	static const char *const ops[] = { "on", "off", "cycle" };
	s_ctx_t x = { .cli = cli, .cmd = "power" };
	lease_t l = { .op = LEASE_POWER, .value = 99 };
	char *pos[2];
	int n, rest, rc = s_parse(&x, argc, argv, NULL, pos, 2, &n, &rest);
	int64_t st;

	if (rc)
		return rc == 1 ? CLI_EXIT_OK : rc;
	for (size_t i = 0; n == 2 && i < 3; i++)
		if (strcmp(pos[1], ops[i]) == 0)
			l.value = i;
	if (n != 2 || l.value == 99)
		return cli_usage_error("power", "need LAB/BOARD on|off|cycle");
	if ((rc = s_ready(&x, pos[0])))
		return rc;
	rc = s_op(&x, &l, s_none, NULL, &st);
	if (rc == 0)
		printf("%s/%s: power %s done\n", x.lab, x.board, pos[1]);
	key_wipe(&x.kp);
	return rc;
}

/* ---- console ---- */

typedef struct {
	bool bol, tilde, quit;
} s_esc_t;

/* Keys typed into out (*ret_n), the escape "~." at the start of a line
 * taken out (it sets e->quit); "~~" types one "~". */
static void s_keys(s_esc_t *e, const uint8_t *in, size_t n, uint8_t *out,
		   size_t *ret_n)
{
	size_t k = 0;

	for (size_t i = 0; i < n && !e->quit; i++) {
		uint8_t c = in[i];

		if (e->tilde) {
			e->tilde = false;
			if (c == '.') {
				e->quit = true;
				break;
			}
			out[k++] = '~';
			if (c == '~')
				continue;
		} else if (e->bol && c == '~') {
			e->tilde = true;
			continue;
		}
		out[k++] = c;
		e->bol = c == '\r' || c == '\n';
	}
	*ret_n = k;
}

static int s_console_loop(s_ctx_t *x)
{
	uint8_t in[1024], keys[2 * sizeof(in)];
	s_esc_t e = { .bol = true };
	lease_t l = { .op = LEASE_CONSOLE };
	int64_t st;
	int rc = 0;

	while (!e.quit && rc == 0) {
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		size_t n = 0;

		if (poll(&pfd, 1, LEASE_CONSOLE_KEYS_MS) > 0) {
			ssize_t r = read(STDIN_FILENO, in, sizeof(in));

			if (r <= 0)
				e.quit = true;
			else
				s_keys(&e, in, (size_t)r, keys, &n);
		}
		l.data = keys;
		l.data_len = n;
		l.value = n ? 0 : LEASE_CONSOLE_IDLE_MS;
		if (n || !e.quit)
			rc = s_op(x, &l, s_out, NULL, &st);
	}
	return rc;
}

int cmd_console(cli_t *cli, int argc, char **argv)
{
	s_ctx_t x = { .cli = cli, .cmd = "console" };
	struct termios saved, raw;
	char *pos[1];
	int n, rest, rc = s_parse(&x, argc, argv, NULL, pos, 1, &n, &rest);
	bool tty = isatty(STDIN_FILENO);

	if (rc)
		return rc == 1 ? CLI_EXIT_OK : rc;
	if (n != 1)
		return cli_usage_error("console", "need LAB/BOARD");
	if ((rc = s_ready(&x, pos[0])))
		return rc;
	/* raw before the banner: nothing typed after it is cooked */
	if (tty && tcgetattr(STDIN_FILENO, &saved) == 0) {
		raw = saved;
		cfmakeraw(&raw);
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	} else {
		tty = false;
	}
	fprintf(stderr, "console of %s/%s: type ~. at the start of a line"
		" to leave\r\n", x.lab, x.board);
	rc = s_console_loop(&x);
	if (tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	fprintf(stderr, "\r\nleft the console of %s/%s\n", x.lab, x.board);
	key_wipe(&x.kp);
	return rc;
}
