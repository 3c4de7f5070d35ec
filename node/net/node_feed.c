/*
 * node_feed: this node's own feed: signing, storing and pushing its
 * records (node_append_record), its advert (republished when a board's
 * state or queue changes), and the synthetic records of the control
 * command append-records (a testing aid).
 *
 * Layout: append; synthetic records; advert; the append-records timer.
 */
#include "node/net/node_int.h"

#include "proto/log.h"
#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Sign and store the next record of our feed; *ret_bytes is the caller's. */
static int s_append(node_t *node, const record_t *tmpl, uint8_t **ret_bytes,
		    size_t *ret_len)
{
	static const uint8_t zero[WIRE_ID_BYTES];
	const store_feed_t *f = store_feed(node->store, node->key.pk);
	uint64_t seq = f ? f->seq + 1 : 1;
	wire_record_t rec;
	store_rec_t sr;
	uint8_t *bytes;
	size_t blen;
	int rc;

	if (f && f->flagged)
		return -EPERM;
	rc = wire_record_sign(&node->key, tmpl, seq, f ? f->head : zero,
			      node_wall_ms(), &bytes, &blen, &rec);
	if (rc < 0)
		return rc;
	sr = wire_store_rec(&rec, bytes, blen);
	rc = store_put_record(node->store, &sr);
	if (rc != STORE_ADDED) {
		free(bytes);
		return rc < 0 ? rc : -EIO;
	}
	*ret_bytes = bytes;
	*ret_len = blen;
	return 0;
}

int node_append_record(node_t *node, const record_t *tmpl)
{
	uint8_t *bytes = NULL;
	size_t blen = 0;
	int rc = store_begin(node->store);

	if (rc < 0)
		return rc;
	rc = s_append(node, tmpl, &bytes, &blen);
	if (rc < 0) {
		store_rollback(node->store);
		return rc;
	}
	rc = store_commit(node->store);
	if (rc == 0) /* pushed only once durable */
		repl_pushed_own(node, store_feed(node->store,
						 node->key.pk)->seq,
				bytes, blen);
	free(bytes);
	return rc;
}

/* Append n synthetic records in one transaction (debug append-records). */
static int s_append_synthetic(node_t *node, uint64_t n)
{
	int rc = store_begin(node->store);

	for (uint64_t i = 0; rc == 0 && i < n; i++) {
		uint8_t *bytes = NULL;
		size_t blen = 0;
		record_t tmpl;
		char text[64];

		wire_event_tmpl(&tmpl, i, text, sizeof(text));
		rc = s_append(node, &tmpl, &bytes, &blen);
		free(bytes);
	}
	if (rc < 0) {
		store_rollback(node->store);
		return rc;
	}
	rc = store_commit(node->store);
	repl_vec_sync(node, node->key.pk);
	if (rc == 0) {
		node->vec_dirty = true;
		repl_send_vectors(node);
	}
	return rc;
}

/* The boards' notes as advert info entries "maint.I", "busy.I",
 * "lease.I" and "health.I" (I the
 * board's index), added after the template's own entries (what the lab
 * builds), as many as the info map holds; wire_advert_tmpl_free frees
 * them with the rest. */
static void s_advert_notes(node_t *node, record_t *tmpl)
{
	size_t n = tmpl->advert.n_info;
	proto_kv_t *kv = xreallocarray((void *)tmpl->advert.info,
				       PROTO_MAX_INFO, sizeof(*kv));

	static const char *const names[NODE_NOTES] = { "maint", "busy",
						       "lease", "health" };

	for (size_t i = 0;
	     i < NODE_NOTES * node->cfg->n_boards && n < PROTO_MAX_INFO; i++) {
		if (!node->board_notes[i] ||
		    i / NODE_NOTES >= PROTO_MAX_BOARDS)
			continue;
		kv[n].key = xasprintf("%s.%zu", names[i % NODE_NOTES],
				      i / NODE_NOTES);
		kv[n].value = xstrdup(node->board_notes[i]);
		n++;
	}
	tmpl->advert.info = kv;
	tmpl->advert.n_info = n;
}

/* Publish our advert when it differs from the last one we signed. */
int node_publish_advert(node_t *node)
{
	uint8_t *last = NULL;
	size_t last_len = 0;
	record_t tmpl;
	int rc;

	wire_advert_tmpl(node->cfg, node->key.pk, node->board_state,
			 node->board_queue, &tmpl);
	s_advert_notes(node, &tmpl);
	rc = store_latest_own(node->store, node->key.pk, RECORD_ADVERT, &last,
			      &last_len);
	if (rc == 0 &&
	    wire_record_same_body(&node->key, &tmpl, last, last_len)) {
		rc = 0;
	} else {
		rc = node_append_record(node, &tmpl);
		if (rc == 0)
			log_info("advert published: lab %s, %zu board(s)",
				 node->cfg->name, node->cfg->n_boards);
	}
	free(last);
	wire_advert_tmpl_free(&tmpl);
	return rc;
}

int node_set_board(node_t *node, const char *board, int state,
		   uint32_t queue)
{
	for (size_t i = 0; i < node->cfg->n_boards; i++) {
		if (strcmp(node->cfg->boards[i].name, board) != 0)
			continue;
		if (state < BOARD_IDLE || state > BOARD_STATE_MAX)
			return -EINVAL;
		node->board_state[i] = state;
		node->board_queue[i] = queue;
		return node_publish_advert(node);
	}
	return -ENOENT;
}

/* ---- append-records ------------------------------------------------ */

static int s_handle_debug_append(zloop_t *loop, int timer_id, void *arg)
{
	node_t *node = arg;
	uint64_t n = node->debug_append_left < NODE_APPEND_CHUNK ?
			     node->debug_append_left : NODE_APPEND_CHUNK;
	int rc = s_append_synthetic(node, n);

	if (rc < 0) {
		log_error("append-records: %s", wire_strerror(rc));
		node->debug_append_left = 0;
	} else {
		node->debug_append_left -= n;
	}
	if (node->debug_append_left == 0) {
		zloop_timer_end(loop, node->debug_timer);
		node->debug_timer = -1;
		log_info("append-records: done, own feed at seq %" PRIu64,
			 store_feed(node->store, node->key.pk)->seq);
	}
	return 0;
}

void node_debug_append(node_t *node, uint64_t n)
{
	node->debug_append_left += n;
	if (node->debug_timer < 0)
		node->debug_timer = zloop_timer(node->loop, 1, 0,
						s_handle_debug_append, node);
}
