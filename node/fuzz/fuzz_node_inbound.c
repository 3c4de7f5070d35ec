/*
 * fuzz_node_inbound: what the node does with a message from a peer, short
 * of sockets — decode it (wire.c over proto), verify the descriptors,
 * requests and records it carries, decode adverts, and put records into
 * a store (an in-memory SQLite database), as the receive path does.
 * Built against proto's fuzzing copy (signatures not checked), so records
 * reach the store and its chain, duplicate and equivocation logic. A
 * digest is compared with the digest of the feeds stored so far, and the
 * entries of ranges are looked up by range, as node_digest.c does. The
 * sub-ranges of a subdigest are compared with those of the stored feeds
 * in that range, and a subranges' entries looked up. The
 * buckets of a request summary or request-ids-in ascend strictly (the
 * node merges and searches them so), and each id names a request.
 */
#include "node/net/digest.h"
#include "node/store/store.h"
#include "node/store/wire.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static store_t *s_store;
static digest_t s_ours;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void s_records(const wire_msg_t *m)
{
	if (store_begin(s_store) < 0)
		return;
	for (size_t i = 0; i < m->n_items; i++) {
		wire_record_t r;
		wire_advert_t a;
		store_rec_t sr;

		if (wire_record_verify(m->items[i].p, m->items[i].len, &r) < 0)
			continue;
		sr = (store_rec_t){ .id = r.id, .author = r.author,
				    .prev_id = r.prev_id, .seq = r.seq,
				    .kind = r.kind, .ts_ms = r.ts_ms,
				    .bytes = m->items[i].p,
				    .len = m->items[i].len };
		if (store_put_record(s_store, &sr) == STORE_ADDED)
			digest_update(&s_ours, r.author, r.seq - 1, r.seq);
		if (r.kind == RECORD_ADVERT &&
		    wire_advert_decode(m->items[i].p, m->items[i].len, &a) == 0)
			wire_advert_free(&a);
	}
	store_commit(s_store);
}

static void s_digest(const wire_msg_t *m)
{
	digest_t theirs;
	uint64_t mask;

	for (unsigned i = 0; i < DIGEST_BUCKETS; i++) {
		theirs.count[i] = m->ranges[i].count;
		theirs.hash[i] = m->ranges[i].hash;
	}
	mask = digest_diff(&s_ours, &theirs);
	if (mask == 0 && memcmp(&s_ours, &theirs, sizeof(theirs)) != 0)
		abort(); /* a difference the mask missed */
}

static void s_ranges(const wire_msg_t *m)
{
	for (size_t i = 0; i < m->n_vec; i++) {
		const store_feed_t *f = store_feed(s_store, m->vec[i].author);

		if (digest_in(m->mask, m->vec[i].author) && f &&
		    f->seq > m->vec[i].seq)
			digest_entry(f->author, f->seq); /* sent back */
	}
}

static void s_subdigest(const wire_msg_t *m)
{
	digest_t ours, theirs;
	uint64_t mask;

	digest_clear(&ours);
	digest_clear(&theirs);
	if (m->range >= DIGEST_BUCKETS || m->n_subs > DIGEST_BUCKETS)
		abort();
	for (size_t i = 0; i < store_feed_count(s_store); i++) {
		const store_feed_t *f = store_feed_at(s_store, i);

		if (digest_bucket(f->author) == m->range)
			digest_sub_add(&ours, f->author, f->seq);
	}
	for (size_t i = 0; i < m->n_subs; i++) {
		if (m->subs[i].sub >= DIGEST_BUCKETS ||
		    (i > 0 && m->subs[i].sub <= m->subs[i - 1].sub))
			abort();
		theirs.count[m->subs[i].sub] = m->subs[i].count;
		theirs.hash[m->subs[i].sub] = m->subs[i].hash;
	}
	mask = digest_diff(&ours, &theirs);
	if (mask == 0 && memcmp(&ours, &theirs, sizeof(theirs)) != 0)
		abort();
}

static void s_subranges(const wire_msg_t *m)
{
	if (m->range >= DIGEST_BUCKETS)
		abort();
	for (size_t i = 0; i < m->n_vec; i++) {
		const store_feed_t *f = store_feed(s_store, m->vec[i].author);

		if (digest_bucket(m->vec[i].author) == m->range &&
		    ((m->mask >> digest_sub(m->vec[i].author)) & 1) && f &&
		    f->seq > m->vec[i].seq)
			digest_entry(f->author, f->seq); /* sent back */
	}
}

/* What node_flood.c relies on: buckets strictly ascending, counts >= 1,
 * at most WIRE_MAX_REQ_BUCKETS, ids of WIRE_ID_BYTES. */
static void s_buckets(const wire_msg_t *m)
{
	if (m->n_buckets > WIRE_MAX_REQ_BUCKETS)
		abort();
	for (size_t i = 0; i < m->n_buckets; i++) {
		uint32_t b = m->type == WIRE_REQUEST_SUMMARY ?
				     m->req_sum[i].bucket : m->buckets[i];
		uint32_t prev = i == 0 ? 0 :
				m->type == WIRE_REQUEST_SUMMARY ?
					 m->req_sum[i - 1].bucket :
					 m->buckets[i - 1];

		if (i > 0 && b <= prev)
			abort();
		if (m->type == WIRE_REQUEST_SUMMARY && m->req_sum[i].count == 0)
			abort();
	}
	for (size_t i = 0; i < m->n_items; i++) {
		if (m->items[i].len != WIRE_ID_BYTES)
			abort();
		(void)store_has_request(s_store, m->items[i].p);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	wire_msg_t m;
	wire_desc_t d;
	uint8_t id[WIRE_ID_BYTES];
	int64_t exp;

	if (!s_store && store_open(":memory:", &s_store) < 0)
		abort();
	if (wire_msg_decode(data, size, &m) < 0)
		return 0;
	switch (m.type) {
	case WIRE_HELLO:
		wire_desc_verify(m.desc.p, m.desc.len, &d);
		break;
	case WIRE_PEERS:
	case WIRE_PEERS_DELTA:
		for (size_t i = 0; i < m.n_items; i++)
			wire_desc_verify(m.items[i].p, m.items[i].len, &d);
		break;
	case WIRE_REQUEST:
		if (wire_request_verify(m.items[0].p, m.items[0].len,
					PROTO_MAX_REQUEST_LIFETIME_MS, id,
					&exp) == 0)
			store_put_request(s_store, id, m.items[0].p,
					  m.items[0].len, exp);
		break;
	case WIRE_RECORDS:
		s_records(&m);
		break;
	case WIRE_DIGEST:
		s_digest(&m);
		break;
	case WIRE_RANGES:
		s_ranges(&m);
		break;
	case WIRE_REQUEST_SUMMARY:
	case WIRE_REQUEST_IDS_IN:
		s_buckets(&m);
		break;
	case WIRE_SUBDIGEST:
		s_subdigest(&m);
		break;
	case WIRE_SUBRANGES:
		s_subranges(&m);
		break;
	default:
		break;
	}
	wire_msg_free(&m);
	return 0;
}
