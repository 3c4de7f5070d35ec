/*
 * cmd_node: `labmesh node`, the daemon in the foreground; and the small
 * commands that ask a running node over the control socket: `peers`,
 * `boards` (which reads the store itself when no node runs) and `debug`.
 */
#include "node/cli/cli.h"
#include "node/net/ctl.h"
#include "node/web/http.h"
#include "node/net/node.h"
#include "node/net/node_int.h"

#include "proto/log.h"
#include "proto/mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void s_node_usage(FILE *f)
{
	fprintf(f, "usage: labmesh node [--config FILE] [--home DIR]"
		   " [--listen EP] [--log-level L]\n"
		   "                    [--http ADDR:PORT]\n"
		   "Run this lab's node in the foreground; logs go to stderr.\n"
		   "  --config FILE    the lab file (default: a lab with one"
		   " local board)\n"
		   "  --listen EP      tcp://HOST:PORT instead of the lab's"
		   " node.listen\n"
		   "  --log-level L    error, warn, info (default) or debug\n"
		   "  --http ADDR:PORT serve the dashboard there (loopback"
		   " only, unless it is\n"
		   "                   the lab file's node.http)\n"
		   "Stops cleanly on SIGINT or SIGTERM.\n");
}

/* HOME/dashboard.url: where this node's dashboard is, for the log_url
 * of `labmesh export --kcidb` (addr NULL: removed). */
static void s_dashboard_url(const char *home, const char *addr)
{
	char *path = xasprintf("%s/dashboard.url", home);
	FILE *f;

	if (!addr) {
		unlink(path);
	} else if ((f = fopen(path, "w"))) {
		fprintf(f, "http://%s/\n", addr);
		if (fclose(f) != 0)
			unlink(path);
	}
	free(path);
}

/*
 * The dashboard, when asked for (--http, else the lab file's node.http).
 * Only the lab file may open it beyond loopback: an address given on the
 * command line must be a loopback one unless it is the configured one.
 */
static int s_http_start(cli_t *cli, node_t *node, const char *addr,
			http_t **ret)
{
	const char *cfg = node->cfg ? node->cfg->http : NULL;
	char *err = NULL;
	int rc;

	if (!addr)
		addr = cfg;
	if (!addr)
		return CLI_EXIT_OK;
	rc = http_new(cli->home, addr, cfg && !strcmp(cfg, addr), ret, &err);
	if (rc < 0) {
		rc = cli_fail("node", "%s", err ? err : strerror(-rc));
		free(err);
		return rc;
	}
	s_dashboard_url(cli->home, addr);
	return CLI_EXIT_OK;
}

int cmd_node(cli_t *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "listen", required_argument, NULL, 'L' },
		{ "http", required_argument, NULL, 'H' },
		{ 0 },
	};
	node_opts_t o = { 0 };
	enum log_level lvl;
	node_t *node = NULL;
	http_t *http = NULL;
	const char *http_addr = NULL;
	char *err = NULL;
	int c, rc;

	while ((c = cli_getopt(cli, argc, argv, "c:l:L:H:", opts)) != -1) {
		if (c == 'h') {
			s_node_usage(stdout);
			return CLI_EXIT_OK;
		} else if (c == 'c') {
			o.config = optarg;
		} else if (c == 'L') {
			o.listen = optarg;
		} else if (c == 'H') {
			http_addr = optarg;
		} else if (c == 'l') {
			if (log_parse_level(optarg, &lvl) < 0)
				return cli_usage_error("node", "bad log level"
						       " '%s'", optarg);
			log_set_level(lvl);
		} else {
			return cli_usage_error("node", "bad option");
		}
	}
	if (optind < argc)
		return cli_usage_error("node", "unexpected argument '%s'",
				       argv[optind]);
	rc = cli_make_home(cli);
	if (rc < 0)
		return cli_fail("node", "cannot make %s: %s", cli->home,
				strerror(-rc));
	o.home = cli->home;
	rc = node_new(&o, &node, &err);
	if (rc < 0) {
		rc = cli_fail("node", "%s", err ? err : strerror(-rc));
		free(err);
		return rc;
	}
	rc = s_http_start(cli, node, http_addr, &http);
	if (rc != CLI_EXIT_OK) {
		node_destroy(&node);
		return rc;
	}
	rc = node_run(node);
	if (http)
		s_dashboard_url(cli->home, NULL);
	http_destroy(&http);
	node_destroy(&node);
	return rc < 0 ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

static int s_no_args(cli_t *cli, int argc, char **argv, const char *name,
		     const char *help)
{
	int c;

	while ((c = cli_getopt(cli, argc, argv, "", NULL)) != -1) {
		if (c == 'h') {
			fputs(help, stdout);
			return CLI_EXIT_OK;
		}
		return cli_usage_error(name, "bad option");
	}
	if (optind < argc)
		return cli_usage_error(name, "unexpected argument '%s'",
				       argv[optind]);
	return -1;
}

int cmd_peers(cli_t *cli, int argc, char **argv)
{
	int rc = s_no_args(cli, argc, argv, "peers",
			   "usage: labmesh peers [--home DIR] [--json]\n"
			   "The peers of the running node: id, lab, endpoint,"
			   " state, last seen,\nround-trip time, records"
			   " received, equivocation flag.\n");

	if (rc >= 0)
		return rc;
	return cli_ctl_command("peers", cli->home, "peers", cli->json, 0, NULL);
}

int cmd_reload(cli_t *cli, int argc, char **argv)
{
	int rc = s_no_args(cli, argc, argv, "reload",
			   "usage: labmesh reload [--home DIR]\n"
			   "The running node reads its lab file again, as on"
			   " SIGHUP: boards, policy,\nseeds and trust change"
			   " without a restart; peers stay connected and\n"
			   "running jobs and leases go on. A file with an"
			   " error changes nothing and\nthe error is"
			   " printed.\n");

	if (rc >= 0)
		return rc;
	return cli_ctl_command("reload", cli->home, "reload", false, 0, NULL);
}

static int s_boards_offline(cli_t *cli)
{
	char *path = cli_path(cli, "store.db"), *text = NULL;
	store_t *store = NULL;
	int rc;

	if (access(path, R_OK) != 0) {
		free(path);
		fputs(cli->json ? "[]\n" : "", stdout);
		if (!cli->json)
			fprintf(stderr, "labmesh boards: no node is running in"
				" %s and it has no store yet: start one with"
				" 'labmesh node --home %s'\n", cli->home,
				cli->home);
		return CLI_EXIT_OK;
	}
	if (!cli->json)
		fprintf(stderr, "labmesh boards: no node is running in %s:"
			" the boards its store last heard of\n", cli->home);
	rc = store_open(path, &store);
	free(path);
	if (rc == 0)
		rc = render_boards(store, cli->json, &text);
	store_destroy(&store);
	if (rc < 0)
		return cli_fail("boards", "cannot read the store: %s",
				strerror(-rc));
	fputs(text, stdout);
	free(text);
	return CLI_EXIT_OK;
}

int cmd_boards(cli_t *cli, int argc, char **argv)
{
	int rc = s_no_args(cli, argc, argv, "boards",
			   "usage: labmesh boards [--home DIR] [--json]\n"
			   "Every board in the network, from the latest advert"
			   " of each lab:\nlab, board, arch, tags, state, queue,"
			   " and a note: a maintenance's reason and\nend, or the"
			   " request holding a busy board, its submitter and"
			   " since when.\nReads the store when no node runs.\n");

	if (rc >= 0)
		return rc;
	if (!ctl_running(cli->home))
		return s_boards_offline(cli);
	return cli_ctl_command("boards", cli->home, "boards", cli->json, 0,
			       NULL);
}

static void s_debug_usage(FILE *f)
{
	fprintf(f, "usage: labmesh debug SUBCOMMAND [--home DIR]\n"
		   "Testing aids that talk to the running node:\n"
		   "  append-records N   append N synthetic event records to"
		   " the node's own feed\n"
		   "  feeds              every feed held: author, seq,"
		   " flagged (JSON)\n"
		   "  requests           unexpired requests held (JSON)\n"
		   "  status             the node's id, counts and peers"
		   " (JSON)\n"
		   "  submit-raw FILE    hand a signed request (raw bytes) to"
		   " the node\n"
		   "  set-board B S [Q]  set board B's state (idle, busy,"
		   " offline, maintenance)\n"
		   "                     and queue length; republishes the"
		   " advert\n"
		   "  stop               stop the node\n"
		   "  check-store        verify every stored record (signature,"
		   " hash chain,\n"
		   "                     contiguous seq) and SQLite integrity;"
		   " the node must be stopped\n");
}

typedef struct {
	uint8_t prev[WIRE_ID_BYTES];
	uint64_t expect;
	uint64_t records, bad_sig, bad_chain, bad_seq;
	const uint8_t *author;
} s_check_t;

static int s_check_one(void *arg, uint64_t seq, const uint8_t *b, size_t len)
{
	s_check_t *c = arg;
	wire_record_t r;

	c->records++;
	if (wire_record_verify(b, len, &r) < 0) {
		c->bad_sig++;
	} else {
		if (memcmp(r.author, c->author, WIRE_KEY_BYTES) != 0 ||
		    r.seq != seq)
			c->bad_sig++;
		if (memcmp(r.prev_id, c->prev, WIRE_ID_BYTES) != 0)
			c->bad_chain++;
		memcpy(c->prev, r.id, WIRE_ID_BYTES);
	}
	if (seq != c->expect)
		c->bad_seq++;
	c->expect = seq + 1;
	return 0;
}

static int s_check_store(cli_t *cli)
{
	char *path = cli_path(cli, "store.db");
	store_t *s = NULL;
	s_check_t c = { 0 };
	int64_t rows;
	bool integrity;
	int rc;

	if (ctl_running(cli->home)) {
		free(path);
		return cli_fail("debug", "stop the node first");
	}
	rc = access(path, R_OK) == 0 ? store_open(path, &s) : -ENOENT;
	free(path);
	if (rc < 0)
		return cli_fail("debug", "cannot open the store: %s",
				strerror(-rc));
	for (size_t i = 0; i < store_feed_count(s); i++) {
		const store_feed_t *f = store_feed_at(s, i);
		uint64_t before;

		memset(c.prev, 0, sizeof(c.prev));
		c.expect = 1;
		c.author = f->author;
		do {
			before = c.records;
			rc = store_records(s, f->author, c.expect, 4096,
					   (size_t)1 << 30, s_check_one, &c);
		} while (rc > 0 && c.records > before);
		if (c.expect != f->seq + 1)
			c.bad_seq++;
	}
	rows = store_record_count(s);
	integrity = store_check(s) == 0;
	printf("{\"records\": %llu, \"rows\": %lld, \"feeds\": %zu,"
	       " \"bad_signature\": %llu, \"bad_chain\": %llu, \"bad_seq\":"
	       " %llu, \"integrity\": %s}\n", (unsigned long long)c.records,
	       (long long)rows, store_feed_count(s),
	       (unsigned long long)c.bad_sig, (unsigned long long)c.bad_chain,
	       (unsigned long long)c.bad_seq, integrity ? "true" : "false");
	store_destroy(&s);
	return c.bad_sig || c.bad_chain || c.bad_seq || !integrity ||
			       (int64_t)c.records != rows ?
		       CLI_EXIT_FAIL :
		       CLI_EXIT_OK;
}

static int s_debug_submit(cli_t *cli, const char *file)
{
	const char *args[1];
	size_t lens[1];
	char *body = NULL;
	bool ok = false;
	uint8_t buf[CTL_MAX_ARG];
	FILE *f = fopen(file, "rb");
	size_t n;
	int rc;

	if (!f)
		return cli_fail("debug", "%s: %s", file, strerror(errno));
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	args[0] = (const char *)buf;
	lens[0] = n;
	rc = ctl_call(cli->home, "submit-raw", false, 1, args, lens,
		      CTL_TIMEOUT_MS, &ok, &body);
	if (rc < 0)
		return cli_fail("debug", "no node answers in %s", cli->home);
	if (!ok) {
		rc = cli_fail("debug", "%s", body);
		free(body);
		return rc;
	}
	fputs(body, stdout);
	free(body);
	return CLI_EXIT_OK;
}

int cmd_debug(cli_t *cli, int argc, char **argv)
{
	const char *sub;
	int c;

	/* help wherever it is asked for ("debug status --help" too): the
	 * subcommands take no options of their own, so print it before
	 * anything reaches a node */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			s_debug_usage(stdout);
			return CLI_EXIT_OK;
		}
	}
	while ((c = cli_getopt(cli, argc, argv, "", NULL)) != -1) {
		if (c == 'h') {
			s_debug_usage(stdout);
			return CLI_EXIT_OK;
		}
		return cli_usage_error("debug", "bad option");
	}
	if (optind >= argc)
		return cli_usage_error("debug", "need a subcommand");
	sub = argv[optind];
	if (strcmp(sub, "append-records") == 0 && optind + 1 < argc) {
		const char *args[1] = { argv[optind + 1] };

		return cli_ctl_command("debug", cli->home, sub, true, 1, args);
	}
	if (strcmp(sub, "set-board") == 0 && optind + 2 < argc) {
		const char *args[3] = { argv[optind + 1], argv[optind + 2],
					optind + 3 < argc ? argv[optind + 3] :
							    "0" };

		return cli_ctl_command("debug", cli->home, sub, true, 3, args);
	}
	if (strcmp(sub, "check-store") == 0)
		return s_check_store(cli);
	if (strcmp(sub, "submit-raw") == 0 && optind + 1 < argc)
		return s_debug_submit(cli, argv[optind + 1]);
	if (strcmp(sub, "feeds") == 0 || strcmp(sub, "requests") == 0 || strcmp(sub, "status") == 0 ||
	    strcmp(sub, "stop") == 0)
		return cli_ctl_command("debug", cli->home, sub, true, 0, NULL);
	return cli_usage_error("debug", "unknown subcommand '%s'", sub);
}
