/*
 * Fuzz msg_decode, then every nested signed object it carries through its
 * own decoder (as the node does). Whatever decodes must re-encode to the
 * input.
 */
#include "proto/desc.h"
#include "proto/lease.h"
#include "proto/msg.h"
#include "proto/record.h"
#include "proto/request.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A lease operation or reply that decodes re-encodes to its bytes. */
static void s_lease(const proto_bytes_t *b, bool reply)
{
	lease_t l;
	lease_reply_t p;
	uint8_t *again = NULL;
	size_t len = 0;
	int r = -1;

	if (!reply && lease_decode(b->p, b->len, &l) == 0)
		r = lease_encode(&l, &again, &len);
	else if (reply && lease_reply_decode(b->p, b->len, &p) == 0)
		r = lease_reply_encode(&p, &again, &len);
	else
		return;
	if (r != 0 || len != b->len || memcmp(again, b->p, len) != 0)
		abort();
	free(again);
}

static void s_nested(const msg_t *m)
{
	record_t *rec = NULL;
	node_desc_t *d = NULL;
	request_t *q = NULL;
	request_cancel_t c;

	switch (m->type) {
	case MSG_RECORDS:
		for (size_t i = 0; i < m->records.n; i++) {
			if (record_decode(m->records.recs[i].p,
					  m->records.recs[i].len, &rec) == 0)
				record_destroy(&rec);
		}
		break;
	case MSG_PEERS:
	case MSG_PEERS_DELTA:
		for (size_t i = 0; i < m->peers.n; i++) {
			if (desc_decode(m->peers.descs[i].p,
					m->peers.descs[i].len, &d) == 0)
				desc_destroy(&d);
		}
		break;
	case MSG_HELLO:
		if (desc_decode(m->hello.desc.p, m->hello.desc.len, &d) == 0)
			desc_destroy(&d);
		break;
	case MSG_REQUEST:
		if (request_decode(m->request.p, m->request.len, &q) == 0)
			request_destroy(&q);
		break;
	case MSG_CANCEL:
		(void)cancel_decode(m->cancel.p, m->cancel.len, &c);
		break;
	case MSG_LEASE:
		s_lease(&m->lease, false);
		break;
	case MSG_RELAY:
		s_lease(&m->relay.body, false);
		break;
	case MSG_RELAY_BACK:
		s_lease(&m->relay.body, true);
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	msg_t *m = NULL;
	uint8_t *again;
	size_t len;

	if (msg_decode(data, size, PROTO_MAX_MSG, &m) != 0)
		return 0;
	if (msg_encode(m, &again, &len) != 0 || len != size ||
	    memcmp(again, data, size) != 0)
		abort();
	free(again);
	s_nested(m);
	msg_destroy(&m);
	return 0;
}
