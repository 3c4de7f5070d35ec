/*
 * node: the loop and its sockets, the ZAP handler, dispatch of what peers
 * send, timers, shutdown. Making and destroying a node is node_setup.c's,
 * the LAN beacon node_beacon.c's, this node's own feed (adverts,
 * node_append_record) node_feed.c's.
 *
 * Layout: helpers; garbage, bans, strangers; ZAP; ROUTER dispatch;
 * control socket and timers; run.
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
#include <signal.h>
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

bool node_input_waiting(node_t *node)
{
	return node->router &&
	       (zsock_events(node->router) & ZMQ_POLLIN) != 0;
}

int node_timer(node_t *node, size_t delay_ms, zloop_timer_fn handler)
{
	return node->loop ? zloop_timer(node->loop, delay_ms, 1, handler, node) :
			    -1;
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
		/* our own encoding: a fixarray, then the type as a fixint */
		size_t k = len >= 2 && bytes[1] <= MSG_TYPE_MAX ? bytes[1] : 0;

		node->msgs_tx++;
		node->bytes_tx += len;
		node->kind_msgs_tx[k]++;
		node->kind_bytes_tx[k] += len;
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

/* Who was refused, by the hex node id that the trust list takes, when
 * the node knows which id has that CURVE key; else the key itself. */
static void s_log_refusal(node_t *node, const char *addr, const char *z85,
			  const char *why)
{
	const char *hex = *z85 ? node_id_of_curve(node, z85) : NULL;

	if (hex)
		log_warn("refused connection from %s (node %s): %s",
			 addr ? addr : "?", hex, why);
	else if (*z85)
		log_warn("refused connection from %s (node id not known"
			 " here, CURVE key %s): %s", addr ? addr : "?", z85,
			 why);
	else
		log_warn("refused connection from %s (no CURVE key): %s",
			 addr ? addr : "?", why);
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
			s_log_refusal(node, addr, z85, why);
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

/*
 * A blob-get is answered with up to PROTO_MAX_BLOB_CHUNK bytes: at most
 * NODE_MAX_BLOB_GET_PER_MIN of them (more is garbage), and none while
 * NODE_BLOB_WINDOW_BYTES sent to p are not yet followed by its pong; the
 * asker asks again after its chunk timeout, so its reading paces it.
 */
static bool s_blob_get_ok(node_t *node, peer_t *p)
{
	if (!node_rate_ok(&p->blob_window_ms, &p->blob_count,
			  NODE_MAX_BLOB_GET_PER_MIN)) {
		node_garbage(node, p->curve, "too many blob-gets");
		return false;
	}
	if (p->ask_sent - p->ask_acked < NODE_BLOB_WINDOW_BYTES)
		return true;
	if (!p->ping_open)
		peer_ping(node, p);
	return false;
}

static void s_dispatch(node_t *node, peer_t *p, const wire_msg_t *m)
{
	switch (m->type) {
	case WIRE_PEERS:
	case WIRE_PEERS_DELTA:
		peer_on_peers(node, p, m);
		break;
	case WIRE_PING:
		/* a pong each: answered up to a rate, not held against it
		 * (our windows make an honest peer ping in bursts) */
		if (m->pong || node_rate_ok(&p->ping_window_ms, &p->ping_count,
					    NODE_MAX_PING_PER_MIN))
			peer_on_ping(node, p, m);
		break;
	case WIRE_VECTOR:
		repl_on_vector(node, p, m);
		break;
	case WIRE_DIGEST:
		repl_on_digest(node, p, m);
		break;
	case WIRE_RANGES:
		repl_on_ranges(node, p, m);
		break;
	case WIRE_SUBDIGEST:
		repl_on_subdigest(node, p, m);
		break;
	case WIRE_SUBRANGES:
		repl_on_subranges(node, p, m);
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
	case WIRE_REQUEST_SUMMARY:
		repl_on_request_summary(node, p, m);
		break;
	case WIRE_REQUEST_IDS_IN:
		repl_on_request_ids_in(node, p, m);
		break;
	default: {
		jobs_peer_t jp = { .curve = p->curve, .hex = p->hex };

		if (m->msg->type == MSG_BLOB_GET && !s_blob_get_ok(node, p))
			break;
		/* a signature check and store lookups each, then a flood */
		if (m->msg->type == MSG_CANCEL &&
		    !node_rate_ok(&p->cancel_window_ms, &p->cancel_count,
				  NODE_MAX_CANCEL_PER_MIN)) {
			node_garbage(node, p->curve, "too many cancels");
			break;
		}
		/* the same, and at a lab it names a signed answer */
		if (m->msg->type == MSG_LEASE &&
		    !node_rate_ok(&p->lease_window_ms, &p->lease_count,
				  NODE_MAX_LEASE_PER_MIN)) {
			node_garbage(node, p->curve, "too many leases");
			break;
		}
		/* blobs, cancels, leases and their relayed operations */
		jobs_on_message(node->jobs, &jp, m->msg);
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
		p->last_seen_ms = p->live_ms = node_now();
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

	int64_t start = node_now();

	/* bounded work per wakeup, in messages and in time, so the control
	 * socket, the timers and a SIGTERM (zsys_interrupted, which zloop
	 * checks between wakeups) are heard whatever peers send */
	for (int i = 0; i < NODE_MAX_BURST && !zsys_interrupted; i++)
		if (!s_recv_one(node, sock) ||
		    node_now() - start >= NODE_BURST_MS)
			break;
	repl_send_vectors(node);
	repl_pull_all(node);
	peer_send_peers(node);
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

/* SIGHUP: read the lab file again. The handler only sets the flag; the
 * loop acts on it (node_run, s_handle_tick). */
static volatile sig_atomic_t s_hup;

static void s_on_hup(int sig)
{
	(void)sig;
	s_hup = 1;
}

static void s_reload_if_asked(node_t *node)
{
	char *err = NULL;

	if (!s_hup)
		return;
	s_hup = 0;
	log_info("SIGHUP: reading %s again", node->cfg->path);
	(void)node_reload(node, &err); /* logs what went wrong */
	free(err);
}

static int s_handle_tick(zloop_t *loop, int timer_id, void *arg)
{
	node_t *node = arg;

	s_reload_if_asked(node);
	peer_tick(node);
	repl_tick(node);
	s_blob_gc(node);
	if (node_now() - node->last_trim_ms > NODE_TRIM_MS) {
		/* give freed buffers (bursts, attacks) and, once no record
		 * came for a trim period, the store's page cache back */
		store_shrink_idle(node->store);
		repl_shrink(node);
		malloc_trim(0);
		node->last_trim_ms = node_now();
	}
	peer_send_peers(node);
	return node->stopping ? -1 : 0;
}

void node_set_tamper(node_t *node, bool on)
{
	node->tamper = on;
}

void node_set_no_digest(node_t *node, bool on)
{
	node->no_digest = on;
}
int node_run(node_t *node)
{
	struct sigaction sa = { .sa_handler = s_on_hup,
				.sa_flags = SA_RESTART };
	int rc;

	node->loop = zloop_new();
	zloop_reader(node->loop, node->router, s_handle_router, node);
	zloop_reader(node->loop, node->zap, s_handle_zap, node);
	zloop_reader(node->loop, node->ctl, s_handle_ctl, node);
	zloop_timer(node->loop, NODE_TICK_MS, 0, s_handle_tick, node);
	node->tick_last_ms = node_now(); /* a stall before the first tick counts too */
	log_info("node %.12s listening on %s, %zu seed(s), trust %s",
		 node->hex, node->cfg->listen, node->cfg->n_seeds,
		 node->trust ? "list" : "open");
	rc = node_publish_advert(node);
	if (rc < 0)
		log_error("advert: %s", wire_strerror(rc));
	peer_seed(node);
	peer_restore(node);
	node_beacon_start(node);
	jobs_start(node->jobs, node->loop);
	/* the signal wakes the loop's poll (never restarted), which ends
	 * zloop_start: the loop goes on when that was SIGHUP alone */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);
	while (!zsys_interrupted && !node->stopping) {
		zloop_start(node->loop);
		if (!s_hup)
			break;
		s_reload_if_asked(node);
	}
	sa.sa_handler = SIG_DFL;
	sigaction(SIGHUP, &sa, NULL);
	log_info("node stopping");
	return 0;
}
