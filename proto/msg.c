/*
 * msg: node-to-node messages. See msg.h for the forms. One decoder and one
 * encoder per type, dispatched on the tag; msg_decode re-encodes what it
 * accepted and compares, like every other decoder here.
 */
#include "proto/msg.h"
#include "proto/codec.h"
#include "proto/mem.h"

#include <stdlib.h>
#include <string.h>

static const char *const s_names[] = {
	[MSG_HELLO] = "hello",	     [MSG_PEERS] = "peers",
	[MSG_REQUEST] = "request",   [MSG_REQUEST_IDS] = "request-ids",
	[MSG_VECTOR] = "vector",     [MSG_WANT] = "want",
	[MSG_RECORDS] = "records",   [MSG_CREDIT] = "credit",
	[MSG_BLOB_GET] = "blob-get", [MSG_BLOB_DATA] = "blob-data",
	[MSG_PING] = "ping",	     [MSG_PONG] = "pong",
	[MSG_CANCEL] = "cancel",     [MSG_LEASE] = "lease",
	[MSG_RELAY] = "relay",	     [MSG_RELAY_BACK] = "relay-back",
	[MSG_DIGEST] = "digest",     [MSG_RANGES] = "ranges",
	[MSG_PEERS_DELTA] = "peers-delta",
	[MSG_REQUEST_SUMMARY] = "request-summary",
	[MSG_REQUEST_IDS_IN] = "request-ids-in",
	[MSG_SUBDIGEST] = "subdigest",
	[MSG_SUBRANGES] = "subranges",
};

/* Number of fields after the tag, per type. */
static const uint32_t s_arity[] = {
	[MSG_HELLO] = 3,       [MSG_PEERS] = 1,	 [MSG_REQUEST] = 1,
	[MSG_REQUEST_IDS] = 1, [MSG_VECTOR] = 1, [MSG_WANT] = 3,
	[MSG_RECORDS] = 1,     [MSG_CREDIT] = 1, [MSG_BLOB_GET] = 3,
	[MSG_BLOB_DATA] = 4,   [MSG_PING] = 1,	 [MSG_PONG] = 1,
	[MSG_CANCEL] = 1,      [MSG_LEASE] = 1,	 [MSG_RELAY] = 3,
	[MSG_RELAY_BACK] = 3,  [MSG_DIGEST] = 1, [MSG_RANGES] = 2,
	[MSG_PEERS_DELTA] = 2, [MSG_REQUEST_SUMMARY] = 1,
	[MSG_REQUEST_IDS_IN] = 2, [MSG_SUBDIGEST] = 2,
	[MSG_SUBRANGES] = 3,
};

const char *msg_type_name(int type)
{
	if (type < MSG_HELLO || type > MSG_TYPE_MAX)
		return "?";
	return s_names[type];
}

uint32_t msg_req_bucket(uint64_t expires_ms)
{
	uint64_t b = expires_ms / PROTO_REQ_BUCKET_MS;

	return b > UINT32_MAX ? UINT32_MAX : (uint32_t)b;
}

uint64_t msg_req_hash(const uint8_t id[32])
{
	uint64_t h = 0;

	for (int i = 7; i >= 0; i--)
		h = h << 8 | id[i];
	return h;
}

/* ---- lists of nested signed objects (bin each) ---- */

static int s_dec_blobs(mp_reader_t *r, arena_t *a, uint32_t min, uint32_t max,
		       size_t cap, const proto_bytes_t **ret, size_t *ret_n)
{
	uint32_t n;
	int e = mp_get_array(r, 2, max, &n);

	if (e < 0)
		return e;
	if (n < min)
		return PROTO_E_EMPTY;
	proto_bytes_t *b = arena_array(a, n ? n : 1, sizeof(*b));
	for (uint32_t i = 0; i < n; i++) {
		if ((e = mp_get_bin(r, cap, &b[i].p, &b[i].len)) < 0)
			return e;
	}
	*ret = b;
	*ret_n = n;
	return 0;
}

static void s_enc_blobs(mp_enc_t *e, const proto_bytes_t *b, size_t n)
{
	enc_array(e, n);
	for (size_t i = 0; i < n; i++)
		mp_put_bin(e, b[i].p, b[i].len);
}

/* ---- per type ---- */

static int s_dec_hello(mp_reader_t *r, msg_t *m)
{
	uint64_t v;
	int e;

	if ((e = mp_get_uint(r, &v)) < 0)
		return e;
	if (v == 0 || v > UINT32_MAX)
		return PROTO_E_VERSION;
	m->hello.version = (uint32_t)v;
	if ((e = mp_get_uint(r, &m->hello.features)) < 0)
		return e;
	return mp_get_bin(r, PROTO_MAX_DESC, &m->hello.desc.p,
			  &m->hello.desc.len);
}

/* A list of at most max ids of 32 bytes. */
static int s_dec_id_list(mp_reader_t *r, arena_t *a, uint32_t max,
			 const uint8_t **ret, size_t *ret_n)
{
	uint32_t n;
	int e = mp_get_array(r, 34, max, &n);

	if (e < 0)
		return e;
	uint8_t *ids = arena_array(a, n ? n : 1, 32);
	for (uint32_t i = 0; i < n; i++) {
		if ((e = mp_get_bin_exact(r, 32, ids + 32 * (size_t)i)) < 0)
			return e;
	}
	*ret = ids;
	*ret_n = n;
	return 0;
}

/* peers-delta: the descriptors that joined, the ids that left */
static int s_dec_peers_delta(mp_reader_t *r, arena_t *a, msg_t *m)
{
	int e = s_dec_blobs(r, a, 0, PROTO_MAX_PEERS, PROTO_MAX_DESC,
			    &m->peers.descs, &m->peers.n);

	if (e < 0)
		return e;
	return s_dec_id_list(r, a, PROTO_MAX_PEERS, &m->peers.gone,
			     &m->peers.n_gone);
}

static int s_dec_entries(mp_reader_t *r, arena_t *a,
			 const msg_vec_entry_t **ret, size_t *ret_n)
{
	uint32_t n;
	int e = mp_get_array(r, 36, PROTO_MAX_VECTOR, &n);

	if (e < 0)
		return e;
	msg_vec_entry_t *v = arena_array(a, n ? n : 1, sizeof(*v));
	for (uint32_t i = 0; i < n; i++) {
		if ((e = mp_get_array_exact(r, 2)) < 0 ||
		    (e = mp_get_bin_exact(r, 32, v[i].author)) < 0 ||
		    (e = mp_get_uint(r, &v[i].seq)) < 0)
			return e;
		if (v[i].seq == 0)
			return PROTO_E_RANGE;
		/* one entry per author, in order: no duplicates to process */
		if (i > 0 &&
		    (e = mp_key_order((const char *)v[i - 1].author, 32,
				      (const char *)v[i].author, 32)) < 0)
			return e;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

static int s_dec_vector(mp_reader_t *r, arena_t *a, msg_t *m)
{
	return s_dec_entries(r, a, &m->vector.entries, &m->vector.n);
}

static int s_dec_ranges(mp_reader_t *r, arena_t *a, msg_t *m)
{
	int e = mp_get_uint(r, &m->ranges.mask);

	if (e < 0)
		return e;
	return s_dec_entries(r, a, &m->ranges.entries, &m->ranges.n);
}

/* Exactly PROTO_DIGEST_RANGES pairs: a fixed size, nothing to cap. */
static int s_dec_digest(mp_reader_t *r, arena_t *a, msg_t *m)
{
	msg_digest_range_t *d;
	int e = mp_get_array_exact(r, PROTO_DIGEST_RANGES);

	if (e < 0)
		return e;
	d = arena_array(a, PROTO_DIGEST_RANGES, sizeof(*d));
	for (uint32_t i = 0; i < PROTO_DIGEST_RANGES; i++) {
		if ((e = mp_get_array_exact(r, 2)) < 0 ||
		    (e = dec_u32(r, 0, UINT32_MAX, &d[i].count)) < 0 ||
		    (e = mp_get_uint(r, &d[i].hash)) < 0)
			return e;
	}
	m->digest.ranges = d;
	return 0;
}

/* range, [[sub, count, hash]...]: subs strictly ascending, count >= 1 */
static int s_dec_subdigest(mp_reader_t *r, arena_t *a, msg_t *m)
{
	msg_sub_range_t *d;
	uint32_t n;
	int e = dec_u32(r, 0, PROTO_DIGEST_RANGES - 1, &m->subdigest.range);

	if (e < 0 || (e = mp_get_array(r, 4, PROTO_DIGEST_RANGES, &n)) < 0)
		return e;
	d = arena_array(a, n ? n : 1, sizeof(*d));
	for (uint32_t i = 0; i < n; i++) {
		if ((e = mp_get_array_exact(r, 3)) < 0 ||
		    (e = dec_u32(r, 0, PROTO_DIGEST_RANGES - 1, &d[i].sub)) <
			    0 ||
		    (e = dec_u32(r, 1, UINT32_MAX, &d[i].count)) < 0 ||
		    (e = mp_get_uint(r, &d[i].hash)) < 0)
			return e;
		if (i > 0 && d[i].sub <= d[i - 1].sub)
			return PROTO_E_UNSORTED;
	}
	m->subdigest.subs = d;
	m->subdigest.n = n;
	return 0;
}

static int s_dec_subranges(mp_reader_t *r, arena_t *a, msg_t *m)
{
	int e = dec_u32(r, 0, PROTO_DIGEST_RANGES - 1, &m->subranges.range);

	if (e < 0 || (e = mp_get_uint(r, &m->subranges.mask)) < 0)
		return e;
	return s_dec_entries(r, a, &m->subranges.entries, &m->subranges.n);
}

/* [[bucket, count, hash]...]: buckets strictly ascending, count >= 1 */
static int s_dec_req_summary(mp_reader_t *r, arena_t *a, msg_t *m)
{
	msg_req_bucket_t *b;
	uint32_t n;
	int e = mp_get_array(r, 4, PROTO_MAX_REQ_BUCKETS, &n);

	if (e < 0)
		return e;
	b = arena_array(a, n ? n : 1, sizeof(*b));
	for (uint32_t i = 0; i < n; i++) {
		if ((e = mp_get_array_exact(r, 3)) < 0 ||
		    (e = dec_u32(r, 0, UINT32_MAX, &b[i].bucket)) < 0 ||
		    (e = dec_u32(r, 1, UINT32_MAX, &b[i].count)) < 0 ||
		    (e = mp_get_uint(r, &b[i].hash)) < 0)
			return e;
		if (i > 0 && b[i].bucket <= b[i - 1].bucket)
			return PROTO_E_UNSORTED;
	}
	m->request_summary.buckets = b;
	m->request_summary.n = n;
	return 0;
}

/* [bucket...] strictly ascending, then the ids */
static int s_dec_req_ids_in(mp_reader_t *r, arena_t *a, msg_t *m)
{
	uint32_t *b;
	uint32_t n;
	int e = mp_get_array(r, 1, PROTO_MAX_REQ_BUCKETS, &n);

	if (e < 0)
		return e;
	b = arena_array(a, n ? n : 1, sizeof(*b));
	for (uint32_t i = 0; i < n; i++) {
		if ((e = dec_u32(r, 0, UINT32_MAX, &b[i])) < 0)
			return e;
		if (i > 0 && b[i] <= b[i - 1])
			return PROTO_E_UNSORTED;
	}
	m->request_ids_in.buckets = b;
	m->request_ids_in.n_buckets = n;
	return s_dec_id_list(r, a, PROTO_MAX_IDS, &m->request_ids_in.ids,
			     &m->request_ids_in.n);
}

static int s_dec_want(mp_reader_t *r, msg_t *m)
{
	int e;

	if ((e = mp_get_bin_exact(r, 32, m->want.author)) < 0 ||
	    (e = mp_get_uint(r, &m->want.from_seq)) < 0)
		return e;
	if (m->want.from_seq == 0)
		return PROTO_E_RANGE;
	return dec_u32(r, 0, PROTO_MAX_WANT, &m->want.max);
}

static int s_dec_blob_get(mp_reader_t *r, msg_t *m)
{
	int e;

	if ((e = mp_get_bin_exact(r, 32, m->blob_get.blob_id)) < 0 ||
	    (e = mp_get_uint(r, &m->blob_get.offset)) < 0)
		return e;
	return dec_u32(r, 1, PROTO_MAX_BLOB_CHUNK, &m->blob_get.length);
}

static int s_dec_blob_data(mp_reader_t *r, msg_t *m)
{
	int e;

	if ((e = mp_get_bin_exact(r, 32, m->blob_data.blob_id)) < 0 ||
	    (e = mp_get_uint(r, &m->blob_data.offset)) < 0 ||
	    (e = mp_get_uint(r, &m->blob_data.total)) < 0 ||
	    (e = mp_get_bin(r, PROTO_MAX_BLOB_CHUNK, &m->blob_data.data.p,
			    &m->blob_data.data.len)) < 0)
		return e;
	if (m->blob_data.offset > m->blob_data.total ||
	    m->blob_data.data.len > m->blob_data.total - m->blob_data.offset)
		return PROTO_E_RANGE;
	return 0;
}

static int s_dec_relay(mp_reader_t *r, msg_t *m)
{
	int e;

	if ((e = mp_get_bin_exact(r, 32, m->relay.id)) < 0 ||
	    (e = dec_u32(r, 0, PROTO_MAX_HOPS, &m->relay.hops)) < 0)
		return e;
	return mp_get_bin(r, PROTO_MAX_LEASE, &m->relay.body.p,
			  &m->relay.body.len);
}

static int s_dec_body(mp_reader_t *r, arena_t *a, msg_t *m)
{
	switch (m->type) {
	case MSG_HELLO:
		return s_dec_hello(r, m);
	case MSG_PEERS:
		return s_dec_blobs(r, a, 0, PROTO_MAX_PEERS, PROTO_MAX_DESC,
				   &m->peers.descs, &m->peers.n);
	case MSG_PEERS_DELTA:
		return s_dec_peers_delta(r, a, m);
	case MSG_REQUEST:
		return mp_get_bin(r, PROTO_MAX_REQUEST, &m->request.p,
				  &m->request.len);
	case MSG_CANCEL:
		return mp_get_bin(r, PROTO_MAX_CANCEL, &m->cancel.p,
				  &m->cancel.len);
	case MSG_LEASE:
		return mp_get_bin(r, PROTO_MAX_LEASE, &m->lease.p,
				  &m->lease.len);
	case MSG_RELAY:
	case MSG_RELAY_BACK:
		return s_dec_relay(r, m);
	case MSG_REQUEST_IDS:
		return s_dec_id_list(r, a, PROTO_MAX_IDS, &m->request_ids.ids,
				     &m->request_ids.n);
	case MSG_VECTOR:
		return s_dec_vector(r, a, m);
	case MSG_RANGES:
		return s_dec_ranges(r, a, m);
	case MSG_DIGEST:
		return s_dec_digest(r, a, m);
	case MSG_SUBDIGEST:
		return s_dec_subdigest(r, a, m);
	case MSG_SUBRANGES:
		return s_dec_subranges(r, a, m);
	case MSG_REQUEST_SUMMARY:
		return s_dec_req_summary(r, a, m);
	case MSG_REQUEST_IDS_IN:
		return s_dec_req_ids_in(r, a, m);
	case MSG_WANT:
		return s_dec_want(r, m);
	case MSG_RECORDS:
		return s_dec_blobs(r, a, 1, PROTO_MAX_BATCH, PROTO_MAX_RECORD,
				   &m->records.recs, &m->records.n);
	case MSG_CREDIT:
		return dec_u32(r, 1, PROTO_MAX_CREDIT, &m->credit);
	case MSG_BLOB_GET:
		return s_dec_blob_get(r, m);
	case MSG_BLOB_DATA:
		return s_dec_blob_data(r, m);
	case MSG_PING:
	case MSG_PONG:
		return mp_get_uint(r, &m->nonce);
	}
	return PROTO_E_KIND;
}

static void s_enc_entries(mp_enc_t *e, const msg_vec_entry_t *v, size_t n)
{
	enc_array(e, n);
	for (size_t i = 0; i < n; i++) {
		mp_put_array(e, 2);
		mp_put_bin(e, v[i].author, 32);
		mp_put_uint(e, v[i].seq);
	}
}

static void s_enc_body(mp_enc_t *e, const msg_t *m)
{
	switch (m->type) {
	case MSG_HELLO:
		mp_put_uint(e, m->hello.version);
		mp_put_uint(e, m->hello.features);
		mp_put_bin(e, m->hello.desc.p, m->hello.desc.len);
		return;
	case MSG_PEERS:
		s_enc_blobs(e, m->peers.descs, m->peers.n);
		return;
	case MSG_PEERS_DELTA:
		s_enc_blobs(e, m->peers.descs, m->peers.n);
		enc_array(e, m->peers.n_gone);
		for (size_t i = 0; i < m->peers.n_gone; i++)
			mp_put_bin(e, m->peers.gone + 32 * i, 32);
		return;
	case MSG_REQUEST:
		mp_put_bin(e, m->request.p, m->request.len);
		return;
	case MSG_CANCEL:
		mp_put_bin(e, m->cancel.p, m->cancel.len);
		return;
	case MSG_LEASE:
		mp_put_bin(e, m->lease.p, m->lease.len);
		return;
	case MSG_RELAY:
	case MSG_RELAY_BACK:
		mp_put_bin(e, m->relay.id, 32);
		mp_put_uint(e, m->relay.hops);
		mp_put_bin(e, m->relay.body.p, m->relay.body.len);
		return;
	case MSG_REQUEST_IDS:
		enc_array(e, m->request_ids.n);
		for (size_t i = 0; i < m->request_ids.n; i++)
			mp_put_bin(e, m->request_ids.ids + 32 * i, 32);
		return;
	case MSG_VECTOR:
		s_enc_entries(e, m->vector.entries, m->vector.n);
		return;
	case MSG_RANGES:
		mp_put_uint(e, m->ranges.mask);
		s_enc_entries(e, m->ranges.entries, m->ranges.n);
		return;
	case MSG_DIGEST:
		mp_put_array(e, PROTO_DIGEST_RANGES);
		for (size_t i = 0; i < PROTO_DIGEST_RANGES; i++) {
			mp_put_array(e, 2);
			mp_put_uint(e, m->digest.ranges[i].count);
			mp_put_uint(e, m->digest.ranges[i].hash);
		}
		return;
	case MSG_SUBDIGEST:
		mp_put_uint(e, m->subdigest.range);
		enc_array(e, m->subdigest.n);
		for (size_t i = 0; i < m->subdigest.n; i++) {
			mp_put_array(e, 3);
			mp_put_uint(e, m->subdigest.subs[i].sub);
			mp_put_uint(e, m->subdigest.subs[i].count);
			mp_put_uint(e, m->subdigest.subs[i].hash);
		}
		return;
	case MSG_SUBRANGES:
		mp_put_uint(e, m->subranges.range);
		mp_put_uint(e, m->subranges.mask);
		s_enc_entries(e, m->subranges.entries, m->subranges.n);
		return;
	case MSG_REQUEST_SUMMARY:
		enc_array(e, m->request_summary.n);
		for (size_t i = 0; i < m->request_summary.n; i++) {
			mp_put_array(e, 3);
			mp_put_uint(e, m->request_summary.buckets[i].bucket);
			mp_put_uint(e, m->request_summary.buckets[i].count);
			mp_put_uint(e, m->request_summary.buckets[i].hash);
		}
		return;
	case MSG_REQUEST_IDS_IN:
		enc_array(e, m->request_ids_in.n_buckets);
		for (size_t i = 0; i < m->request_ids_in.n_buckets; i++)
			mp_put_uint(e, m->request_ids_in.buckets[i]);
		enc_array(e, m->request_ids_in.n);
		for (size_t i = 0; i < m->request_ids_in.n; i++)
			mp_put_bin(e, m->request_ids_in.ids + 32 * i, 32);
		return;
	case MSG_WANT:
		mp_put_bin(e, m->want.author, 32);
		mp_put_uint(e, m->want.from_seq);
		mp_put_uint(e, m->want.max);
		return;
	case MSG_RECORDS:
		s_enc_blobs(e, m->records.recs, m->records.n);
		return;
	case MSG_CREDIT:
		mp_put_uint(e, m->credit);
		return;
	case MSG_BLOB_GET:
		mp_put_bin(e, m->blob_get.blob_id, 32);
		mp_put_uint(e, m->blob_get.offset);
		mp_put_uint(e, m->blob_get.length);
		if (m->blob_get.hops)
			mp_put_uint(e, m->blob_get.hops);
		return;
	case MSG_BLOB_DATA:
		mp_put_bin(e, m->blob_data.blob_id, 32);
		mp_put_uint(e, m->blob_data.offset);
		mp_put_uint(e, m->blob_data.total);
		mp_put_bin(e, m->blob_data.data.p, m->blob_data.data.len);
		return;
	case MSG_PING:
	case MSG_PONG:
		mp_put_uint(e, m->nonce);
		return;
	}
	mp_enc_fail(e, PROTO_E_KIND);
}

static void s_encode(mp_enc_t *e, const msg_t *m)
{
	if (m->type < MSG_HELLO || m->type > MSG_TYPE_MAX) {
		mp_enc_fail(e, PROTO_E_KIND);
		return;
	}
	mp_put_array(e, 1 + s_arity[m->type] +
			     (m->type == MSG_BLOB_GET && m->blob_get.hops));
	mp_put_uint(e, m->type);
	s_enc_body(e, m);
}

static int s_decode(const uint8_t *data, size_t len, msg_t *m)
{
	mp_reader_t r;
	mp_enc_t e;
	uint32_t n;
	uint64_t t;
	int err;

	mp_reader_init(&r, data, len);
	if ((err = mp_get_array(&r, 1, UINT32_MAX, &n)) < 0)
		return err;
	if (n == 0)
		return PROTO_E_ARITY;
	if ((err = mp_get_uint(&r, &t)) < 0)
		return err;
	if (t < MSG_HELLO || t > MSG_TYPE_MAX)
		return PROTO_E_KIND;
	if (n != 1 + s_arity[t] && !(t == MSG_BLOB_GET && n == 2 + s_arity[t]))
		return PROTO_E_ARITY;
	m->type = (enum msg_type)t;
	if ((err = s_dec_body(&r, m->arena, m)) < 0)
		return err;
	/* the long form of blob-get: its hops, never 0 (that is the short
	 * form, so each message has one encoding) */
	if (n != 1 + s_arity[t] &&
	    (err = dec_u32(&r, 1, PROTO_MAX_BLOB_HOPS, &m->blob_get.hops)) < 0)
		return err;
	if ((err = mp_reader_end(&r)) < 0)
		return err;
	mp_enc_init_compare(&e, data, len);
	s_encode(&e, m);
	return mp_enc_compare_result(&e);
}

int msg_decode(const void *data, size_t len, size_t max_len, msg_t **ret_msg)
{
	msg_t *m;
	int err;

	if (len > max_len || len > PROTO_MAX_MSG)
		return PROTO_E_TOOBIG;
	m = xzalloc(sizeof(*m));
	/* lists hold at most one small struct per few input bytes */
	m->arena = arena_new(len + 256);
	err = s_decode(data, len, m);
	if (err < 0) {
		msg_destroy(&m);
		return err;
	}
	*ret_msg = m;
	return 0;
}

void msg_destroy(msg_t **p)
{
	if (!p || !*p)
		return;
	arena_destroy(&(*p)->arena);
	free(*p);
	*p = NULL;
}

int msg_encode(const msg_t *m, uint8_t **ret_data, size_t *ret_len)
{
	mp_enc_t e;
	uint8_t *data;
	size_t len;
	msg_t *check = NULL;
	int r;

	mp_enc_init(&e, 256);
	s_encode(&e, m);
	if ((r = mp_enc_finish(&e, &data, &len)) < 0)
		return r;
	r = msg_decode(data, len, PROTO_MAX_MSG, &check);
	msg_destroy(&check);
	if (r < 0) {
		free(data);
		return r;
	}
	*ret_data = data;
	*ret_len = len;
	return 0;
}
