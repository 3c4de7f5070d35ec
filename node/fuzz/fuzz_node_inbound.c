/*
 * fuzz_node_inbound: what the node does with a message from a peer, short
 * of sockets — decode it (wire.c over proto), verify the descriptors,
 * requests and records it carries, decode adverts, and put records into
 * a store (an in-memory SQLite database), as the receive path does.
 * Built against proto's fuzzing copy (signatures not checked), so records
 * reach the store and its chain, duplicate and equivocation logic.
 */
#include "node/store/store.h"
#include "node/store/wire.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static store_t *s_store;

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
		store_put_record(s_store, &sr);
		if (r.kind == RECORD_ADVERT &&
		    wire_advert_decode(m->items[i].p, m->items[i].len, &a) == 0)
			wire_advert_free(&a);
	}
	store_commit(s_store);
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
	default:
		break;
	}
	wire_msg_free(&m);
	return 0;
}
