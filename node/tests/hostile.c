/*
 * hostile: a test peer that attacks a node's ROUTER. Modes:
 *
 *   hostile plain ENDPOINT
 *       a plaintext (NULL mechanism) DEALER: sends a frame, then waits 2 s
 *       for anything at all; exit 0 when it got nothing.
 *   hostile hello ENDPOINT NODE_ID KEYFILE PORT curve|plain
 *       the hello an honest node sends, signed with the node key in
 *       KEYFILE (HOME/node.key) and naming tcp://127.0.0.1:PORT, over
 *       CURVE or over plaintext (ZMTP's NULL mechanism). A CURVE
 *       listener with the same key on PORT takes the node's answer (a
 *       node answers a hello by dialling the endpoint it names). Waits
 *       3 s and prints "hello MODE: N answers (C on the connection, L on
 *       the listener)".
 *   hostile want ENDPOINT NODE_ID PORT AUTHOR FROM MAX [CREDIT...]
 *       a peer with a fresh key (listening on PORT for the node's
 *       answers) says hello, then pulls AUTHOR's feed (64 hex) with one
 *       want(FROM, MAX) and never returns credit on its own: it counts
 *       the records that arrive until 2 s pass without one, then for
 *       each CREDIT returns that much credit and counts again (a CREDIT
 *       of "stop" sends a want of max 0 instead: stop that want). Prints
 *       "want: R records in B batches, N bytes", "credit C: R more
 *       records ..." and "stop: R more records ...".
 *   hostile bigfeed ENDPOINT NODE_ID N
 *       say hello, then hand the node N adverts of our own feed, each
 *       ~200 KiB (many boards with many long tags; nothing more to a
 *       record can be large), a few per records message; print our id.
 *       A feed that pulls with large records, for the pending bytes cap.
 *   hostile equivocate ENDPOINT NODE_ID
 *       say hello, then send two different records both at seq 1 of
 *       our own feed; print our id.
 *   hostile requests ENDPOINT NODE_ID KEYS N
 *       KEYS peers with fresh keys each say hello and send N newly signed
 *       requests (for a lab named "nowhere": every lab declines them),
 *       as fast as they can; print how many were sent.
 *   hostile peer-request ENDPOINT NODE_ID LAB valid|forged
 *       say hello as a peer and send one signed request for LAB (suite
 *       smoke, no kernel); forged: one byte of its signature flipped.
 *   hostile make-request FILE TTL_MS [LAB]
 *       write a validly signed test request (a fresh submitter key)
 *       expiring in TTL_MS, for any lab or for LAB only (one of no lab
 *       is declined by every lab); print its id. For the flooding test.
 *   hostile attack ENDPOINT NODE_ID [GARBAGE_COUNT [ROUNDS]]
 *       as CURVE clients with fresh keys: GARBAGE_COUNT random frames
 *       before hello (default 10000), multi-part messages, oversized
 *       frames, then after a valid hello: non-canonical encodings, a
 *       container declaring 2^32 elements, records with forged
 *       signatures and records signed by us but claiming another author;
 *       all of it ROUNDS times (default 1). Prints what it sent; exit 0
 *       when all was sent.
 *   hostile flood ENDPOINT NODE_ID SECONDS RATE LAB BOARD [PORT [BLOB]]
 *       a sustained flood of RATE messages a second for SECONDS, a mix of
 *       everything above and more (see s_flood_kinds): garbage before
 *       hello, pings, replayed records and requests, forged and truncated
 *       records, oversized counts, unknown message and record kinds,
 *       validly signed requests for BOARD of LAB from submitters it does
 *       not allow, and blob requests for blobs the node does not hold or
 *       past their end. With PORT, one extra peer listens there and
 *       counts what the node answers to its blob requests (BLOB: 64 hex
 *       of a blob the node holds, asked for too as a control). Prints
 *       one line per kind and a last line "flood: N messages in S s, R
 *       msg/s; blob bytes served: forbidden F, control C".
 *
 * It uses proto only to build the few valid things (hello, descriptor,
 * records) that get it past the first checks. The client (key, hello,
 * listener) is peerlib's; the flood lives in hostile_flood.c.
 */
#include "node/tests/hostile.h"

#include "proto/desc.h"
#include "proto/error.h"
#include "proto/keys.h"
#include "proto/msg.h"
#include "proto/record.h"
#include "proto/request.h"

#include <czmq.h>
#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void s_rotate(peerlib_client_t *c, const char *ep, const char *server,
		     int *count, bool hello)
{
	if (++*count % HOSTILE_KEY_EVERY)
		return;
	peerlib_close(c);
	peerlib_open(c, ep, server);
	if (hello)
		peerlib_hello(c, 1);
}

static void s_garbage(const char *ep, const char *server, int n)
{
	peerlib_client_t c;
	uint8_t buf[2048];
	int count = 0;

	peerlib_open(&c, ep, server);
	for (int i = 0; i < n; i++) {
		size_t len = 1 + randombytes_uniform(sizeof(buf));

		randombytes_buf(buf, len);
		if (i % 10 == 0)
			buf[0] = 0x9c; /* looks like an array: goes deeper */
		peerlib_send(&c, buf, len);
		s_rotate(&c, ep, server, &count, false);
	}
	/* multi-part messages */
	for (int i = 0; i < 100; i++) {
		zmq_send(zsock_resolve(c.sock), "a", 1, ZMQ_SNDMORE);
		peerlib_send(&c, "b", 1);
	}
	peerlib_close(&c);
	printf("garbage: %d random frames, 100 multi-part\n", n);
}

static void s_oversized(const char *ep, const char *server)
{
	size_t len = 3 * 1024 * 1024;
	uint8_t *big = malloc(len);
	peerlib_client_t c;

	memset(big, 0x91, len);
	for (int i = 0; i < 8; i++) {
		peerlib_open(&c, ep, server);
		peerlib_send(&c, big, len);
		zclock_sleep(50);
		peerlib_close(&c);
	}
	/* just over the pre-hello cap, from a key that said no hello */
	peerlib_open(&c, ep, server);
	for (int i = 0; i < 20; i++)
		peerlib_send(&c, big, 20 * 1024);
	peerlib_close(&c);
	free(big);
	printf("oversized: 8 x 3 MiB, 20 x 20 KiB before hello\n");
}

/* Hand-made encodings the strict decoder must refuse. */
static const struct {
	const char *what;
	size_t len;
	uint8_t b[16];
} s_noncanon[] = {
	{ "ping type as uint8", 4, { 0x92, 0xcc, 0x0b, 0x05 } },
	{ "nonce as uint64", 11, { 0x92, 0x0b, 0xcf, 0, 0, 0, 0, 0, 0, 0, 5 } },
	{ "array16 header", 5, { 0xdc, 0x00, 0x02, 0x0b, 0x05 } },
	{ "trailing byte", 4, { 0x92, 0x0b, 0x05, 0x00 } },
	{ "truncated", 2, { 0x92, 0x0b } },
	{ "2^32 elements", 5, { 0xdd, 0xff, 0xff, 0xff, 0xff } },
	{ "ext type", 4, { 0x92, 0xd4, 0x01, 0x02 } },
	{ "credit 0", 3, { 0x92, 0x08, 0x00 } },
	{ "unknown type", 3, { 0x92, 0x7f, 0x00 } },
	{ "float32", 7, { 0x92, 0x0b, 0xca, 0, 0, 0, 0 } },
};

static void s_noncanonical(const char *ep, const char *server, int rounds)
{
	size_t n = sizeof(s_noncanon) / sizeof(s_noncanon[0]);
	peerlib_client_t c;
	int count = 0;

	peerlib_open(&c, ep, server);
	peerlib_hello(&c, 1);
	for (int r = 0; r < rounds; r++) {
		for (size_t i = 0; i < n; i++) {
			peerlib_send(&c, s_noncanon[i].b, s_noncanon[i].len);
			s_rotate(&c, ep, server, &count, true);
		}
	}
	peerlib_close(&c);
	printf("non-canonical: %zu kinds x %d\n", n, rounds);
}

/* A records message of 64 records: forged signatures, stolen authors. */
static int s_forged_batch(const key_pair_t *kp, const uint8_t *victim,
			  uint8_t **ret, size_t *ret_len)
{
	proto_bytes_t recs[PROTO_MAX_BATCH];
	uint8_t *bytes[PROTO_MAX_BATCH] = { 0 };
	msg_t m = { .type = MSG_RECORDS };
	record_t r;
	int rc = 0;

	for (int i = 0; i < PROTO_MAX_BATCH; i++) {
		uint8_t id[32];
		size_t len = 0;

		memset(&r, 0, sizeof(r));
		r.head.kind = RECORD_EVENT;
		r.head.seq = 1;
		r.head.ts_ms = 1;
		r.event.board = "x";
		r.event.state = JOB_QUEUED;
		r.event.suite = "";
		r.event.text = "forged";
		rc = record_sign(&r, kp, &bytes[i], &len, id);
		if (rc < 0)
			break;
		if (i % 2 == 0) {
			bytes[i][len - 1 - randombytes_uniform(64)] ^= 0x20;
		} else {
			/* the author field: 4 bytes in, after [ver, kind, bin8 hdr] */
			memcpy(bytes[i] + 5, victim, 32);
		}
		recs[i] = (proto_bytes_t){ bytes[i], len };
	}
	if (rc == 0) {
		m.records.recs = recs;
		m.records.n = PROTO_MAX_BATCH;
		rc = msg_encode(&m, ret, ret_len);
	}
	for (int i = 0; i < PROTO_MAX_BATCH; i++)
		free(bytes[i]);
	return rc;
}

static void s_forged(const char *ep, const char *server,
		     const uint8_t *victim, int n)
{
	peerlib_client_t c;
	int count = 0, sent = 0;

	peerlib_open(&c, ep, server);
	peerlib_hello(&c, 1);
	for (int i = 0; i < n; i++) {
		uint8_t *b = NULL;
		size_t len = 0;

		if (s_forged_batch(&c.kp, victim, &b, &len) == 0) {
			peerlib_send(&c, b, len);
			sent++;
		}
		free(b);
		s_rotate(&c, ep, server, &count, true);
	}
	peerlib_close(&c);
	printf("forged: %d records messages of %d records\n", sent,
	       PROTO_MAX_BATCH);
}

/* Two different records at seq 1 of our own feed, after a hello, then a
 * seq 2 chained on the first. */
static int s_equivocate(const char *ep, const char *server)
{
	const char *texts[3] = { "one story", "another story", "more" };
	uint8_t first[32];
	peerlib_client_t c;

	if (peerlib_open(&c, ep, server) < 0)
		return 1;
	peerlib_hello(&c, 1);
	for (int i = 0; i < 3; i++) {
		proto_bytes_t one;
		msg_t m = { .type = MSG_RECORDS };
		record_t r;
		uint8_t *rb = NULL, *b = NULL, id[32];
		size_t rlen = 0, blen = 0;

		memset(&r, 0, sizeof(r));
		r.head.kind = RECORD_EVENT;
		r.head.seq = i < 2 ? 1 : 2;
		r.head.has_prev = i == 2;
		memcpy(r.head.prev_id, first, 32);
		r.head.ts_ms = 1;
		r.event.board = "x";
		r.event.state = JOB_QUEUED;
		r.event.suite = "";
		r.event.text = texts[i];
		if (record_sign(&r, &c.kp, &rb, &rlen, id) < 0)
			return 1;
		if (i == 0)
			memcpy(first, id, 32);
		one = (proto_bytes_t){ rb, rlen };
		m.records.recs = &one;
		m.records.n = 1;
		if (msg_encode(&m, &b, &blen) == 0)
			peerlib_send(&c, b, blen);
		free(rb);
		free(b);
		zclock_sleep(200);
	}
	for (int i = 0; i < 32; i++)
		printf("%02x", c.kp.pk[i]);
	printf("\n");
	peerlib_close(&c);
	return 0;
}

static int s_plain(const char *ep)
{
	zsock_t *s = zsock_new(ZMQ_DEALER);
	zmsg_t *m;

	zsock_set_rcvtimeo(s, 2000);
	zsock_set_linger(s, 0);
	zsock_connect(s, "%s", ep);
	zstr_send(s, "hello?");
	m = zmsg_recv(s);
	zsock_destroy(&s);
	if (m) {
		zmsg_destroy(&m);
		printf("plain: got an answer\n");
		return 1;
	}
	printf("plain: nothing received\n");
	return 0;
}

/* The honest hello from a given key, over CURVE or NULL (see above). */
static int s_hello(const char *ep, const char *server, const char *keyfile,
		   int port, bool plain)
{
	peerlib_client_t c;
	zsock_t *l;
	zpoller_t *poller;
	char err[256];
	int on_conn = 0, on_listener = 0;
	int64_t end;

	memset(&c, 0, sizeof(c));
	if (key_load(keyfile, &c.kp, err, sizeof(err)) < 0 ||
	    key_curve(&c.kp, c.pub, c.sec) < 0) {
		fprintf(stderr, "hostile: %s\n", err);
		return 2;
	}
	l = zsock_new(ZMQ_ROUTER);
	zsock_set_curve_server(l, 1);
	zsock_set_curve_publickey(l, c.pub);
	zsock_set_curve_secretkey(l, c.sec);
	if (zsock_bind(l, "tcp://127.0.0.1:%d", port) < 0) {
		fprintf(stderr, "hostile: cannot listen on port %d\n", port);
		return 2;
	}
	c.sock = zsock_new(ZMQ_DEALER);
	if (!plain) {
		zsock_set_curve_serverkey(c.sock, server);
		zsock_set_curve_publickey(c.sock, c.pub);
		zsock_set_curve_secretkey(c.sock, c.sec);
	}
	zsock_set_linger(c.sock, 0);
	zsock_set_sndtimeo(c.sock, 2000);
	zsock_connect(c.sock, "%s", ep);
	peerlib_hello(&c, port);
	poller = zpoller_new(c.sock, l, NULL);
	end = zclock_mono() + 3000;
	while (zclock_mono() < end) {
		zsock_t *which = zpoller_wait(poller, 100);
		zmsg_t *m;

		if (!which)
			continue;
		m = zmsg_recv(which);
		zmsg_destroy(&m);
		if (which == c.sock)
			on_conn++;
		else
			on_listener++;
	}
	zpoller_destroy(&poller);
	printf("hello %s: %d answers (%d on the connection, %d on the"
	       " listener), hello queued %lu\n", plain ? "plain" : "curve",
	       on_conn + on_listener, on_conn, on_listener, peerlib_sent);
	zsock_destroy(&l);
	peerlib_close(&c);
	return 0;
}

/* Records messages arriving on l until quiet_ms pass without one. */
static void s_count_records(zsock_t *l, int quiet_ms, unsigned long *recs,
			    unsigned long *batches, unsigned long *bytes)
{
	int64_t last = zclock_mono();
	zpoller_t *poller = zpoller_new(l, NULL);

	*recs = *batches = *bytes = 0;
	while (zclock_mono() - last < quiet_ms) {
		zmsg_t *m;
		zframe_t *body;
		msg_t *d = NULL;

		if (!zpoller_wait(poller, 100))
			continue;
		m = zmsg_recv(l);
		body = m ? zmsg_last(m) : NULL;
		if (body && msg_decode(zframe_data(body), zframe_size(body),
				       PROTO_MAX_MSG, &d) == 0 &&
		    d->type == MSG_RECORDS) {
			*recs += d->records.n;
			(*batches)++;
			for (size_t i = 0; i < d->records.n; i++)
				*bytes += d->records.recs[i].len;
			last = zclock_mono();
		}
		msg_destroy(&d);
		zmsg_destroy(&m);
	}
	zpoller_destroy(&poller);
}

static int s_want(const char *ep, const char *server, int port,
		  const char *author, uint64_t from, uint32_t max, int n_credit,
		  char **credit)
{
	peerlib_client_t c;
	zsock_t *l;
	msg_t m = { .type = MSG_WANT };
	unsigned long recs, batches, bytes;

	if (key_parse_hex(author, m.want.author) < 0 ||
	    peerlib_open(&c, ep, server) < 0)
		return 2;
	l = peerlib_listener(&c, port);
	if (!l)
		return 2;
	peerlib_hello(&c, port);
	zclock_sleep(500); /* its answer: we are a peer */
	m.want.from_seq = from;
	m.want.max = max;
	if (peerlib_send_msg(&c, &m) < 0) {
		fprintf(stderr, "hostile: cannot send want(%" PRIu64 ", %u)\n",
			from, max);
		return 1;
	}
	s_count_records(l, 2000, &recs, &batches, &bytes);
	printf("want: %lu records in %lu batches, %lu bytes\n", recs, batches,
	       bytes);
	for (int i = 0; i < n_credit; i++) {
		msg_t cm = { .type = MSG_CREDIT };

		if (strcmp(credit[i], "stop") == 0) {
			m.want.max = 0;
			if (peerlib_send_msg(&c, &m) < 0) {
				fprintf(stderr, "hostile: cannot send a stop\n");
				return 1;
			}
			s_count_records(l, 2000, &recs, &batches, &bytes);
			printf("stop: %lu more records in %lu batches, %lu"
			       " bytes\n", recs, batches, bytes);
			continue;
		}
		cm.credit = (uint32_t)atol(credit[i]);
		if (peerlib_send_msg(&c, &cm) < 0) {
			fprintf(stderr, "hostile: cannot send credit %u\n",
				cm.credit);
			return 1;
		}
		s_count_records(l, 2000, &recs, &batches, &bytes);
		printf("credit %u: %lu more records in %lu batches, %lu"
		       " bytes\n", cm.credit, recs, batches, bytes);
	}
	fflush(stdout);
	zsock_destroy(&l);
	peerlib_close(&c);
	return 0;
}

#define HOSTILE_BIG_BOARDS 100
#define HOSTILE_BIG_TAGS 30

/* One advert of ~200 KiB at seq, chained on prev (NULL at seq 1). */
static int s_big_advert(const key_pair_t *kp, uint64_t seq,
			const uint8_t *prev, uint8_t **ret, size_t *ret_len,
			uint8_t *ret_id)
{
	static char names[HOSTILE_BIG_BOARDS][16];
	static char tagbuf[HOSTILE_BIG_TAGS][PROTO_MAX_NAME + 1];
	static const char *tags[HOSTILE_BIG_TAGS];
	static record_board_t boards[HOSTILE_BIG_BOARDS];
	record_t r;

	for (int t = 0; t < HOSTILE_BIG_TAGS; t++) {
		memset(tagbuf[t], 'a' + t % 26, PROTO_MAX_NAME);
		tagbuf[t][0] = 't';
		snprintf(tagbuf[t] + 1, 3, "%02d", t);
		tagbuf[t][3] = 'x';
		tags[t] = tagbuf[t];
	}
	for (int b = 0; b < HOSTILE_BIG_BOARDS; b++) {
		snprintf(names[b], sizeof(names[b]), "big%d", b);
		boards[b] = (record_board_t){ .name = names[b], .arch = "x86_64",
			.machine = "", .tags = tags, .n_tags = HOSTILE_BIG_TAGS,
			.transport = "local", .boot = "none",
			.state = BOARD_IDLE };
	}
	memset(&r, 0, sizeof(r));
	r.head.kind = RECORD_ADVERT;
	r.head.seq = seq;
	r.head.has_prev = prev != NULL;
	if (prev)
		memcpy(r.head.prev_id, prev, 32);
	r.head.ts_ms = (uint64_t)zclock_time();
	r.advert.lab = "hostile";
	memcpy(r.advert.node_id, kp->pk, 32);
	r.advert.description = "";
	r.advert.software = "hostile";
	r.advert.boards = boards;
	r.advert.n_boards = HOSTILE_BIG_BOARDS;
	return record_sign(&r, kp, ret, ret_len, ret_id);
}

static int s_bigfeed(const char *ep, const char *server, int n)
{
	peerlib_client_t c;
	uint8_t prev[32];
	size_t total = 0;
	int sent = 0;

	if (peerlib_open(&c, ep, server) < 0)
		return 2;
	peerlib_hello(&c, 1);
	zclock_sleep(300);
	while (sent < n) {
		proto_bytes_t recs[PROTO_MAX_BATCH];
		uint8_t *bytes[PROTO_MAX_BATCH];
		msg_t m = { .type = MSG_RECORDS };
		size_t k = 0, msg_bytes = 0;
		uint8_t *b = NULL;
		size_t blen = 0;
		int rc;

		while (sent + (int)k < n && k < PROTO_MAX_BATCH) {
			size_t len = 0;

			rc = s_big_advert(&c.kp, (uint64_t)(sent + k + 1),
					  sent + k ? prev : NULL, &bytes[k], &len,
					  prev);
			if (rc < 0) {
				fprintf(stderr, "hostile: record_sign: %s\n",
					proto_strerror(rc));
				return 1;
			}
			recs[k] = (proto_bytes_t){ bytes[k], len };
			msg_bytes += len;
			total += len;
			k++;
			if (msg_bytes + len > PROTO_MAX_MSG - 64 * 1024)
				break;
		}
		m.records.recs = recs;
		m.records.n = k;
		rc = msg_encode(&m, &b, &blen);
		for (size_t i = 0; i < k; i++)
			free(bytes[i]);
		if (rc < 0) {
			fprintf(stderr, "hostile: msg_encode: %s\n",
				proto_strerror(rc));
			return 1;
		}
		peerlib_send(&c, b, blen);
		free(b);
		sent += (int)k;
		zclock_sleep(20);
	}
	zclock_sleep(500);
	for (int i = 0; i < 32; i++)
		printf("%02x", c.kp.pk[i]);
	printf("\nbigfeed: %d records, %zu bytes\n", sent, total);
	peerlib_close(&c);
	return 0;
}

/* A request message, as hostile.h says. */
uint8_t *hostile_request_msg(const key_pair_t *kp, const char *lab,
			     const char *board, int64_t ttl_ms, int priority,
			     size_t *ret_len)
{
	static const char *const suites[] = { "smoke" };
	const char *labs[1] = { lab }, *boards[1] = { board };
	request_t r = { 0 };
	msg_t m = { .type = MSG_REQUEST };
	uint8_t *q = NULL, *b = NULL, id[32];
	size_t qlen = 0;
	int64_t now = zclock_time();

	r.created_ms = (uint64_t)now - 1000;
	r.expires_ms = (uint64_t)(now + ttl_ms);
	randombytes_buf(r.nonce, sizeof(r.nonce));
	r.priority = priority;
	r.kernel.type = REQUEST_KERNEL_NONE;
	r.suites = suites;
	r.n_suites = 1;
	r.select.arch = "";
	r.select.labs = labs;
	r.select.n_labs = 1;
	if (board) {
		r.select.boards = boards;
		r.select.n_boards = 1;
	}
	if (request_sign(&r, kp, &q, &qlen, id) < 0)
		return NULL;
	m.request = (proto_bytes_t){ q, qlen };
	if (msg_encode(&m, &b, ret_len) < 0)
		b = NULL;
	free(q);
	return b;
}

/* KEYS hello'd peers, N new requests each (see the usage above). */
static int s_requests(const char *ep, const char *server, int keys, int n)
{
	int sent = 0;

	for (int k = 0; k < keys; k++) {
		peerlib_client_t c;

		if (peerlib_open(&c, ep, server) < 0)
			return 1;
		peerlib_hello(&c, 1);
		zclock_sleep(300); /* a peer, then a flooder */
		for (int i = 0; i < n; i++) {
			size_t blen = 0;
			uint8_t *b = hostile_request_msg(&c.kp, "nowhere", NULL,
							 600 * 1000, 0, &blen);

			if (b && zmq_send(zsock_resolve(c.sock), b, blen, 0) >= 0)
				sent++;
			free(b);
		}
		peerlib_close(&c);
	}
	printf("requests: %d sent from %d keys\n", sent, keys);
	return 0;
}

/* One request from a hello'd peer, its signature broken or not. */
static int s_peer_request(const char *ep, const char *server, const char *lab,
			  bool forged)
{
	peerlib_client_t c;
	size_t blen = 0;
	uint8_t *b;
	int rc = 1;

	if (peerlib_open(&c, ep, server) < 0)
		return 1;
	peerlib_hello(&c, 1);
	zclock_sleep(300);
	b = hostile_request_msg(&c.kp, lab, NULL, 600 * 1000, 50, &blen);
	if (b && blen > 8) {
		if (forged)
			b[blen - 5] ^= 0x40; /* inside the trailing signature */
		if (zmq_send(zsock_resolve(c.sock), b, blen, 0) >= 0)
			rc = 0;
	}
	free(b);
	zclock_sleep(500);
	peerlib_close(&c);
	printf("peer-request: %s request %s\n", forged ? "forged" : "valid",
	       rc ? "not sent" : "sent");
	return rc;
}

/* Write a signed request (kernel none, suite "smoke") expiring in ttl. */
static int s_make_request(const char *path, long ttl_ms, const char *lab)
{
	static const char *const suites[] = { "smoke" };
	const char *labs[] = { lab };
	request_t r = { 0 };
	key_pair_t kp;
	uint8_t *b = NULL, id[32];
	size_t len = 0;
	int64_t now = zclock_time();
	FILE *f;
	int rc;

	key_generate(&kp);
	r.created_ms = (uint64_t)now - 1000;
	r.expires_ms = (uint64_t)(now + ttl_ms);
	randombytes_buf(r.nonce, sizeof(r.nonce));
	r.priority = 50;
	r.kernel.type = REQUEST_KERNEL_NONE;
	r.suites = suites;
	r.n_suites = 1;
	r.select.arch = "";
	if (lab) {
		r.select.labs = labs;
		r.select.n_labs = 1;
	}
	rc = request_sign(&r, &kp, &b, &len, id);
	key_wipe(&kp);
	if (rc < 0) {
		fprintf(stderr, "hostile: request_sign: %s\n", proto_strerror(rc));
		return 1;
	}
	f = fopen(path, "wb");
	if (!f || fwrite(b, 1, len, f) != len) {
		free(b);
		return 1;
	}
	fclose(f);
	free(b);
	for (int i = 0; i < 32; i++)
		printf("%02x", id[i]);
	printf("\n");
	return 0;
}


int main(int argc, char **argv)
{
	uint8_t victim[32];
	char server[KEY_Z85_LEN + 1];
	int n = 10000, rounds = 1;

	zsys_handler_set(NULL);
	if (sodium_init() < 0)
		return 2;
	if (argc == 3 && strcmp(argv[1], "plain") == 0)
		return s_plain(argv[2]);
	if (argc == 7 && strcmp(argv[1], "hello") == 0) {
		if (key_parse_hex(argv[3], victim) < 0 ||
		    key_curve_public(victim, server) < 0)
			return 2;
		return s_hello(argv[2], server, argv[4], atoi(argv[5]),
			       strcmp(argv[6], "plain") == 0);
	}
	if (argc >= 8 && strcmp(argv[1], "want") == 0) {
		if (key_parse_hex(argv[3], victim) < 0 ||
		    key_curve_public(victim, server) < 0)
			return 2;
		return s_want(argv[2], server, atoi(argv[4]), argv[5],
			      strtoull(argv[6], NULL, 10),
			      (uint32_t)atol(argv[7]), argc - 8, argv + 8);
	}
	if (argc == 5 && strcmp(argv[1], "bigfeed") == 0) {
		if (key_parse_hex(argv[3], victim) < 0 ||
		    key_curve_public(victim, server) < 0)
			return 2;
		return s_bigfeed(argv[2], server, atoi(argv[4]));
	}
	if (argc == 4 && strcmp(argv[1], "equivocate") == 0) {
		if (key_parse_hex(argv[3], victim) < 0 ||
		    key_curve_public(victim, server) < 0)
			return 2;
		return s_equivocate(argv[2], server);
	}
	if (argc == 6 && strcmp(argv[1], "requests") == 0) {
		if (key_parse_hex(argv[3], victim) < 0 ||
		    key_curve_public(victim, server) < 0)
			return 2;
		return s_requests(argv[2], server, atoi(argv[4]),
				  atoi(argv[5]));
	}
	if (argc == 6 && strcmp(argv[1], "peer-request") == 0) {
		if (key_parse_hex(argv[3], victim) < 0 ||
		    key_curve_public(victim, server) < 0)
			return 2;
		return s_peer_request(argv[2], server, argv[4],
				      strcmp(argv[5], "forged") == 0);
	}
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "make-request") == 0)
		return s_make_request(argv[2], atol(argv[3]),
				      argc == 5 ? argv[4] : NULL);
	if (argc >= 8 && strcmp(argv[1], "flood") == 0)
		return hostile_flood_main(argc, argv);
	if (argc < 4 || strcmp(argv[1], "attack") != 0 ||
	    key_parse_hex(argv[3], victim) < 0 ||
	    key_curve_public(victim, server) < 0) {
		fprintf(stderr, "usage: hostile plain ENDPOINT | hostile attack"
				" ENDPOINT NODE_ID [N]\n");
		return 2;
	}
	if (argc > 4)
		n = atoi(argv[4]);
	if (argc > 5)
		rounds = atoi(argv[5]);
	for (int r = 0; r < rounds; r++) {
		s_garbage(argv[2], server, n);
		s_oversized(argv[2], server);
		s_noncanonical(argv[2], server, 50);
		s_forged(argv[2], server, victim, 200);
		fflush(stdout);
	}
	printf("sent %lu messages\n", peerlib_sent);
	return 0;
}
