/*
 * node: setup, the loop and its sockets, the ZAP handler, dispatch of
 * what peers send, shutdown. This node's own feed (adverts,
 * node_append_record) is node_feed.c's.
 *
 * Layout: helpers; garbage, bans, strangers; ZAP; ROUTER dispatch;
 * control socket and timers; setup (keys, store, sockets); run and
 * destroy.
 */
#include "node/net/node_int.h"

#include "node/net/ctl.h"
#include "node/jobs/jobs.h"
#include "node/results/results.h"
#include "proto/log.h"
#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int64_t node_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t node_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int node_send(node_t *node, peer_t *p, uint8_t *bytes, size_t len)
{
	int rc = 0;

	if (!bytes)
		return -EINVAL;
	if (!p->dealer)
		rc = -ENOTCONN;
	else if (zmq_send(zsock_resolve(p->dealer), bytes, len,
			  ZMQ_DONTWAIT) < 0)
		rc = -errno;
	if (rc == 0) {
		node->msgs_tx++;
		node->bytes_tx += len;
	}
	free(bytes);
	if (rc < 0)
		log_debug("send to %.12s: %s", p->hex, strerror(-rc));
	return rc;
}

/* ---- garbage, bans, strangers --------------------------------------- */

stranger_t *node_stranger(node_t *node, const char *curve)
{
	stranger_t *s = zhashx_lookup(node->strangers, curve);

	if (s)
		return s;
	if (zhashx_size(node->strangers) >= NODE_MAX_STRANGERS) {
		/* forget everyone not banned rather than grow */
		zlistx_t *keys = zhashx_keys(node->strangers);

		for (char *k = zlistx_first(keys); k; k = zlistx_next(keys)) {
			stranger_t *o = zhashx_lookup(node->strangers, k);

			if (o->banned_until_ms <= node_now())
				zhashx_delete(node->strangers, k);
		}
		zlistx_destroy(&keys);
		if (zhashx_size(node->strangers) >= NODE_MAX_STRANGERS)
			return NULL;
	}
	s = xzalloc(sizeof(*s));
	snprintf(s->curve, sizeof(s->curve), "%s", curve);
	zhashx_insert(node->strangers, curve, s);
	return s;
}

bool node_banned(node_t *node, const char *curve)
{
	stranger_t *s = zhashx_lookup(node->strangers, curve);

	return s && s->banned_until_ms > node_now();
}

/*
 * Lines about outside traffic (bad messages, declined requests), node-wide:
 * the per-key limits alone let an attacker that takes a fresh key every few
 * messages write a line per key. True when this one may be logged; the
 * rest are counted and said in one line when the window rolls over.
 */
bool node_log_budget(node_t *node)
{
	int64_t now = node_now();

	if (now - node->log_window_ms >= NODE_LOG_EVERY_MS) {
		if (node->log_suppressed)
			log_warn("%" PRIu64 " more lines about outside traffic"
				 " not logged in %d s", node->log_suppressed,
				 NODE_LOG_EVERY_MS / 1000);
		node->log_window_ms = now;
		node->log_count = 0;
		node->log_suppressed = 0;
	}
	if (node->log_count < NODE_LOG_BURST) {
		node->log_count++;
		return true;
	}
	node->log_suppressed++;
	return false;
}

void node_garbage(node_t *node, const char *curve, const char *what)
{
	stranger_t *s = node_stranger(node, curve);
	int64_t now = node_now();

	node->garbage_total++;
	if (!s)
		return;
	s->garbage++;
	if (now - s->last_log_ms >= NODE_LOG_EVERY_MS && node_log_budget(node)) {
		log_warn("bad message from %.12s: %s (%u so far, %u not logged)",
			 curve, what, s->garbage, s->suppressed);
		s->last_log_ms = now;
		s->suppressed = 0;
	} else {
		s->suppressed++;
	}
	if (s->garbage >= NODE_GARBAGE_BAN) {
		peer_t *p = zhashx_lookup(node->by_curve, curve);

		s->banned_until_ms = now + NODE_BAN_MS;
		node->bans_total++;
		s->garbage = 0;
		if (node_log_budget(node))
			log_warn("peer %.12s banned for %d s after repeated"
				 " bad messages", curve, NODE_BAN_MS / 1000);
		if (p)
			peer_down(node, p, "banned");
	}
}

/* ---- ZAP: who may connect ------------------------------------------- */

static void s_zap_reply(zsock_t *zap, zframe_t *reqid, const char *status,
			const char *text, const char *user)
{
	zmsg_t *r = zmsg_new();

	zmsg_addstr(r, "1.0");
	zmsg_append(r, &reqid);
	zmsg_addstr(r, status);
	zmsg_addstr(r, text);
	zmsg_addstr(r, user);
	zmsg_addmem(r, NULL, 0);
	zmsg_send(&r, zap);
}

static const char *s_zap_decide(node_t *node, const char *mech,
				zframe_t *cred, char *z85)
{
	if (strcmp(mech, "CURVE") != 0 || !cred || zframe_size(cred) != 32)
		return "CURVE only";
	zmq_z85_encode(z85, zframe_data(cred), 32);
	if (node_banned(node, z85))
		return "banned";
	if (node->trust && !zhashx_lookup(node->trust, z85))
		return "not on the trust list";
	return NULL;
}

static int s_handle_zap(zloop_t *loop, zsock_t *zap, void *arg)
{
	node_t *node = arg;
	zmsg_t *m = zmsg_recv(zap);
	char *ver, *domain, *addr, *ident, *mech, z85[WIRE_Z85_LEN + 1] = "";
	zframe_t *reqid, *cred;
	const char *why;

	if (!m)
		return 0;
	ver = zmsg_popstr(m);
	reqid = zmsg_pop(m);
	domain = zmsg_popstr(m);
	addr = zmsg_popstr(m);
	ident = zmsg_popstr(m);
	mech = zmsg_popstr(m);
	cred = zmsg_pop(m);
	why = s_zap_decide(node, mech ? mech : "", cred, z85);
	if (why) {
		stranger_t *s = node_stranger(node, z85);

		node->refused_total++;
		int64_t now = node_now();

		if ((!s || now - s->last_log_ms >= NODE_LOG_EVERY_MS) &&
		    node_log_budget(node)) {
			log_warn("refused connection from %s (key %s): %s",
				 addr ? addr : "?", *z85 ? z85 : "-", why);
			if (s)
				s->last_log_ms = now;
		}
		s_zap_reply(zap, reqid, "400", why, "");
	} else {
		s_zap_reply(zap, reqid, "200", "OK", z85);
	}
	zframe_destroy(&cred);
	free(ver);
	free(domain);
	free(addr);
	free(ident);
	free(mech);
	zmsg_destroy(&m);
	return 0;
}

/* ---- ROUTER: everything peers send us --------------------------------- */

static void s_dispatch(node_t *node, peer_t *p, const wire_msg_t *m)
{
	switch (m->type) {
	case WIRE_PEERS:
		peer_on_peers(node, p, m);
		break;
	case WIRE_PING:
		peer_on_ping(node, p, m);
		break;
	case WIRE_VECTOR:
		repl_on_vector(node, p, m);
		break;
	case WIRE_WANT:
		repl_on_want(node, p, m);
		break;
	case WIRE_RECORDS:
		repl_on_records(node, p, m);
		break;
	case WIRE_CREDIT:
		repl_on_credit(node, p, m);
		break;
	case WIRE_REQUEST:
		repl_on_request(node, p, m);
		break;
	case WIRE_REQUEST_IDS:
		repl_on_request_ids(node, p, m);
		break;
	default: {
		jobs_peer_t jp = { .curve = p->curve, .hex = p->hex };

		jobs_on_message(node->jobs, &jp, m->msg); /* blobs, cancels */
		break;
	}
	}
}

static void s_on_message(node_t *node, const char *curve, const uint8_t *b,
			 size_t len)
{
	peer_t *p = zhashx_lookup(node->by_curve, curve);
	bool authed = p && p->state == PEER_ACTIVE;
	wire_msg_t m;
	int rc;

	if (!authed && len > WIRE_MAX_HELLO) {
		node_garbage(node, curve, "oversized message before hello");
		return;
	}
	rc = wire_msg_decode(b, len, &m);
	if (rc < 0) {
		node_garbage(node, curve, wire_strerror(rc));
		return;
	}
	if (m.type == WIRE_HELLO)
		peer_on_hello(node, curve, &m);
	else if (authed)
		s_dispatch(node, p, &m);
	else if (p)
		peer_rehello(node, p); /* not garbage: out of step with us */
	if (p && m.type != WIRE_HELLO)
		p->last_seen_ms = node_now();
	wire_msg_free(&m);
}

/* Receive one whole message; false when none is waiting. */
static bool s_recv_one(node_t *node, void *sock)
{
	zmq_msg_t rid, body, extra;
	const char *uid;
	char curve[WIRE_Z85_LEN + 1] = "";
	int n = 1, more;

	zmq_msg_init(&rid);
	if (zmq_msg_recv(&rid, sock, ZMQ_DONTWAIT) < 0) {
		zmq_msg_close(&rid);
		return false;
	}
	node->messages_total++;
	zmq_msg_init(&body);
	/* the rest of a message is there once its first part is */
	if (zmq_msg_more(&rid) && zmq_msg_recv(&body, sock, 0) >= 0)
		n++;
	for (more = n == 2 && zmq_msg_more(&body); more; n++) {
		zmq_msg_init(&extra);
		more = zmq_msg_recv(&extra, sock, 0) >= 0 &&
		       zmq_msg_more(&extra);
		zmq_msg_close(&extra);
	}
	uid = n >= 2 ? zmq_msg_gets(&body, "User-Id") : NULL;
	if (uid && strlen(uid) == WIRE_Z85_LEN)
		snprintf(curve, sizeof(curve), "%s", uid);
	if (*curve && !node_banned(node, curve)) {
		node->msgs_rx++;
		node->bytes_rx += zmq_msg_size(&body);
		if (n != 2)
			node_garbage(node, curve, "not one frame");
		else
			s_on_message(node, curve, zmq_msg_data(&body),
				     zmq_msg_size(&body));
	}
	zmq_msg_close(&body);
	zmq_msg_close(&rid);
	return true;
}

static int s_handle_router(zloop_t *loop, zsock_t *router, void *arg)
{
	node_t *node = arg;
	void *sock = zsock_resolve(router);

	for (int i = 0; i < NODE_MAX_BURST; i++)
		if (!s_recv_one(node, sock))
			break;
	repl_send_vectors(node);
	repl_pull_all(node);
	if (node->peers_changed) {
		node->peers_changed = false;
		peer_send_peers(node, NULL);
	}
	return node->stopping ? -1 : 0;
}

/* ---- control socket and timers -------------------------------------- */

void node_stop(node_t *node)
{
	node->stopping = true;
}

static int s_handle_ctl(zloop_t *loop, zsock_t *ctl, void *arg)
{
	node_t *node = arg;
	zmsg_t *req = zmsg_recv(ctl);
	zmsg_t *reply = zmsg_new();

	if (req)
		ctl_handle(node, req, reply);
	else
		zmsg_addstr(reply, "error"), zmsg_addstr(reply, "bad request");
	zmsg_send(&reply, ctl);
	zmsg_destroy(&req);
	return node->stopping ? -1 : 0;
}

#define NODE_GC_MS (5 * 60 * 1000) /* blob retention pass at least this often */
#define NODE_GC_SOON_MS (10 * 1000) /* and this soon after a blob is stored */

/* Keep HOME/blobs within the lab's store.blob_budget. Every blob stored
 * (a job's logs, a fetched kernel) passes through HOME/blobs/tmp, so a
 * change of its mtime means new bytes. */
static void s_blob_gc(node_t *node)
{
	char *tmp = xasprintf("%s/blobs/tmp", node->home);
	int64_t now = node_now(), seen = 0;
	uint8_t (*pins)[32] = NULL;
	size_t n_pins = 0;
	struct stat sb;
	int rc;

	if (stat(tmp, &sb) == 0)
		seen = (int64_t)sb.st_mtim.tv_sec * 1000000000 +
		       sb.st_mtim.tv_nsec;
	free(tmp);
	if (node->last_gc_ms &&
	    now - node->last_gc_ms < (seen != node->gc_tmp_mtime_ns ?
				      NODE_GC_SOON_MS : NODE_GC_MS))
		return;
	node->last_gc_ms = now ? now : 1;
	node->gc_tmp_mtime_ns = seen;
	/* never a kernel that a queued or running job needs */
	rc = jobs_pinned_blobs(node->home, &pins, &n_pins);
	if (rc < 0) {
		log_warn("blob gc skipped: cannot read the jobs of %s/jobs.db"
			 " (%s)", node->home, strerror(-rc));
		return;
	}
	(void)results_gc_node(node->home, node->cfg->blob_budget, pins, n_pins,
			      NULL);
	free(pins);
}

static int s_handle_tick(zloop_t *loop, int timer_id, void *arg)
{
	node_t *node = arg;

	peer_tick(node);
	repl_tick(node);
	s_blob_gc(node);
	if (node_now() - node->last_trim_ms > NODE_TRIM_MS) {
		/* give freed buffers (bursts, attacks) back to the system */
		malloc_trim(0);
		node->last_trim_ms = node_now();
	}
	if (node->peers_changed) {
		node->peers_changed = false;
		peer_send_peers(node, NULL);
	}
	return node->stopping ? -1 : 0;
}

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
	return 0;
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
	}
	node->board_state = xcalloc(node->cfg->n_boards + 1, sizeof(int));
	node->board_queue = xcalloc(node->cfg->n_boards + 1, sizeof(uint32_t));
	node->max_peers = node->cfg->max_peers > 0 ? node->cfg->max_peers : 8;
	if (node->max_peers > NODE_MAX_PEERS_HARD)
		node->max_peers = NODE_MAX_PEERS_HARD;
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

	if (!p) {
		free(bytes);
		return -ENOTCONN;
	}
	return node_send(node, p, bytes, len);
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

static void s_jobs_garbage(void *arg, const char *curve, const char *what)
{
	node_garbage(arg, curve, what);
}

static bool s_jobs_log_budget(void *arg)
{
	return node_log_budget(arg);
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
		.garbage = s_jobs_garbage,
		.log_budget = s_jobs_log_budget,
	};

	return jobs_new(&ctx, &node->jobs, ret_err);
}

static void s_free_stranger(void **item)
{
	free(*item);
	*item = NULL;
}

int node_new(const node_opts_t *opts, node_t **ret_node, char **ret_err)
{
	node_t *node = xzalloc(sizeof(*node));
	int rc;

	/* a node should stay small: SQLite's page caches (store, jobs,
	 * results index) share one budget, and the few threads (ours,
	 * libzmq's) share malloc arenas rather than each keep its own */
	sqlite3_soft_heap_limit64(NODE_SQLITE_HEAP);
	mallopt(M_ARENA_MAX, NODE_MALLOC_ARENAS);
	zsys_init();
	node->home = xstrdup(opts->home);
	node->debug_timer = -1;
	node->by_curve = zhashx_new();
	node->strangers = zhashx_new();
	zhashx_set_destructor(node->strangers, s_free_stranger);
	node->upstream = zhashx_new();
	zhashx_set_destructor(node->upstream, s_free_stranger);
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

void node_set_tamper(node_t *node, bool on)
{
	node->tamper = on;
}

/* Beacon payload: magic, our id, our listen port (big endian). */
#define NODE_BEACON_MAGIC "LMB1"
#define NODE_BEACON_LEN (4 + WIRE_KEY_BYTES + 2)

static int s_handle_beacon(zloop_t *loop, zsock_t *reader, void *arg)
{
	node_t *node = arg;
	char *ip = zstr_recv(node->beacon);
	zframe_t *f = ip ? zframe_recv(node->beacon) : NULL;
	const uint8_t *d;
	char ep[96];
	peer_t *p;

	if (!f || zframe_size(f) != NODE_BEACON_LEN ||
	    strlen(ip) > 45 || strpbrk(ip, ":/ "))
		goto out;
	d = zframe_data(f);
	if (memcmp(d + 4, node->key.pk, WIRE_KEY_BYTES) == 0 ||
	    peer_find(node, d + 4))
		goto out;
	if (node->trust) {
		char z85[WIRE_Z85_LEN + 1];

		if (wire_curve_public(d + 4, z85) < 0 ||
		    !zhashx_lookup(node->trust, z85))
			goto out;
	}
	snprintf(ep, sizeof(ep), "tcp://%s:%u", ip,
		 (unsigned)(d[4 + WIRE_KEY_BYTES] << 8 |
			    d[5 + WIRE_KEY_BYTES]));
	p = peer_add(node, d + 4, ep, false);
	if (p && p->state == PEER_DOWN) {
		log_info("beacon hint: node %.12s at %s", p->hex, ep);
		peer_connect(node, p);
	}
out:
	zframe_destroy(&f);
	free(ip);
	return 0;
}

static int s_listen_port(const char *ep)
{
	const char *colon = strrchr(ep, ':');
	long port = colon ? strtol(colon + 1, NULL, 10) : 0;

	return port > 0 && port < 65536 ? (int)port : 0;
}

static void s_start_beacon(node_t *node)
{
	uint8_t payload[NODE_BEACON_LEN];
	int port = s_listen_port(node->cfg->listen);
	char *host;

	if (!node->cfg->beacon || !port)
		return;
	/* LAN hint only: peers found this way still need CURVE and hello */
	node->beacon = zactor_new(zbeacon, NULL);
	if (!node->beacon)
		return;
	zsock_send(node->beacon, "si", "CONFIGURE", NODE_BEACON_PORT);
	host = zstr_recv(node->beacon);
	if (!host || !*host) {
		log_warn("LAN beacon: no broadcast interface, beacon off");
		free(host);
		zactor_destroy(&node->beacon);
		return;
	}
	memcpy(payload, NODE_BEACON_MAGIC, 4);
	memcpy(payload + 4, node->key.pk, WIRE_KEY_BYTES);
	payload[4 + WIRE_KEY_BYTES] = (uint8_t)(port >> 8);
	payload[5 + WIRE_KEY_BYTES] = (uint8_t)port;
	zsock_send(node->beacon, "sbi", "PUBLISH", payload,
		   (size_t)NODE_BEACON_LEN, NODE_BEACON_MS);
	zsock_send(node->beacon, "sb", "SUBSCRIBE", NODE_BEACON_MAGIC,
		   (size_t)4);
	zloop_reader(node->loop, (zsock_t *)node->beacon, s_handle_beacon,
		     node);
	log_info("LAN beacon on %s:%d (a hint, never trusted)", host,
		 NODE_BEACON_PORT);
	free(host);
}

int node_run(node_t *node)
{
	int rc;

	node->loop = zloop_new();
	zloop_reader(node->loop, node->router, s_handle_router, node);
	zloop_reader(node->loop, node->zap, s_handle_zap, node);
	zloop_reader(node->loop, node->ctl, s_handle_ctl, node);
	zloop_timer(node->loop, NODE_TICK_MS, 0, s_handle_tick, node);
	log_info("node %.12s listening on %s, %zu seed(s), trust %s",
		 node->hex, node->cfg->listen, node->cfg->n_seeds,
		 node->trust ? "list" : "open");
	rc = node_publish_advert(node);
	if (rc < 0)
		log_error("advert: %s", wire_strerror(rc));
	peer_seed(node);
	peer_restore(node);
	s_start_beacon(node);
	jobs_start(node->jobs, node->loop);
	zloop_start(node->loop);
	log_info("node stopping");
	return 0;
}

void node_destroy(node_t **p)
{
	node_t *node = *p;

	if (!node)
		return;
	jobs_destroy(&node->jobs);
	zactor_destroy(&node->beacon);
	for (size_t i = 0; i < node->n_peers; i++)
		peer_free(&node->peers[i]);
	free(node->peers);
	zloop_destroy(&node->loop);
	zsock_destroy(&node->router);
	zsock_destroy(&node->zap);
	if (node->ctl) {
		char *path = xasprintf("%s/%s", node->home, CTL_NAME);

		zsock_destroy(&node->ctl);
		unlink(path);
		free(path);
	}
	zhashx_destroy(&node->by_curve);
	zhashx_destroy(&node->strangers);
	zhashx_destroy(&node->upstream);
	zhashx_destroy(&node->trust);
	store_destroy(&node->store);
	lab_config_destroy(&node->cfg);
	wire_key_wipe(&node->key);
	free(node->desc);
	free(node->board_state);
	free(node->board_queue);
	free(node->home);
	free(node);
	*p = NULL;
}
