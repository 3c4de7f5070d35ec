/*
 * wire: the node's adapter over proto — keys, records, descriptors,
 * requests, adverts and messages. See wire.h.
 */
#include "node/store/wire.h"

#include "proto/desc.h"
#include "proto/error.h"
#include "proto/mem.h"
#include "proto/request.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <sodium.h>

/* A signer's time (uint64, its word) as int64: clamped, never wrapped. */
static int64_t s_ms(uint64_t ms)
{
	return ms > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)ms;
}

#ifndef LABMESH_VERSION
#define LABMESH_VERSION "0.1.0"
#endif

const char *wire_strerror(int err)
{
	return proto_strerror(err);
}

void wire_hex(const uint8_t *p, size_t n, char *out)
{
	proto_hex(p, n, out);
}

int wire_unhex(const char *hex, uint8_t *out, size_t n)
{
	return proto_unhex(hex, out, n);
}

int wire_curve_public(const uint8_t *pk, char *ret_z85)
{
	return key_curve_public(pk, ret_z85);
}

static int s_key_finish(wire_key_t *k, char **ret_err)
{
	memcpy(k->pk, k->kp.pk, WIRE_KEY_BYTES);
	if (key_curve(&k->kp, k->curve_pk, k->curve_sk) < 0) {
		*ret_err = xstrdup("node key cannot be converted to CURVE");
		return -EINVAL;
	}
	return 0;
}

int wire_key_load_or_make(const char *path, wire_key_t *ret_key,
			  char **ret_err)
{
	char err[256] = "";
	int rc;

	memset(ret_key, 0, sizeof(*ret_key));
	rc = key_load(path, &ret_key->kp, err, sizeof(err));
	if (rc == -ENOENT) {
		rc = key_generate(&ret_key->kp);
		if (rc == 0)
			rc = key_save(&ret_key->kp, path, false, err,
				      sizeof(err));
	}
	if (rc < 0) {
		*ret_err = xstrdup(*err ? err : proto_strerror(rc));
		wire_key_wipe(ret_key);
		return rc;
	}
	return s_key_finish(ret_key, ret_err);
}

int wire_key_generate(const char *path, bool force, wire_key_t *ret_key,
		      char **ret_err)
{
	char err[256] = "";
	int rc;

	memset(ret_key, 0, sizeof(*ret_key));
	rc = key_generate(&ret_key->kp);
	if (rc == 0)
		rc = key_save(&ret_key->kp, path, force, err, sizeof(err));
	if (rc < 0) {
		*ret_err = xstrdup(*err ? err : proto_strerror(rc));
		wire_key_wipe(ret_key);
		return rc;
	}
	return s_key_finish(ret_key, ret_err);
}

void wire_key_wipe(wire_key_t *key)
{
	sodium_memzero(key, sizeof(*key));
}

/* ---- records ---------------------------------------------------------- */

static void s_head(const record_head_t *h, wire_record_t *r)
{
	memcpy(r->id, h->id, WIRE_ID_BYTES);
	memcpy(r->author, h->author, WIRE_KEY_BYTES);
	if (h->has_prev)
		memcpy(r->prev_id, h->prev_id, WIRE_ID_BYTES);
	else
		memset(r->prev_id, 0, WIRE_ID_BYTES);
	r->seq = h->seq;
	r->kind = (int)h->kind;
	r->ts_ms = s_ms(h->ts_ms);
}

int wire_record_verify(const uint8_t *bytes, size_t len, wire_record_t *ret)
{
	record_head_t h;
	int rc = record_verify(bytes, len, &h);

	if (rc < 0)
		return rc;
	s_head(&h, ret);
	return 0;
}

store_rec_t wire_store_rec(const wire_record_t *r, const uint8_t *bytes,
			   size_t len)
{
	return (store_rec_t){ .id = r->id, .author = r->author,
			      .prev_id = r->prev_id, .seq = r->seq,
			      .kind = r->kind, .ts_ms = r->ts_ms,
			      .bytes = bytes, .len = len };
}

int wire_record_sign(const wire_key_t *key, const record_t *tmpl,
		     uint64_t seq, const uint8_t *prev_id, int64_t ts_ms,
		     uint8_t **ret_bytes, size_t *ret_len,
		     wire_record_t *ret_rec)
{
	record_t r = *tmpl;
	uint8_t id[WIRE_ID_BYTES];
	int rc;

	r.head.seq = seq;
	r.head.has_prev = seq > 1;
	if (seq > 1)
		memcpy(r.head.prev_id, prev_id, WIRE_ID_BYTES);
	r.head.ts_ms = (uint64_t)ts_ms;
	/* record_sign already runs its output through the strict decoder
	 * and verifier, so the head is known good without a second pass */
	rc = record_sign(&r, &key->kp, ret_bytes, ret_len, id);
	if (rc < 0 || !ret_rec)
		return rc;
	memcpy(r.head.id, id, WIRE_ID_BYTES);
	memcpy(r.head.author, key->kp.pk, WIRE_KEY_BYTES);
	s_head(&r.head, ret_rec);
	return 0;
}

bool wire_record_same_body(const wire_key_t *key, const record_t *tmpl,
			   const uint8_t *bytes, size_t len)
{
	wire_record_t old;
	uint8_t *b = NULL;
	size_t blen = 0;
	bool same;

	if (wire_record_verify(bytes, len, &old) < 0 ||
	    old.kind != (int)tmpl->head.kind)
		return false;
	/* Ed25519 is deterministic: equal bytes iff equal body */
	if (wire_record_sign(key, tmpl, old.seq, old.prev_id, old.ts_ms, &b,
			     &blen, NULL) < 0)
		return false;
	same = blen == len && memcmp(b, bytes, len) == 0;
	free(b);
	return same;
}

int wire_record_decode(const uint8_t *bytes, size_t len, record_t **ret)
{
	return record_decode(bytes, len, ret);
}

int wire_record_sign_as(const key_pair_t *kp, const record_t *rec,
			uint8_t **ret_bytes, size_t *ret_len, uint8_t *ret_id)
{
	return record_sign(rec, kp, ret_bytes, ret_len, ret_id);
}

void wire_event_tmpl(record_t *tmpl, uint64_t n, char *text, size_t textsz)
{
	memset(tmpl, 0, sizeof(*tmpl));
	snprintf(text, textsz, "synthetic record %llu",
		 (unsigned long long)n);
	tmpl->head.kind = RECORD_EVENT;
	tmpl->event.has_request = false;
	tmpl->event.board = "debug";
	tmpl->event.state = JOB_QUEUED;
	tmpl->event.suite = "";
	tmpl->event.text = text;
}

/* ---- adverts ---------------------------------------------------------- */

static char *s_join(const char *const *v, size_t n)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	s = xzalloc(len);
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(s, ",");
		strcat(s, v[i]);
	}
	return s;
}

/* The note "lease.I" into w: "LEASE HOLDER UNTIL_MS [NAME]". */
static void s_lease_note(const char *v, wire_board_t *w)
{
	char a[64], b[64], c[64];
	long long t;
	int k = sscanf(v, "%63s %63s %lld %63s", a, b, &t, c);

	if (w->lease || k < 3)
		return;
	w->lease = xstrdup(a);
	w->holder = xstrdup(b);
	w->holder_name = k == 4 ? xstrdup(c) : NULL;
	w->lease_until_ms = t;
}

/* The note "maint.I", "busy.I", "lease.I" or "health.I" of the info map
 * into board I of ret. Notes that do not parse are ignored: they only
 * add to the display. */
static void s_board_note(const proto_kv_t *kv, wire_advert_t *ret)
{
	bool lease = strncmp(kv->key, "lease.", 6) == 0;
	bool busy = strncmp(kv->key, "busy.", 5) == 0;
	bool health = strncmp(kv->key, "health.", 7) == 0;
	const char *p = kv->key + (busy ? 5 : health ? 7 : 6);
	char *end, a[64], b[64], c[64];
	unsigned long i;
	long long t;
	int k;
	wire_board_t *w;

	if (!busy && !lease && !health && strncmp(kv->key, "maint.", 6) != 0)
		return;
	i = strtoul(p, &end, 10);
	if (*end || end == p || i >= ret->n_boards)
		return;
	w = &ret->boards[i];
	if (health) {
		if (!w->health)
			w->health = xstrdup(kv->value);
		return;
	}
	if (lease) {
		s_lease_note(kv->value, w);
		return;
	}
	if (busy && !w->request &&
	    (k = sscanf(kv->value, "%63s %63s %lld %63s", a, b, &t, c)) >= 3) {
		w->request = xstrdup(a);
		w->submitter = xstrdup(b);
		w->submitter_name = k == 4 ? xstrdup(c) : NULL;
		w->since_ms = t;
	} else if (!busy && !w->reason) {
		t = strtoll(kv->value, &end, 10);
		if (*end == ' ' && t >= 0) {
			w->until_ms = t;
			w->reason = xstrdup(end + 1);
		}
	}
}

int wire_advert_decode(const uint8_t *bytes, size_t len, wire_advert_t *ret)
{
	record_t *r = NULL;
	int rc = record_decode(bytes, len, &r);

	memset(ret, 0, sizeof(*ret));
	if (rc < 0)
		return rc;
	if (r->head.kind != RECORD_ADVERT) {
		record_destroy(&r);
		return -EINVAL;
	}
	ret->lab = xstrdup(r->advert.lab);
	ret->n_boards = r->advert.n_boards;
	ret->boards = xcalloc(ret->n_boards ? ret->n_boards : 1,
			      sizeof(*ret->boards));
	for (size_t i = 0; i < ret->n_boards; i++) {
		const record_board_t *b = &r->advert.boards[i];
		wire_board_t *w = &ret->boards[i];

		w->name = xstrdup(b->name);
		w->arch = xstrdup(b->arch);
		w->machine = xstrdup(b->machine);
		w->tags = s_join(b->tags, b->n_tags);
		w->transport = xstrdup(b->transport);
		w->boot = xstrdup(b->boot);
		w->state = xstrdup(board_state_name((int)b->state));
		w->queue = b->queue_len;
		w->builds = xstrdup("");
		for (size_t k = 0; k < r->advert.n_info; k++) {
			const proto_kv_t *kv = &r->advert.info[k];

			if (strncmp(kv->key, "build-", 6) == 0 &&
			    strcmp(kv->key + 6, b->arch) == 0) {
				free(w->builds);
				w->builds = xstrdup(kv->value);
			}
		}
	}
	for (size_t i = 0; i < r->advert.n_info; i++)
		s_board_note(&r->advert.info[i], ret);
	record_destroy(&r);
	return 0;
}

void wire_advert_free(wire_advert_t *a)
{
	for (size_t i = 0; i < a->n_boards; i++) {
		wire_board_t *w = &a->boards[i];

		free(w->name);
		free(w->arch);
		free(w->machine);
		free(w->tags);
		free(w->transport);
		free(w->boot);
		free(w->state);
		free(w->builds);
		free(w->reason);
		free(w->request);
		free(w->submitter);
		free(w->submitter_name);
		free(w->lease);
		free(w->holder);
		free(w->holder_name);
		free(w->health);
	}
	free(a->boards);
	free(a->lab);
	memset(a, 0, sizeof(*a));
}

/* ---- descriptors and requests -------------------------------------------- */

int wire_desc_make(const wire_key_t *key, const char *lab,
		   const char *endpoint, uint8_t **ret_bytes, size_t *ret_len)
{
	const char *eps[1] = { endpoint };
	node_desc_t d = { 0 };
	uint8_t id[32];
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	d.lab = lab;
	d.endpoints = eps;
	d.n_endpoints = endpoint ? 1 : 0;
	d.software = "labmesh " LABMESH_VERSION;
	d.ts_ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	d.epoch = d.ts_ms; /* raised at every start: newer wins */
	return desc_sign(&d, &key->kp, ret_bytes, ret_len, id);
}

int wire_desc_verify(const uint8_t *bytes, size_t len, wire_desc_t *ret)
{
	node_desc_t *d = NULL;
	int rc = desc_decode(bytes, len, &d);

	if (rc < 0)
		return rc;
	memset(ret, 0, sizeof(*ret));
	memcpy(ret->id, d->node_id, WIRE_KEY_BYTES);
	snprintf(ret->lab, sizeof(ret->lab), "%s", d->lab);
	if (d->n_endpoints)
		snprintf(ret->endpoint, sizeof(ret->endpoint), "%s",
			 d->endpoints[0]);
	ret->ts_ms = s_ms(d->ts_ms);
	desc_destroy(&d);
	return 0;
}

int wire_request_verify(const uint8_t *bytes, size_t len,
			uint64_t max_lifetime_ms, uint8_t *ret_id,
			int64_t *ret_expires_ms)
{
	request_t *r = NULL;
	int rc = request_decode(bytes, len, &r);

	if (rc < 0)
		return rc;
	/* decode bounds both times by PROTO_MAX_TIME_MS: no cast wraps */
	if (r->expires_ms - r->created_ms > max_lifetime_ms) {
		request_destroy(&r);
		return PROTO_E_LIFETIME;
	}
	memcpy(ret_id, r->id, WIRE_ID_BYTES);
	*ret_expires_ms = (int64_t)r->expires_ms;
	request_destroy(&r);
	return 0;
}

int wire_request_decode(const uint8_t *bytes, size_t len, request_t **ret)
{
	return request_decode(bytes, len, ret);
}

int wire_request_sign(const request_t *req, const key_pair_t *kp,
		      uint8_t **ret_bytes, size_t *ret_len, uint8_t *ret_id)
{
	return request_sign(req, kp, ret_bytes, ret_len, ret_id);
}

int wire_cancel_sign(const uint8_t *request_id, uint64_t ts_ms,
		     const key_pair_t *kp, uint8_t **ret_bytes,
		     size_t *ret_len, uint8_t *ret_id)
{
	return cancel_sign(request_id, ts_ms, kp, ret_bytes, ret_len, ret_id);
}

/* ---- messages ----------------------------------------------------------- */

static void s_from_msg(wire_msg_t *w, msg_t *m)
{
	switch (m->type) {
	case MSG_HELLO:
		w->type = WIRE_HELLO;
		w->desc = m->hello.desc;
		break;
	case MSG_PEERS:
		w->type = WIRE_PEERS;
		w->items = m->peers.descs;
		w->n_items = m->peers.n;
		break;
	case MSG_PEERS_DELTA:
		w->type = WIRE_PEERS_DELTA;
		w->items = m->peers.descs;
		w->n_items = m->peers.n;
		w->gone = m->peers.gone;
		w->n_gone = m->peers.n_gone;
		break;
	case MSG_REQUEST:
		w->type = WIRE_REQUEST;
		w->items = &m->request;
		w->n_items = 1;
		break;
	case MSG_REQUEST_IDS:
		w->type = WIRE_REQUEST_IDS;
		w->owned = xcalloc(m->request_ids.n ? m->request_ids.n : 1,
				   sizeof(*w->owned));
		for (size_t i = 0; i < m->request_ids.n; i++)
			w->owned[i] = (wire_bytes_t){
				m->request_ids.ids + i * WIRE_ID_BYTES,
				WIRE_ID_BYTES };
		w->items = w->owned;
		w->n_items = m->request_ids.n;
		break;
	case MSG_SUBDIGEST:
		w->type = WIRE_SUBDIGEST;
		w->range = m->subdigest.range;
		w->subs = m->subdigest.subs;
		w->n_subs = m->subdigest.n;
		break;
	case MSG_SUBRANGES:
		w->type = WIRE_SUBRANGES;
		w->range = m->subranges.range;
		w->mask = m->subranges.mask;
		w->vec = m->subranges.entries;
		w->n_vec = m->subranges.n;
		break;
	case MSG_REQUEST_SUMMARY:
		w->type = WIRE_REQUEST_SUMMARY;
		w->req_sum = m->request_summary.buckets;
		w->n_buckets = m->request_summary.n;
		break;
	case MSG_REQUEST_IDS_IN:
		w->type = WIRE_REQUEST_IDS_IN;
		w->buckets = m->request_ids_in.buckets;
		w->n_buckets = m->request_ids_in.n_buckets;
		w->owned = xcalloc(m->request_ids_in.n ? m->request_ids_in.n : 1,
				   sizeof(*w->owned));
		for (size_t i = 0; i < m->request_ids_in.n; i++)
			w->owned[i] = (wire_bytes_t){
				m->request_ids_in.ids + i * WIRE_ID_BYTES,
				WIRE_ID_BYTES };
		w->items = w->owned;
		w->n_items = m->request_ids_in.n;
		break;
	case MSG_VECTOR:
		w->type = WIRE_VECTOR;
		w->vec = m->vector.entries;
		w->n_vec = m->vector.n;
		break;
	case MSG_RANGES:
		w->type = WIRE_RANGES;
		w->vec = m->ranges.entries;
		w->n_vec = m->ranges.n;
		w->mask = m->ranges.mask;
		break;
	case MSG_DIGEST:
		w->type = WIRE_DIGEST;
		w->ranges = m->digest.ranges;
		break;
	case MSG_WANT:
		w->type = WIRE_WANT;
		memcpy(w->author, m->want.author, WIRE_KEY_BYTES);
		w->from = m->want.from_seq;
		w->max = m->want.max;
		break;
	case MSG_RECORDS:
		w->type = WIRE_RECORDS;
		w->items = m->records.recs;
		w->n_items = m->records.n;
		break;
	case MSG_CREDIT:
		w->type = WIRE_CREDIT;
		w->max = m->credit;
		break;
	case MSG_PING:
	case MSG_PONG:
		w->type = WIRE_PING;
		w->nonce = m->nonce;
		w->pong = m->type == MSG_PONG;
		break;
	default:
		w->type = WIRE_OTHER;
		break;
	}
}

int wire_msg_decode(const uint8_t *bytes, size_t len, wire_msg_t *ret)
{
	msg_t *m = NULL;
	int rc = msg_decode(bytes, len, WIRE_MAX_MSG, &m);

	memset(ret, 0, sizeof(*ret));
	if (rc < 0)
		return rc;
	ret->msg = m;
	s_from_msg(ret, m);
	return 0;
}

void wire_msg_free(wire_msg_t *m)
{
	msg_destroy(&m->msg);
	free(m->owned);
	memset(m, 0, sizeof(*m));
}

static int s_encode(const msg_t *m, uint8_t **ret, size_t *ret_len)
{
	return msg_encode(m, ret, ret_len);
}

int wire_hello(const uint8_t *desc, size_t desc_len, bool digest,
	       bool answer, uint8_t **ret, size_t *ret_len)
{
	msg_t m = { .type = MSG_HELLO };

	m.hello.version = PROTO_VERSION;
	/* older nodes refuse lease messages, blob-gets with hops, digests
	 * and ranges as garbage: sent only to peers that say they take them;
	 * and they do not stop a relay's pushes, so get none */
	m.hello.features = MSG_FEATURE_LEASE | MSG_FEATURE_BLOB_RELAY |
			   MSG_FEATURE_PUSH | MSG_FEATURE_WANT_STOP |
			   (digest ? MSG_FEATURE_DIGEST |
					     MSG_FEATURE_PEERS_DELTA |
					     MSG_FEATURE_REQ_SUMMARY |
					     MSG_FEATURE_SUBDIGEST :
				     0) |
			   (answer ? MSG_HELLO_ANSWER : 0);
	m.hello.desc = (proto_bytes_t){ desc, desc_len };
	return s_encode(&m, ret, ret_len);
}

int wire_peers(const wire_bytes_t *descs, size_t n, uint8_t **ret,
	       size_t *ret_len)
{
	msg_t m = { .type = MSG_PEERS };

	m.peers.descs = descs;
	m.peers.n = n;
	return s_encode(&m, ret, ret_len);
}

int wire_peers_delta(const wire_bytes_t *descs, size_t n,
		     const uint8_t (*gone)[WIRE_KEY_BYTES], size_t n_gone,
		     uint8_t **ret, size_t *ret_len)
{
	msg_t m = { .type = MSG_PEERS_DELTA };

	m.peers.descs = descs;
	m.peers.n = n;
	m.peers.gone = (const uint8_t *)gone;
	m.peers.n_gone = n_gone;
	return s_encode(&m, ret, ret_len);
}

int wire_request(const uint8_t *req, size_t len, uint8_t **ret,
		 size_t *ret_len)
{
	msg_t m = { .type = MSG_REQUEST };

	m.request = (proto_bytes_t){ req, len };
	return s_encode(&m, ret, ret_len);
}

int wire_request_ids(const uint8_t (*ids)[WIRE_ID_BYTES], size_t n,
		     uint8_t **ret, size_t *ret_len)
{
	msg_t m = { .type = MSG_REQUEST_IDS };

	m.request_ids.ids = (const uint8_t *)ids;
	m.request_ids.n = n;
	return s_encode(&m, ret, ret_len);
}

int wire_request_summary(const wire_req_bucket_t *b, size_t n, uint8_t **ret,
			 size_t *ret_len)
{
	msg_t m = { .type = MSG_REQUEST_SUMMARY };

	m.request_summary.buckets = b;
	m.request_summary.n = n;
	return s_encode(&m, ret, ret_len);
}

int wire_request_ids_in(const uint32_t *buckets, size_t n_buckets,
			const uint8_t (*ids)[WIRE_ID_BYTES], size_t n,
			uint8_t **ret, size_t *ret_len)
{
	msg_t m = { .type = MSG_REQUEST_IDS_IN };

	m.request_ids_in.buckets = buckets;
	m.request_ids_in.n_buckets = n_buckets;
	m.request_ids_in.ids = (const uint8_t *)ids;
	m.request_ids_in.n = n;
	return s_encode(&m, ret, ret_len);
}

static int s_cmp_author(const void *a, const void *b)
{
	return memcmp(((const wire_vec_t *)a)->author,
		      ((const wire_vec_t *)b)->author, WIRE_KEY_BYTES);
}

/* A sorted copy of v (the format wants authors in ascending byte order);
 * the caller frees it. */
static wire_vec_t *s_sorted(const wire_vec_t *v, size_t n)
{
	wire_vec_t *sorted = xcalloc(n ? n : 1, sizeof(*sorted));

	memcpy(sorted, v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), s_cmp_author);
	return sorted;
}

int wire_vector(const wire_vec_t *v, size_t n, uint8_t **ret, size_t *ret_len)
{
	wire_vec_t *sorted = s_sorted(v, n);
	msg_t m = { .type = MSG_VECTOR };
	int rc;

	m.vector.entries = sorted;
	m.vector.n = n;
	rc = s_encode(&m, ret, ret_len);
	free(sorted);
	return rc;
}

int wire_ranges(uint64_t mask, const wire_vec_t *v, size_t n, uint8_t **ret,
		size_t *ret_len)
{
	wire_vec_t *sorted = s_sorted(v, n);
	msg_t m = { .type = MSG_RANGES };
	int rc;

	m.ranges.mask = mask;
	m.ranges.entries = sorted;
	m.ranges.n = n;
	rc = s_encode(&m, ret, ret_len);
	free(sorted);
	return rc;
}

int wire_digest(const wire_range_t *ranges, uint8_t **ret, size_t *ret_len)
{
	msg_t m = { .type = MSG_DIGEST };

	m.digest.ranges = ranges;
	return s_encode(&m, ret, ret_len);
}

int wire_subdigest(uint32_t range, const wire_sub_range_t *subs, size_t n,
		   uint8_t **ret, size_t *ret_len)
{
	msg_t m = { .type = MSG_SUBDIGEST };

	m.subdigest.range = range;
	m.subdigest.subs = subs;
	m.subdigest.n = n;
	return s_encode(&m, ret, ret_len);
}

int wire_subranges(uint32_t range, uint64_t mask, const wire_vec_t *v,
		   size_t n, uint8_t **ret, size_t *ret_len)
{
	wire_vec_t *sorted = s_sorted(v, n);
	msg_t m = { .type = MSG_SUBRANGES };
	int rc;

	m.subranges.range = range;
	m.subranges.mask = mask;
	m.subranges.entries = sorted;
	m.subranges.n = n;
	rc = s_encode(&m, ret, ret_len);
	free(sorted);
	return rc;
}

int wire_want(const uint8_t *author, uint64_t from, uint64_t max,
	      uint8_t **ret, size_t *ret_len)
{
	msg_t m = { .type = MSG_WANT };

	memcpy(m.want.author, author, WIRE_KEY_BYTES);
	m.want.from_seq = from;
	m.want.max = (uint32_t)(max > PROTO_MAX_WANT ? PROTO_MAX_WANT : max);
	return s_encode(&m, ret, ret_len);
}

int wire_records(const wire_bytes_t *recs, size_t n, uint8_t **ret,
		 size_t *ret_len)
{
	msg_t m = { .type = MSG_RECORDS };

	m.records.recs = recs;
	m.records.n = n;
	return s_encode(&m, ret, ret_len);
}

int wire_credit(uint64_t n, uint8_t **ret, size_t *ret_len)
{
	msg_t m = { .type = MSG_CREDIT };

	if (n == 0)
		return -EINVAL;
	m.credit = (uint32_t)(n > PROTO_MAX_CREDIT ? PROTO_MAX_CREDIT : n);
	return s_encode(&m, ret, ret_len);
}

int wire_ping(uint64_t nonce, bool pong, uint8_t **ret, size_t *ret_len)
{
	msg_t m = { .type = pong ? MSG_PONG : MSG_PING };

	m.nonce = nonce;
	return s_encode(&m, ret, ret_len);
}

/* ---- the jobs side ---- */

int wire_request_open(const uint8_t *bytes, size_t len, request_t **ret)
{
	return request_decode(bytes, len, ret);
}

int wire_cancel_open(const uint8_t *bytes, size_t len, request_cancel_t *ret)
{
	return cancel_decode(bytes, len, ret);
}

int wire_cancel(const uint8_t *cancel, size_t len, uint8_t **ret,
		size_t *ret_len)
{
	msg_t m = { .type = MSG_CANCEL };

	m.cancel = (proto_bytes_t){ cancel, len };
	return s_encode(&m, ret, ret_len);
}

int wire_blob_get(const uint8_t *blob_id, uint64_t offset, uint32_t length,
		  uint32_t hops, uint8_t **ret, size_t *ret_len)
{
	msg_t m = { .type = MSG_BLOB_GET };

	memcpy(m.blob_get.blob_id, blob_id, 32);
	m.blob_get.offset = offset;
	m.blob_get.length = length;
	m.blob_get.hops = hops;
	return s_encode(&m, ret, ret_len);
}

int wire_blob_data(const uint8_t *blob_id, uint64_t offset, uint64_t total,
		   const uint8_t *data, size_t len, uint8_t **ret,
		   size_t *ret_len)
{
	msg_t m = { .type = MSG_BLOB_DATA };

	memcpy(m.blob_data.blob_id, blob_id, 32);
	m.blob_data.offset = offset;
	m.blob_data.total = total;
	m.blob_data.data = (proto_bytes_t){ data, len };
	return s_encode(&m, ret, ret_len);
}

int wire_job_key(uint8_t *ret_seed, uint8_t *ret_pk)
{
	key_pair_t kp;
	int rc;

	randombytes_buf(ret_seed, 32);
	rc = key_from_seed(ret_seed, &kp);
	if (rc == 0)
		memcpy(ret_pk, kp.pk, 32);
	key_wipe(&kp);
	return rc < 0 ? -EIO : 0;
}

int wire_run_sign(const uint8_t *seed, const record_t *tmpl,
		  uint8_t **ret_bytes, size_t *ret_len)
{
	record_t t = *tmpl;
	key_pair_t kp;
	uint8_t id[WIRE_ID_BYTES];
	int rc = key_from_seed(seed, &kp);

	if (rc < 0)
		return -EIO;
	t.head.seq = 1;
	t.head.has_prev = false;
	rc = record_sign(&t, &kp, ret_bytes, ret_len, id);
	key_wipe(&kp);
	return rc;
}

int wire_run_open(const uint8_t *bytes, size_t len, const uint8_t *pk,
		  record_t **ret)
{
	record_t *rec = NULL;
	int rc = record_decode(bytes, len, &rec);

	if (rc < 0)
		return rc;
	if (rec->head.kind != RECORD_RUN ||
	    sodium_memcmp(rec->head.author, pk, 32) != 0) {
		record_destroy(&rec);
		return -EPERM;
	}
	*ret = rec;
	return 0;
}
