/*
 * node setup: a node made from its options and lab config, step by step
 * (config, keys, store, descriptor, trust, the ROUTER and the control
 * socket), the jobs side's narrow view of the node (jobs_ctx_t), and its
 * destruction. node.c runs what this makes.
 */
#include "node/net/node_int.h"

#include "node/net/ctl.h"
#include "node/jobs/jobs.h"
#include "proto/log.h"
#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <malloc.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* ---- setup ------------------------------------------------------------ */

static int s_fail(char **ret_err, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int s_fail(char **ret_err, int rc, const char *fmt, ...)
{
	va_list ap;
	char line[512];

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	*ret_err = xstrdup(line);
	return rc;
}

static int s_load_config(node_t *node, const char *path, char **ret_err)
{
	char *err = NULL;
	int rc;

	if (!path) {
		node->cfg = lab_config_default();
		return node->cfg ? 0 : s_fail(ret_err, -ENOMEM, "no default lab");
	}
	rc = lab_config_load(path, &node->cfg, &err);
	if (rc < 0) {
		*ret_err = err ? err : xasprintf("%s: %s", path, strerror(-rc));
		return rc;
	}
	/* a missing QEMU or serial device is named now, not at the first job */
	return lab_config_check_host(node->cfg, ret_err);
}

static int s_setup_trust(node_t *node, char **ret_err)
{
	if (node->cfg->trust_open)
		return 0;
	node->trust = zhashx_new();
	for (size_t i = 0; i < node->cfg->n_trust_keys; i++) {
		uint8_t pk[WIRE_KEY_BYTES];
		char z85[WIRE_Z85_LEN + 1];

		if (wire_unhex(node->cfg->trust_keys[i], pk, sizeof(pk)) < 0 ||
		    wire_curve_public(pk, z85) < 0)
			return s_fail(ret_err, -EINVAL, "%s: trust: bad node id"
				      " '%.64s'", node->cfg->path,
				      node->cfg->trust_keys[i]);
		zhashx_insert(node->trust, z85, (void *)"");
		node_ids_add(node, pk);
	}
	return 0;
}

/* Bind, waiting a little while the port is busy: after a crash, a child
 * the old node had forked and not yet exec'd may still hold the
 * listening socket for a moment (it dies by its parent-death signal). */
static int s_bind_retry(zsock_t *sock, const char *ep)
{
	int64_t until = zclock_mono() + NODE_BIND_RETRY_MS;
	bool said = false;
	int rc;

	while ((rc = zsock_bind(sock, "%s", ep)) < 0 && errno == EADDRINUSE &&
	       zclock_mono() < until) {
		if (!said)
			log_info("%s is busy; trying again for %d s", ep,
				 NODE_BIND_RETRY_MS / 1000);
		said = true;
		zclock_sleep(100);
	}
	return rc;
}

static int s_setup_router(node_t *node, char **ret_err)
{
	const char *ep = node->cfg->listen;

	if (!ep || strncmp(ep, "tcp://", 6) != 0 || strlen(ep) > 255)
		return s_fail(ret_err, -EINVAL, "node.listen: need tcp://HOST:PORT");
	/* our own ZAP handler: logs and refuses keys not trusted or banned */
	node->zap = zsock_new(ZMQ_REP);
	if (!node->zap || zsock_bind(node->zap, "inproc://zeromq.zap.01") < 0)
		return s_fail(ret_err, -EADDRINUSE, "cannot bind the ZAP handler");
	node->router = zsock_new(ZMQ_ROUTER);
	if (!node->router)
		return s_fail(ret_err, -ENOMEM, "cannot make a ROUTER socket");
	zsock_set_zap_domain(node->router, "labmesh");
	zsock_set_curve_server(node->router, 1);
	zsock_set_curve_secretkey(node->router, node->key.curve_sk);
	zsock_set_curve_publickey(node->router, node->key.curve_pk);
	zsock_set_maxmsgsize(node->router, WIRE_MAX_MSG);
	zsock_set_rcvhwm(node->router, NODE_SNDHWM);
	zsock_set_linger(node->router, 0);
	if (s_bind_retry(node->router, ep) < 0)
		return s_fail(ret_err, -errno ? -errno : -EADDRINUSE,
			      "cannot listen on %s: %s", ep, zmq_strerror(errno));
	return 0;
}

static int s_setup_ctl(node_t *node, char **ret_err)
{
	char *ep = ctl_endpoint(node->home);
	char *path = xasprintf("%s/%s", node->home, CTL_NAME);
	mode_t old;
	int rc = 0;

	if (!ep)
		rc = s_fail(ret_err, -ENAMETOOLONG, "home path too long for"
			    " the control socket");
	else if (ctl_running(node->home))
		rc = s_fail(ret_err, -EEXIST, "a node already runs in %s",
			    node->home);
	if (rc == 0) {
		unlink(path); /* stale, from a node that was killed */
		old = umask(0177); /* the socket is made 0600 */
		node->ctl = zsock_new(ZMQ_REP);
		if (!node->ctl || zsock_bind(node->ctl, "%s", ep) < 0)
			rc = s_fail(ret_err, -EIO, "cannot bind %s", ep);
		umask(old);
	}
	if (node->ctl)
		zsock_set_maxmsgsize(node->ctl, CTL_MAX_ARG * 2);
	free(ep);
	free(path);
	return rc;
}

static int s_setup(node_t *node, const node_opts_t *opts, char **ret_err)
{
	char *path;
	int rc;

	rc = s_load_config(node, opts->config, ret_err);
	if (rc < 0)
		return rc;
	if (opts->listen) {
		if (!proto_endpoint_ok(opts->listen))
			return s_fail(ret_err, -EINVAL, "--listen: need"
				      " tcp://HOST:PORT");
		free(node->cfg->listen);
		node->cfg->listen = xstrdup(opts->listen);
		node->listen_fixed = true;
	}
	node->board_state = xcalloc(node->cfg->n_boards + 1, sizeof(int));
	node->board_queue = xcalloc(node->cfg->n_boards + 1, sizeof(uint32_t));
	node->board_notes = xcalloc(NODE_NOTES * node->cfg->n_boards + 1,
				    sizeof(char *));
	node_apply_limits(node);
	path = xasprintf("%s/node.key", node->home);
	rc = wire_key_load_or_make(path, &node->key, ret_err);
	free(path);
	if (rc < 0)
		return rc;
	wire_hex(node->key.pk, WIRE_KEY_BYTES, node->hex);
	log_set_tag(node->cfg->name);
	path = xasprintf("%s/store.db", node->home);
	rc = store_open(path, &node->store);
	free(path);
	if (rc < 0)
		return s_fail(ret_err, rc, "store.db: %s", strerror(-rc));
	repl_vec_sync_all(node);
	rc = wire_desc_make(&node->key, node->cfg->name, node->cfg->listen,
			    &node->desc, &node->desc_len);
	if (rc < 0)
		return s_fail(ret_err, rc, "node descriptor: %s",
			      wire_strerror(rc));
	rc = s_setup_trust(node, ret_err);
	if (rc == 0)
		rc = s_setup_router(node, ret_err);
	if (rc == 0)
		rc = s_setup_ctl(node, ret_err);
	return rc;
}

/* ---- the jobs side's view of the node (jobs_ctx_t) ---------------- */

static int s_jobs_append(void *arg, const struct record *tmpl)
{
	return node_append_record(arg, tmpl);
}

static int s_jobs_send(void *arg, const char *curve, uint8_t *bytes,
		       size_t len)
{
	node_t *node = arg;
	peer_t *p = zhashx_lookup(node->by_curve, curve);

	int rc;

	if (!p) {
		free(bytes);
		return -ENOTCONN;
	}
	rc = node_send(node, p, bytes, len);
	if (rc == 0) {
		/* blob data, mostly: paced by its pongs (node.c) */
		p->ask_sent += len;
		if (p->ask_sent - p->ask_acked >= NODE_BLOB_WINDOW_BYTES / 2 &&
		    !p->ping_open && p->state == PEER_ACTIVE)
			peer_ping(node, p);
	}
	return rc;
}

static size_t s_jobs_n_peers(void *arg)
{
	return ((node_t *)arg)->n_peers;
}

static bool s_jobs_peer(void *arg, size_t i, jobs_peer_t *ret)
{
	node_t *node = arg;
	peer_t *p = i < node->n_peers ? node->peers[i] : NULL;

	if (!p)
		return false;
	ret->curve = p->curve;
	ret->hex = p->hex;
	ret->lease = (p->features & MSG_FEATURE_LEASE) != 0;
	ret->blob_relay = (p->features & MSG_FEATURE_BLOB_RELAY) != 0;
	return p->state == PEER_ACTIVE;
}

static int s_jobs_set_board(void *arg, const char *board, int state,
			    uint32_t queue)
{
	return node_set_board(arg, board, state, queue);
}

static int s_jobs_board_state(void *arg, size_t i)
{
	node_t *node = arg;

	return i < node->cfg->n_boards ? node->board_state[i] : BOARD_OFFLINE;
}

static void s_jobs_board_notes(void *arg, size_t i, const char *maint,
			       const char *busy)
{
	node_t *node = arg;

	if (i >= node->cfg->n_boards)
		return;
	free(node->board_notes[NODE_NOTES * i]);
	free(node->board_notes[NODE_NOTES * i + 1]);
	node->board_notes[NODE_NOTES * i] = maint ? xstrdup(maint) : NULL;
	node->board_notes[NODE_NOTES * i + 1] = busy ? xstrdup(busy) : NULL;
}

static void s_jobs_board_lease(void *arg, size_t i, const char *lease)
{
	node_t *node = arg;

	if (i >= node->cfg->n_boards)
		return;
	free(node->board_notes[NODE_NOTES * i + 2]);
	node->board_notes[NODE_NOTES * i + 2] = lease ? xstrdup(lease) : NULL;
}

static void s_jobs_board_health(void *arg, size_t i, const char *why)
{
	node_t *node = arg;

	if (i >= node->cfg->n_boards)
		return;
	free(node->board_notes[NODE_NOTES * i + 3]);
	node->board_notes[NODE_NOTES * i + 3] = why ? xstrdup(why) : NULL;
}

static void s_jobs_garbage(void *arg, const char *curve, const char *what)
{
	node_garbage(arg, curve, what);
}

static bool s_jobs_log_budget(void *arg)
{
	return node_log_budget(arg);
}

static int s_jobs_submit(void *arg, const uint8_t *bytes, size_t len)
{
	return node_submit_request(arg, bytes, len);
}

static int s_setup_jobs(node_t *node, char **ret_err)
{
	jobs_ctx_t ctx = {
		.home = node->home,
		.cfg = node->cfg,
		.node_id = node->key.pk,
		.store = node->store,
		.arg = node,
		.append_record = s_jobs_append,
		.send = s_jobs_send,
		.n_peers = s_jobs_n_peers,
		.peer = s_jobs_peer,
		.set_board = s_jobs_set_board,
		.board_state = s_jobs_board_state,
		.set_board_notes = s_jobs_board_notes,
		.set_board_lease = s_jobs_board_lease,
		.set_board_health = s_jobs_board_health,
		.key = &node->key.kp,
		.garbage = s_jobs_garbage,
		.log_budget = s_jobs_log_budget,
		.submit_request = s_jobs_submit,
	};

	return jobs_new(&ctx, &node->jobs, ret_err);
}

int node_new(const node_opts_t *opts, node_t **ret_node, char **ret_err)
{
	node_t *node = xzalloc(sizeof(*node));
	int rc;

	/* a node should stay small: SQLite's page caches (store, jobs,
	 * results index) share one budget and take pages as they need them
	 * (not 20 each up front, ~87 KB per connection), the few threads
	 * (ours, libzmq's) share malloc arenas rather than each keep its
	 * own, and big buffers are mapped apart and unmapped when freed
	 * (a fixed threshold: glibc would raise it after the first) */
	(void)sqlite3_config(SQLITE_CONFIG_PAGECACHE, NULL, 0, 0);
	sqlite3_soft_heap_limit64(NODE_SQLITE_HEAP);
	mallopt(M_ARENA_MAX, NODE_MALLOC_ARENAS);
	mallopt(M_MMAP_THRESHOLD, NODE_MALLOC_MMAP);
	zsys_init();
	node->home = xstrdup(opts->home);
	node->debug_timer = -1;
	node_tables_new(node);
	rc = s_setup(node, opts, ret_err);
	if (rc == 0)
		rc = s_setup_jobs(node, ret_err);
	if (rc < 0) {
		node_destroy(&node);
		return rc;
	}
	*ret_node = node;
	return 0;
}

void node_destroy(node_t **p)
{
	node_t *node = *p;

	if (!node)
		return;
	jobs_destroy(&node->jobs);
	zactor_destroy(&node->beacon);
	zloop_destroy(&node->loop);
	zsock_destroy(&node->router);
	zsock_destroy(&node->zap);
	if (node->ctl) {
		char *path = xasprintf("%s/%s", node->home, CTL_NAME);

		zsock_destroy(&node->ctl);
		unlink(path);
		free(path);
	}
	node_tables_destroy(node);
	zhashx_destroy(&node->trust);
	node_ids_destroy(node);
	store_destroy(&node->store);
	/* the notes first: how many there are is the config's */
	for (size_t i = 0; node->board_notes && node->cfg &&
			   i < NODE_NOTES * node->cfg->n_boards; i++)
		free(node->board_notes[i]);
	free(node->board_notes);
	lab_config_destroy(&node->cfg);
	wire_key_wipe(&node->key);
	free(node->desc);
	free(node->board_state);
	free(node->board_queue);
	free(node->home);
	free(node);
	*p = NULL;
}
