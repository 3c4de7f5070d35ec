/*
 * node_ctl: the control socket's commands (see ctl.h for the framing) and
 * the rendering of peers, boards and feeds as text tables or JSON.
 *
 * Commands: a table of name -> handler; each handler gets the argument
 * frames and fills the reply body. Add a command by adding a row.
 */
#include "node/net/node_int.h"

#include "node/net/ctl.h"
#include "node/jobs/jobs.h"
#include "proto/buf.h"
#include "proto/json.h"
#include "proto/log.h"
#include "proto/mem.h"

#include <errno.h>
#include <malloc.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define CTL_MAX_APPEND 10000000ULL

typedef struct {
	node_t *node;
	bool json;
	zframe_t *args[CTL_MAX_ARGS];
	size_t n_args;
	buf_t out;
	bool failed;
} ctl_ctx_t;

static const char *s_state_name(enum peer_state s)
{
	switch (s) {
	case PEER_ACTIVE:
		return "up";
	case PEER_CONNECTING:
		return "connecting";
	default:
		return "down";
	}
}

static bool s_flagged(node_t *node, const uint8_t *id)
{
	const store_feed_t *f = store_feed(node->store, id);

	return f && f->flagged;
}

static void s_peer_json(json_t *j, node_t *node, peer_t *p, int64_t now)
{
	json_obj_open(j);
	json_key_str(j, "id", p->hex);
	json_key_str(j, "lab", p->lab);
	json_key_str(j, "endpoint", p->endpoint);
	json_key_str(j, "state", s_state_name(p->state));
	json_key_bool(j, "seed", p->seed);
	if (p->last_seen_ms)
		json_key_double(j, "last_seen_s",
				(double)(now - p->last_seen_ms) / 1000.0);
	else
		json_key_null(j, "last_seen_s");
	if (p->rtt_ms >= 0)
		json_key_int(j, "rtt_ms", p->rtt_ms);
	else
		json_key_null(j, "rtt_ms");
	json_key_uint(j, "records_received", p->records_rx);
	json_key_uint(j, "records_sent", p->records_tx);
	json_key_bool(j, "equivocation", s_flagged(node, p->id));
	/* the peers it told us of (its peers messages), by id */
	json_key(j, "its_peers");
	json_arr_open(j);
	for (size_t i = 0; i < p->n_their_ids; i++) {
		char hex[2 * WIRE_KEY_BYTES + 1];

		wire_hex(p->their_ids[i], WIRE_KEY_BYTES, hex);
		json_str(j, hex);
	}
	json_arr_close(j);
	json_obj_close(j);
}

static void s_render_peers(ctl_ctx_t *c)
{
	node_t *node = c->node;
	int64_t now = node_now();
	json_t j;

	if (c->json) {
		json_init(&j, &c->out, JSON_PRETTY);
		json_arr_open(&j);
		for (size_t i = 0; i < node->n_peers; i++)
			s_peer_json(&j, node, node->peers[i], now);
		json_arr_close(&j);
		json_finish(&j);
		return;
	}
	buf_printf(&c->out, "%-12s  %-16s  %-24s  %-10s  %9s  %6s  %9s  %s\n",
		   "ID", "LAB", "ENDPOINT", "STATE", "LAST SEEN", "RTT",
		   "RECORDS", "FLAGGED");
	for (size_t i = 0; i < node->n_peers; i++) {
		peer_t *p = node->peers[i];
		char seen[32] = "-", rtt[16] = "-";

		if (p->last_seen_ms)
			snprintf(seen, sizeof(seen), "%.1fs",
				 (double)(now - p->last_seen_ms) / 1000.0);
		if (p->rtt_ms >= 0)
			snprintf(rtt, sizeof(rtt), "%dms", p->rtt_ms);
		buf_printf(&c->out, "%.12s  %-16s  %-24s  %-10s  %9s  %6s  "
			   "%9" PRIu64 "  %s\n", p->hex, p->lab, p->endpoint,
			   s_state_name(p->state), seen, rtt, p->records_rx,
			   s_flagged(node, p->id) ? "EQUIVOCATION" : "");
	}
}

/* ---- boards: from the store, so it works with or without a node ---- */

typedef struct {
	wire_advert_t *ads;
	uint8_t (*authors)[WIRE_KEY_BYTES];
	size_t n, alloc;
} s_ads_t;

static int s_collect_advert(void *arg, uint64_t seq, const uint8_t *b,
			    size_t len)
{
	s_ads_t *a = arg;
	wire_record_t r;

	if (wire_record_verify(b, len, &r) < 0)
		return 0;
	if (a->n == a->alloc) {
		a->alloc = a->alloc ? a->alloc * 2 : 16;
		a->ads = xreallocarray(a->ads, a->alloc, sizeof(*a->ads));
		a->authors = xreallocarray(a->authors, a->alloc,
					   sizeof(*a->authors));
	}
	if (wire_advert_decode(b, len, &a->ads[a->n]) < 0)
		return 0;
	memcpy(a->authors[a->n++], r.author, WIRE_KEY_BYTES);
	return 0;
}

/* ms since the epoch as "YYYY-MM-DDTHH:MM:SSZ" in buf. */
static const char *s_utc(int64_t ms, char *buf, size_t size)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (!gmtime_r(&t, &tm) ||
	    !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, size, "?");
	return buf;
}

static void s_board_notes_json(json_t *j, const wire_board_t *b)
{
	char t[32];

	if (b->reason) {
		json_key_str(j, "reason", b->reason);
		if (b->until_ms)
			json_key_str(j, "until", s_utc(b->until_ms, t, sizeof(t)));
	}
	if (b->request) {
		json_key_str(j, "request", b->request);
		json_key_str(j, "submitter", b->submitter);
		if (b->submitter_name)
			json_key_str(j, "submitter_name", b->submitter_name);
		json_key_str(j, "since", s_utc(b->since_ms, t, sizeof(t)));
	}
	if (b->health)
		json_key_str(j, "health", b->health);
	if (b->lease) {
		json_key_str(j, "lease", b->lease);
		json_key_str(j, "holder", b->holder);
		if (b->holder_name)
			json_key_str(j, "holder_name", b->holder_name);
		json_key_str(j, "lease_until",
			     s_utc(b->lease_until_ms, t, sizeof(t)));
	}
}

static void s_boards_json(buf_t *out, const s_ads_t *a)
{
	json_t j;

	json_init(&j, out, JSON_PRETTY);
	json_arr_open(&j);
	for (size_t i = 0; i < a->n; i++) {
		char hex[2 * WIRE_KEY_BYTES + 1];

		wire_hex(a->authors[i], WIRE_KEY_BYTES, hex);
		for (size_t k = 0; k < a->ads[i].n_boards; k++) {
			const wire_board_t *b = &a->ads[i].boards[k];

			json_obj_open(&j);
			json_key_str(&j, "lab", a->ads[i].lab);
			json_key_str(&j, "node", hex);
			json_key_str(&j, "board", b->name);
			json_key_str(&j, "arch", b->arch);
			json_key_str(&j, "machine", b->machine);
			json_key(&j, "tags");
			json_arr_open(&j);
			for (char *t = b->tags, *e; t && *t; t = e ? e + 1 : NULL) {
				e = strchr(t, ',');
				json_strn(&j, t, e ? (size_t)(e - t) : strlen(t));
				if (!e)
					break;
			}
			json_arr_close(&j);
			json_key_str(&j, "transport", b->transport);
			json_key_str(&j, "boot", b->boot);
			json_key_str(&j, "state", b->state);
			json_key_int(&j, "queue", b->queue);
			json_key_str(&j, "builds", b->builds);
			s_board_notes_json(&j, b);
			json_obj_close(&j);
		}
	}
	json_arr_close(&j);
	json_finish(&j);
}

/* The NOTE column: why a board is in maintenance and until when, who
 * holds a busy one and since when. */
static void s_board_note_text(buf_t *out, const wire_board_t *b)
{
	char t[32];

	if (b->reason) {
		buf_printf(out, "  maintenance: \"%.100s\"", b->reason);
		if (b->until_ms)
			buf_printf(out, " until %s", s_utc(b->until_ms, t,
							   sizeof(t)));
	}
	if (b->health)
		buf_printf(out, "  %.240s", b->health);
	if (b->request)
		buf_printf(out, "  request %s by %s%s%s%s since %s", b->request,
			   b->submitter, b->submitter_name ? " (" : "",
			   b->submitter_name ? b->submitter_name : "",
			   b->submitter_name ? ")" : "",
			   s_utc(b->since_ms, t, sizeof(t)));
	if (b->lease)
		buf_printf(out, "  leased to %s%s%s%s until %s (lease %s)",
			   b->holder, b->holder_name ? " (" : "",
			   b->holder_name ? b->holder_name : "",
			   b->holder_name ? ")" : "",
			   s_utc(b->lease_until_ms, t, sizeof(t)), b->lease);
}

static void s_boards_text(buf_t *out, const s_ads_t *a)
{
	buf_printf(out, "%-16s  %-16s  %-8s  %-24s  %-8s  %-5s  %s\n", "LAB",
		   "BOARD", "ARCH", "TAGS", "STATE", "QUEUE", "BUILDS  NOTE");
	for (size_t i = 0; i < a->n; i++) {
		for (size_t k = 0; k < a->ads[i].n_boards; k++) {
			const wire_board_t *b = &a->ads[i].boards[k];

			buf_printf(out, "%-16s  %-16s  %-8s  %-24s  %-8s  %-5"
				   PRId64 "  %-6s", a->ads[i].lab, b->name,
				   b->arch, *b->tags ? b->tags : "-", b->state,
				   b->queue, *b->builds ? b->builds : "-");
			s_board_note_text(out, b);
			buf_puts(out, "\n");
		}
	}
}

int render_boards(store_t *store, bool json, char **ret)
{
	s_ads_t a = { 0 };
	buf_t out;
	int rc;

	buf_init(&out, 0);
	rc = store_latest_of_kind(store, RECORD_ADVERT, s_collect_advert, &a);
	if (rc >= 0) {
		if (json)
			s_boards_json(&out, &a);
		else
			s_boards_text(&out, &a);
	}
	for (size_t i = 0; i < a.n; i++)
		wire_advert_free(&a.ads[i]);
	free(a.ads);
	free(a.authors);
	if (rc < 0) {
		buf_free(&out);
		return rc;
	}
	*ret = buf_steal(&out);
	return 0;
}

/* ---- commands ------------------------------------------------------- */

static void s_cmd_peers(ctl_ctx_t *c)
{
	s_render_peers(c);
}

static void s_cmd_boards(ctl_ctx_t *c)
{
	char *text = NULL;

	if (render_boards(c->node->store, c->json, &text) < 0) {
		c->failed = true;
		buf_puts(&c->out, "cannot read the store");
		return;
	}
	buf_puts(&c->out, text);
	free(text);
}

static void s_cmd_feeds(ctl_ctx_t *c)
{
	store_t *s = c->node->store;
	size_t n = store_feed_count(s);
	json_t j;

	json_init(&j, &c->out, JSON_PRETTY);
	json_arr_open(&j);
	for (size_t i = 0; i < n; i++) {
		const store_feed_t *f = store_feed_at(s, i);
		char hex[2 * WIRE_KEY_BYTES + 1];

		wire_hex(f->author, WIRE_KEY_BYTES, hex);
		json_obj_open(&j);
		json_key_str(&j, "author", hex);
		json_key_uint(&j, "seq", f->seq);
		json_key_bool(&j, "flagged", f->flagged);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_finish(&j);
}

static int s_req_json(void *arg, const uint8_t *id, const uint8_t *bytes,
		      size_t len, int64_t expires_ms)
{
	json_t *j = arg;
	char hex[2 * WIRE_ID_BYTES + 1];

	wire_hex(id, WIRE_ID_BYTES, hex);
	json_obj_open(j);
	json_key_str(j, "id", hex);
	json_key_int(j, "expires_ms", expires_ms);
	json_key_uint(j, "bytes", len);
	json_obj_close(j);
	return 0;
}

static void s_cmd_requests(ctl_ctx_t *c)
{
	json_t j;

	json_init(&j, &c->out, JSON_PRETTY);
	json_arr_open(&j);
	store_requests(c->node->store, node_wall_ms(), WIRE_MAX_REQUEST_IDS,
		       s_req_json, &j);
	json_arr_close(&j);
	json_finish(&j);
}

static size_t s_entries(zhashx_t *h)
{
	return h ? zhashx_size(h) : 0; /* some are made when first needed */
}

/* Entries of the node's tables: what grows with labs, peers and
 * requests, beside what the heap holds for them. */
static void s_status_tables(json_t *j, node_t *node)
{
	size_t dealers = 0, req_known = 0, distrust = 0;

	for (size_t i = 0; i < node->n_peers; i++) {
		peer_t *p = node->peers[i];

		dealers += p->dealer != NULL;
		req_known += keymap_size(p->req_known);
		distrust += keymap_size(p->distrust);
	}
	json_key(j, "tables");
	json_obj_open(j);
	json_key_uint(j, "dealers", dealers);
	json_key_uint(j, "strangers", s_entries(node->strangers));
	json_key_uint(j, "ids", node_ids_count(node));
	json_key_uint(j, "vector", keymap_size(node->vec_mine));
	json_key_uint(j, "pulls", s_entries(node->upstream));
	json_key_uint(j, "pull_known", s_entries(node->pull_known));
	json_key_uint(j, "pull_new", s_entries(node->pull_new));
	json_key_uint(j, "req_known", req_known);
	json_key_uint(j, "distrust", distrust);
	json_obj_close(j);
}

/* Where the heap is: what malloc hands out (all threads' arenas),
 * what it holds free, and SQLite's share of what it hands out; and the
 * tables' sizes. */
static void s_status_memory(json_t *j, node_t *node)
{
	struct mallinfo2 mi = mallinfo2();

	json_key(j, "memory");
	json_obj_open(j);
	json_key_uint(j, "heap_in_use", mi.uordblks + mi.hblkhd);
	json_key_uint(j, "heap_free", mi.fordblks);
	json_key_uint(j, "heap_arena", mi.arena);
	json_key_uint(j, "sqlite", store_mem_used());
	s_status_tables(j, node);
	json_obj_close(j);
}

static void s_cmd_status(ctl_ctx_t *c)
{
	node_t *node = c->node;
	size_t up = 0;
	json_t j;

	for (size_t i = 0; i < node->n_peers; i++)
		up += node->peers[i]->state == PEER_ACTIVE;
	json_init(&j, &c->out, JSON_PRETTY);
	json_obj_open(&j);
	json_key_str(&j, "id", node->hex);
	json_key_str(&j, "lab", node->cfg->name);
	json_key_str(&j, "listen", node->cfg->listen);
	json_key_int(&j, "pid", (int64_t)getpid());
	json_key_int(&j, "records", store_record_count(node->store));
	json_key_int(&j, "evidence", store_evidence_count(node->store));
	json_key_uint(&j, "feeds", store_feed_count(node->store));
	json_key_uint(&j, "peers", node->n_peers);
	json_key_uint(&j, "peers_up", up);
	json_key_uint(&j, "appending", node->debug_append_left);
	json_key_uint(&j, "messages", node->messages_total);
	json_key_uint(&j, "bad_messages", node->garbage_total);
	json_key_uint(&j, "bans", node->bans_total);
	json_key_uint(&j, "refused_connections", node->refused_total);
	json_key_uint(&j, "msgs_sent", node->msgs_tx);
	json_key_uint(&j, "bytes_sent", node->bytes_tx);
	json_key_uint(&j, "msgs_received", node->msgs_rx);
	json_key_uint(&j, "bytes_received", node->bytes_rx);
	json_key_uint(&j, "request_msgs_sent", node->req_msgs_tx);
	json_key(&j, "sent_by_kind");
	json_obj_open(&j);
	for (int k = MSG_HELLO; k <= MSG_TYPE_MAX; k++) {
		json_key(&j, msg_type_name(k));
		json_obj_open(&j);
		json_key_uint(&j, "msgs", node->kind_msgs_tx[k]);
		json_key_uint(&j, "bytes", node->kind_bytes_tx[k]);
		json_obj_close(&j);
	}
	json_obj_close(&j);
	json_key_uint(&j, "records_from_peers", node->records_in);
	json_key_uint(&j, "records_received", node->records_rx_items);
	json_key_uint(&j, "duplicates_pulled", node->dup_pulled);
	json_key_uint(&j, "duplicates_other", node->dup_other);
	json_key_uint(&j, "duplicates_stale", node->dup_stale);
	json_key_uint(&j, "wants_unheld", node->wants_unheld);
	json_key_uint(&j, "wants_again", node->wants_again);
	json_key_uint(&j, "wants_queued", node->wants_queued);
	json_key_uint(&j, "wants_unsent", node->wants_unsent);
	json_key_uint(&j, "wants_stopped", node->wants_stopped);
	json_key_uint(&j, "wants_stop_sent", node->wants_stop_sent);
	json_key_uint(&j, "pulls_stalled_read", node->pulls_stalled_read);
	json_key_uint(&j, "pulls_judged_later", node->pulls_judged_later);
	json_key_uint(&j, "pushers_pruned", node->pushers_pruned);
	json_key_uint(&j, "beside_pull_author", node->beside_author);
	json_key_uint(&j, "beside_pull_relay", node->beside_relay);
	json_key_uint(&j, "handovers", node->handovers);
	json_key_uint(&j, "handovers_read", node->handovers_read);
	json_key_uint(&j, "handovers_timed", node->handovers_timed);
	json_key_uint(&j, "pulls_started", node->pulls_started);
	json_key_uint(&j, "pulls_taken_over", node->pulls_taken_over);
	json_key_uint(&j, "pulls_preempted", node->pulls_preempted);
	json_key_uint(&j, "pulls_stalled", node->pulls_stalled);
	json_key_uint(&j, "pulls_stalled_first", node->pulls_stalled_first);
	json_key_uint(&j, "pulls_waited", node->pulls_waited);
	json_key_uint(&j, "pulls_stalled_unponged",
		      node->pulls_stalled_unponged);
	json_key_uint(&j, "pulls_stalled_patience",
		      node->pulls_stalled_patience);
	/* entries of peers' vectors held here: bounded by what differs,
	 * not by the number of feeds */
	json_key_uint(&j, "peer_vector_entries", repl_vec_state(node));
	json_key_int(&j, "last_request_ms", node->last_request_ms);
	json_key_int(&j, "last_record_ms", node->last_record_ms);
	s_status_memory(&j, node);
	json_obj_close(&j);
	json_finish(&j);
}

static bool s_arg_u64(ctl_ctx_t *c, size_t i, uint64_t max, uint64_t *ret)
{
	char text[32], *end;
	size_t len;

	if (i >= c->n_args || (len = zframe_size(c->args[i])) == 0 ||
	    len >= sizeof(text))
		return false;
	memcpy(text, zframe_data(c->args[i]), len);
	text[len] = '\0';
	errno = 0;
	*ret = strtoull(text, &end, 10);
	return errno == 0 && *end == '\0' && text[0] != '-' && *ret <= max;
}

static void s_cmd_append(ctl_ctx_t *c)
{
	uint64_t n;

	if (!s_arg_u64(c, 0, CTL_MAX_APPEND, &n) || n == 0) {
		c->failed = true;
		buf_puts(&c->out, "append-records: need a count 1..10000000");
		return;
	}
	node_debug_append(c->node, n);
	buf_printf(&c->out, "appending %" PRIu64 " records\n", n);
}

static void s_cmd_submit_raw(ctl_ctx_t *c)
{
	int rc;

	if (c->n_args != 1) {
		c->failed = true;
		buf_puts(&c->out, "submit-raw: need the request bytes");
		return;
	}
	rc = node_submit_request(c->node, zframe_data(c->args[0]),
				 zframe_size(c->args[0]));
	if (rc < 0) {
		c->failed = true;
		buf_printf(&c->out, "request refused: %s",
			   rc == -ETIME ? "expired" : wire_strerror(rc));
		return;
	}
	buf_puts(&c->out, rc == 1 ? "new\n" : "known\n");
}

/*
 * bisect-publish: a bisect record the submitter signed as the first of a
 * feed of its own (a template: its body is what counts); the node
 * publishes that body in its own feed, where every node replicates it.
 */
static void s_cmd_bisect_publish(ctl_ctx_t *c)
{
	record_t *rec = NULL;
	int rc = -EINVAL;

	if (c->n_args == 1)
		rc = record_decode(zframe_data(c->args[0]),
				   zframe_size(c->args[0]), &rec);
	if (rc == 0 && (rec->head.kind != RECORD_BISECT ||
			memcmp(rec->head.author, rec->bisect.submitter, 32)))
		rc = -EPERM;
	if (rc == 0)
		rc = node_append_record(c->node, rec);
	record_destroy(&rec);
	if (rc < 0) {
		c->failed = true;
		buf_printf(&c->out, "bisect-publish: %s", rc == -EINVAL ?
			   "need one bisect record, signed by its submitter" :
			   rc == -EPERM ? "not a bisect record of its signer" :
			   rc < -1000 ? wire_strerror(rc) : strerror(-rc));
		return;
	}
	buf_puts(&c->out, "published\n");
}

static void s_cmd_set_board(ctl_ctx_t *c)
{
	static const char *const names[] = { "", "idle", "busy", "offline",
					     "maintenance" };
	char board[LAB_MAX_NAME + 1], state[16];
	uint64_t queue = 0;
	int st = 0, rc;

	if (c->n_args < 2 || zframe_size(c->args[0]) > LAB_MAX_NAME ||
	    zframe_size(c->args[1]) >= sizeof(state) ||
	    (c->n_args > 2 && !s_arg_u64(c, 2, UINT32_MAX, &queue))) {
		c->failed = true;
		buf_puts(&c->out, "set-board: need BOARD STATE [QUEUE]");
		return;
	}
	snprintf(board, sizeof(board), "%.*s", (int)zframe_size(c->args[0]),
		 (const char *)zframe_data(c->args[0]));
	snprintf(state, sizeof(state), "%.*s", (int)zframe_size(c->args[1]),
		 (const char *)zframe_data(c->args[1]));
	for (int i = 1; i <= BOARD_STATE_MAX; i++)
		if (strcmp(state, names[i]) == 0)
			st = i;
	rc = st ? node_set_board(c->node, board, st, (uint32_t)queue) : -EINVAL;
	if (rc < 0) {
		c->failed = true;
		buf_printf(&c->out, "set-board: %s", rc == -ENOENT ?
			   "no such board" : "bad state");
		return;
	}
	buf_puts(&c->out, "ok\n");
}

static void s_cmd_reload(ctl_ctx_t *c)
{
	char *err = NULL;

	if (node_reload(c->node, &err) < 0) {
		c->failed = true;
		buf_puts(&c->out, err ? err : "failed");
	} else {
		buf_printf(&c->out, "reloaded %s: %zu board(s)\n",
			   c->node->cfg->path, c->node->cfg->n_boards);
	}
	free(err);
}

static void s_cmd_stop(ctl_ctx_t *c)
{
	node_stop(c->node);
	buf_puts(&c->out, "stopping\n");
}

static const struct {
	const char *name;
	void (*fn)(ctl_ctx_t *c);
} s_cmds[] = {
	{ "peers", s_cmd_peers },
	{ "boards", s_cmd_boards },
	{ "feeds", s_cmd_feeds },
	{ "status", s_cmd_status },
	{ "append-records", s_cmd_append },
	{ "submit-raw", s_cmd_submit_raw },
	{ "bisect-publish", s_cmd_bisect_publish },
	{ "set-board", s_cmd_set_board },
	{ "requests", s_cmd_requests },
	{ "stop", s_cmd_stop },
	{ "reload", s_cmd_reload },
};

/* Commands of the jobs side (node/jobs/jobs.c): cancel, blob-fetch, jobs. */
static bool s_jobs_ctl(ctl_ctx_t *c, zframe_t *name)
{
	const uint8_t *args[CTL_MAX_ARGS];
	size_t lens[CTL_MAX_ARGS];
	char *cmd = zframe_strdup(name);
	bool handled;

	for (size_t i = 0; i < c->n_args; i++) {
		args[i] = zframe_data(c->args[i]);
		lens[i] = zframe_size(c->args[i]);
	}
	handled = jobs_ctl(c->node->jobs, cmd, args, lens, c->n_args, c->json,
			   &c->out, &c->failed);
	free(cmd);
	return handled;
}

int ctl_handle(node_t *node, zmsg_t *req, zmsg_t *reply)
{
	zframe_t *name = zmsg_first(req), *fmt = zmsg_next(req);
	ctl_ctx_t c = { .node = node };
	size_t i;

	buf_init(&c.out, CTL_MAX_REPLY);
	if (!name || !fmt || zmsg_size(req) > CTL_MAX_ARGS + 2) {
		zmsg_addstr(reply, "error");
		zmsg_addstr(reply, "malformed control request");
		buf_free(&c.out);
		return -EINVAL;
	}
	c.json = zframe_streq(fmt, "json");
	for (zframe_t *f = zmsg_next(req); f; f = zmsg_next(req))
		c.args[c.n_args++] = f;
	for (i = 0; i < sizeof(s_cmds) / sizeof(s_cmds[0]); i++)
		if (zframe_streq(name, s_cmds[i].name))
			break;
	if (i == sizeof(s_cmds) / sizeof(s_cmds[0])) {
		if (!s_jobs_ctl(&c, name)) {
			c.failed = true;
			buf_puts(&c.out, "unknown control command");
		}
	} else {
		s_cmds[i].fn(&c);
	}
	zmsg_addstr(reply, c.failed ? "error" : "ok");
	zmsg_addmem(reply, c.out.data, c.out.len);
	buf_free(&c.out);
	return 0;
}
