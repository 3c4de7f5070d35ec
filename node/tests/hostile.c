/*
 * hostile: a test peer that attacks a node's ROUTER. Modes:
 *
 *   hostile plain ENDPOINT
 *       a plaintext (NULL mechanism) DEALER: sends a frame, then waits 2 s
 *       for anything at all; exit 0 when it got nothing.
 *   hostile equivocate ENDPOINT NODE_ID
 *       say hello, then send two different records both at seq 1 of
 *       our own feed; print our id.
 *   hostile make-request FILE TTL_MS
 *       write a validly signed test request (a fresh submitter key)
 *       expiring in TTL_MS; print its id. For the flooding test.
 *   hostile attack ENDPOINT NODE_ID [GARBAGE_COUNT]
 *       as CURVE clients with fresh keys: GARBAGE_COUNT random frames
 *       before hello (default 10000), multi-part messages, oversized
 *       frames, then after a valid hello: non-canonical encodings, a
 *       container declaring 2^32 elements, records with forged
 *       signatures and records signed by us but claiming another author.
 *       Prints what it sent; exit 0 when all was sent.
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
 * records) that get it past the first checks.
 */
#include "proto/desc.h"
#include "proto/error.h"
#include "proto/keys.h"
#include "proto/mem.h"
#include "proto/msg.h"
#include "proto/record.h"
#include "proto/request.h"

#include <czmq.h>
#include <inttypes.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOSTILE_KEY_EVERY 40 /* fresh key after this many bad messages */

typedef struct {
	zsock_t *sock;
	key_pair_t kp;
	char pub[KEY_Z85_LEN + 1], sec[KEY_Z85_LEN + 1];
} client_t;

static unsigned long s_sent;

static void s_client_close(client_t *c)
{
	zsock_destroy(&c->sock);
	key_wipe(&c->kp);
}

static int s_client_open(client_t *c, const char *ep, const char *server)
{
	memset(c, 0, sizeof(*c));
	if (key_generate(&c->kp) < 0 || key_curve(&c->kp, c->pub, c->sec) < 0)
		return -1;
	c->sock = zsock_new(ZMQ_DEALER);
	zsock_set_curve_serverkey(c->sock, server);
	zsock_set_curve_publickey(c->sock, c->pub);
	zsock_set_curve_secretkey(c->sock, c->sec);
	zsock_set_linger(c->sock, 5000);
	zsock_set_sndhwm(c->sock, 100000);
	zsock_set_sndtimeo(c->sock, 2000);
	return zsock_connect(c->sock, "%s", ep);
}

static void s_send(client_t *c, const void *p, size_t n)
{
	if (zmq_send(zsock_resolve(c->sock), p, n, 0) >= 0)
		s_sent++;
}

static void s_hello(client_t *c, int port)
{
	const char *eps[1];
	char ep[64];
	node_desc_t d = { 0 };
	msg_t m = { .type = MSG_HELLO };
	uint8_t *desc = NULL, *b = NULL, id[32];
	size_t dlen = 0, blen = 0;

	snprintf(ep, sizeof(ep), "tcp://127.0.0.1:%d", port);
	eps[0] = ep;
	d.lab = "hostile";
	d.endpoints = eps;
	d.n_endpoints = 1;
	d.software = "hostile";
	d.ts_ms = 1;
	d.epoch = 1;
	if (desc_sign(&d, &c->kp, &desc, &dlen, id) < 0)
		return;
	m.hello.version = PROTO_VERSION;
	m.hello.desc = (proto_bytes_t){ desc, dlen };
	if (msg_encode(&m, &b, &blen) == 0)
		s_send(c, b, blen);
	free(desc);
	free(b);
}

static void s_rotate(client_t *c, const char *ep, const char *server,
		     int *count, bool hello)
{
	if (++*count % HOSTILE_KEY_EVERY)
		return;
	s_client_close(c);
	s_client_open(c, ep, server);
	if (hello)
		s_hello(c, 1);
}

static void s_garbage(const char *ep, const char *server, int n)
{
	client_t c;
	uint8_t buf[2048];
	int count = 0;

	s_client_open(&c, ep, server);
	for (int i = 0; i < n; i++) {
		size_t len = 1 + randombytes_uniform(sizeof(buf));

		randombytes_buf(buf, len);
		if (i % 10 == 0)
			buf[0] = 0x9c; /* looks like an array: goes deeper */
		s_send(&c, buf, len);
		s_rotate(&c, ep, server, &count, false);
	}
	/* multi-part messages */
	for (int i = 0; i < 100; i++) {
		zmq_send(zsock_resolve(c.sock), "a", 1, ZMQ_SNDMORE);
		s_send(&c, "b", 1);
	}
	s_client_close(&c);
	printf("garbage: %d random frames, 100 multi-part\n", n);
}

static void s_oversized(const char *ep, const char *server)
{
	size_t len = 3 * 1024 * 1024;
	uint8_t *big = malloc(len);
	client_t c;

	memset(big, 0x91, len);
	for (int i = 0; i < 8; i++) {
		s_client_open(&c, ep, server);
		s_send(&c, big, len);
		zclock_sleep(50);
		s_client_close(&c);
	}
	/* just over the pre-hello cap, from a key that said no hello */
	s_client_open(&c, ep, server);
	for (int i = 0; i < 20; i++)
		s_send(&c, big, 20 * 1024);
	s_client_close(&c);
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
	client_t c;
	int count = 0;

	s_client_open(&c, ep, server);
	s_hello(&c, 1);
	for (int r = 0; r < rounds; r++) {
		for (size_t i = 0; i < n; i++) {
			s_send(&c, s_noncanon[i].b, s_noncanon[i].len);
			s_rotate(&c, ep, server, &count, true);
		}
	}
	s_client_close(&c);
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
	client_t c;
	int count = 0, sent = 0;

	s_client_open(&c, ep, server);
	s_hello(&c, 1);
	for (int i = 0; i < n; i++) {
		uint8_t *b = NULL;
		size_t len = 0;

		if (s_forged_batch(&c.kp, victim, &b, &len) == 0) {
			s_send(&c, b, len);
			sent++;
		}
		free(b);
		s_rotate(&c, ep, server, &count, true);
	}
	s_client_close(&c);
	printf("forged: %d records messages of %d records\n", sent,
	       PROTO_MAX_BATCH);
}

/* Two different records at seq 1 of our own feed, after a hello, then a
 * seq 2 chained on the first. */
static int s_equivocate(const char *ep, const char *server)
{
	const char *texts[3] = { "one story", "another story", "more" };
	uint8_t first[32];
	client_t c;

	if (s_client_open(&c, ep, server) < 0)
		return 1;
	s_hello(&c, 1);
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
			s_send(&c, b, blen);
		free(rb);
		free(b);
		zclock_sleep(200);
	}
	for (int i = 0; i < 32; i++)
		printf("%02x", c.kp.pk[i]);
	printf("\n");
	s_client_close(&c);
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

/* Write a signed request (kernel none, suite "smoke") expiring in ttl. */
static int s_make_request(const char *path, long ttl_ms)
{
	static const char *const suites[] = { "smoke" };
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


/* ---- the sustained flood ------------------------------------------------ */

#define FLOOD_CLIENTS 6   /* hello'd hostile peers at a time */
#define FLOOD_MIX 100     /* the mix repeats every this many messages */
#define FLOOD_PAST_END (1ull << 40)

enum flood_kind {
	FK_GARBAGE,	   /* random bytes before hello */
	FK_PING,	   /* valid and cheap */
	FK_REPLAY_RECORD,  /* our seq 1 again */
	FK_REPLAY_REQUEST, /* the same signed request again */
	FK_FORGED,	   /* a record with a broken signature */
	FK_TRUNCATED,	   /* a valid record cut short */
	FK_COUNT,	   /* a container count over its cap */
	FK_UNKNOWN,	   /* unknown message type or record kind */
	FK_UNAUTH,	   /* a new signed request for a board not ours */
	FK_BLOB,	   /* blob-get for what the node must not serve */
	FK_N
};

static const struct {
	const char *name;
	int weight; /* per FLOOD_MIX */
	bool bad;   /* counted as garbage: the sender rotates its key */
} s_fk[FK_N] = {
	[FK_GARBAGE] = { "garbage before hello", 30, true },
	[FK_PING] = { "ping", 15, false },
	[FK_REPLAY_RECORD] = { "replayed record", 10, false },
	[FK_REPLAY_REQUEST] = { "replayed request", 10, false },
	[FK_FORGED] = { "forged record", 8, true },
	[FK_TRUNCATED] = { "truncated record", 8, true },
	[FK_COUNT] = { "oversized count", 8, true },
	[FK_UNKNOWN] = { "unknown kind", 5, true },
	[FK_UNAUTH] = { "request for an unauthorised board", 3, false },
	[FK_BLOB] = { "forbidden blob-get", 3, false },
};

/* Hand-made messages whose counts are over their caps. */
static const struct {
	size_t len;
	uint8_t b[8];
} s_counts[] = {
	{ 7, { 0x92, 0x07, 0xdd, 0xff, 0xff, 0xff, 0xff } }, /* 2^32 records */
	{ 5, { 0x92, 0x05, 0xdc, 0x04, 0x01 } },	     /* vector 1025 */
	{ 5, { 0x92, 0x02, 0xdc, 0x00, 0x41 } },	     /* 65 peers */
	{ 5, { 0x92, 0x04, 0xdc, 0x07, 0xd0 } },	     /* 2000 ids */
	{ 7, { 0x92, 0x08, 0xce, 0xff, 0xff, 0xff, 0xff } }, /* credit */
	{ 8, { 0x92, 0x07, 0x91, 0xc6, 0x80, 0, 0, 0 } },    /* 2 GiB record */
};

typedef struct {
	client_t c;
	int bad;
	key_pair_t sub; /* its submitter key */
	uint8_t *rec, *forged, *trunc, *unknown, *req;
	size_t rec_len, forged_len, trunc_len, unknown_len, req_len;
} fclient_t;

typedef struct {
	const char *ep, *server, *lab, *board;
	fclient_t fc[FLOOD_CLIENTS];
	client_t pre;	/* says no hello: garbage */
	int pre_bad;
	client_t lis;	/* says hello with an endpoint it listens on */
	zsock_t *router;
	bool has_blob;
	uint8_t blob[32];
	uint8_t *big_ids, *want, *blob_big; /* over-cap messages, made once */
	size_t big_ids_len;
	uint8_t mix[FLOOD_MIX];
	unsigned long count[FK_N], dropped, rotated;
	uint64_t served_forbidden, served_control, answers;
} flood_t;

static bool s_fsend(client_t *c, const void *p, size_t n)
{
	if (!c->sock ||
	    zmq_send(zsock_resolve(c->sock), p, n, ZMQ_DONTWAIT) < 0)
		return false;
	s_sent++;
	return true;
}

/* [RECORDS, [one record]] with rec's bytes; NULL on failure. */
static uint8_t *s_wrap_record(const uint8_t *rec, size_t len, size_t *ret_len)
{
	proto_bytes_t one = { rec, len };
	msg_t m = { .type = MSG_RECORDS };
	uint8_t *b = NULL;

	m.records.recs = &one;
	m.records.n = 1;
	if (msg_encode(&m, &b, ret_len) < 0)
		return NULL;
	return b;
}

/* A signed request for BOARD of LAB from the client's submitter key. */
static uint8_t *s_flood_request(flood_t *f, fclient_t *fc, size_t *ret_len)
{
	static const char *const suites[] = { "smoke" };
	const char *labs[1] = { f->lab }, *boards[1] = { f->board };
	request_t r = { 0 };
	msg_t m = { .type = MSG_REQUEST };
	uint8_t *q = NULL, *b = NULL, id[32];
	size_t qlen = 0;
	int64_t now = zclock_time();

	r.created_ms = (uint64_t)now - 1000;
	r.expires_ms = (uint64_t)now + 3600 * 1000;
	randombytes_buf(r.nonce, sizeof(r.nonce));
	r.priority = 100;
	r.kernel.type = REQUEST_KERNEL_NONE;
	r.suites = suites;
	r.n_suites = 1;
	r.select.arch = "";
	r.select.labs = labs;
	r.select.n_labs = 1;
	r.select.boards = boards;
	r.select.n_boards = 1;
	if (request_sign(&r, &fc->sub, &q, &qlen, id) < 0)
		return NULL;
	m.request = (proto_bytes_t){ q, qlen };
	if (msg_encode(&m, &b, ret_len) < 0)
		b = NULL;
	free(q);
	return b;
}

static void s_fclient_free(fclient_t *fc)
{
	s_client_close(&fc->c);
	key_wipe(&fc->sub);
	free(fc->rec);
	free(fc->forged);
	free(fc->trunc);
	free(fc->unknown);
	free(fc->req);
	memset(fc, 0, sizeof(*fc));
}

/* A fresh key, its hello, and the records and request it will send. */
static void s_fclient_open(flood_t *f, fclient_t *fc)
{
	record_t r;
	uint8_t *rec = NULL, id[32];
	size_t len = 0, cut;

	s_fclient_free(fc);
	if (s_client_open(&fc->c, f->ep, f->server) < 0 ||
	    key_generate(&fc->sub) < 0)
		return;
	zsock_set_linger(fc->c.sock, 1000);
	s_hello(&fc->c, 1);
	memset(&r, 0, sizeof(r));
	r.head.kind = RECORD_EVENT;
	r.head.seq = 1;
	r.head.ts_ms = (uint64_t)zclock_time();
	r.event.board = "x";
	r.event.state = JOB_QUEUED;
	r.event.suite = "";
	r.event.text = "replayed";
	if (record_sign(&r, &fc->c.kp, &rec, &len, id) < 0)
		return;
	fc->rec = s_wrap_record(rec, len, &fc->rec_len);
	rec[len - 1 - randombytes_uniform(64)] ^= 0x04; /* the signature */
	fc->forged = s_wrap_record(rec, len, &fc->forged_len);
	rec[len - 1 - randombytes_uniform(64)] ^= 0x04;
	cut = 1 + randombytes_uniform((uint32_t)len - 1);
	fc->trunc = s_wrap_record(rec, len - cut, &fc->trunc_len);
	rec[2] = 0x7e; /* [ver, kind, ...]: a kind nobody knows */
	fc->unknown = s_wrap_record(rec, len, &fc->unknown_len);
	free(rec);
	fc->req = s_flood_request(f, fc, &fc->req_len);
	f->rotated++;
}

static void s_flood_bad(flood_t *f, fclient_t *fc)
{
	if (++fc->bad >= HOSTILE_KEY_EVERY) {
		s_fclient_open(f, fc);
		fc->bad = 0;
	}
}

static bool s_send_unknown(fclient_t *fc, uint64_t i)
{
	static const uint8_t types[][3] = {
		{ 0x92, 0x7f, 0x00 }, /* type 127 */
		{ 0x92, 0x0e, 0x00 }, /* one past the last type */
		{ 0x92, 0x00, 0x00 }, /* type 0 */
	};

	if (i % 4 == 3)
		return fc->unknown &&
		       s_fsend(&fc->c, fc->unknown, fc->unknown_len);
	return s_fsend(&fc->c, types[i % 4], sizeof(types[0]));
}

static bool s_send_count(flood_t *f, fclient_t *fc, uint64_t i)
{
	size_t n = sizeof(s_counts) / sizeof(s_counts[0]);
	size_t k = i % (n + 3);

	if (k < n)
		return s_fsend(&fc->c, s_counts[k].b, s_counts[k].len);
	if (k == n)
		return s_fsend(&fc->c, f->big_ids, f->big_ids_len);
	if (k == n + 1)
		return s_fsend(&fc->c, f->want, 42);
	return s_fsend(&fc->c, f->blob_big, 42);
}

/* Blob ids the node does not hold, or past the end of one it holds. */
static bool s_send_blob(flood_t *f, fclient_t *fc, uint64_t i)
{
	msg_t m = { .type = MSG_BLOB_GET };
	client_t *c = f->router ? &f->lis : &fc->c;
	uint8_t *b = NULL;
	size_t len = 0;
	bool ok;

	randombytes_buf(m.blob_get.blob_id, 32);
	m.blob_get.length = 64 * 1024;
	if (f->has_blob && i % 2) {
		memcpy(m.blob_get.blob_id, f->blob, 32);
		m.blob_get.offset = FLOOD_PAST_END;
	}
	if (msg_encode(&m, &b, &len) < 0)
		return false;
	ok = s_fsend(c, b, len);
	free(b);
	return ok;
}

static bool s_flood_one(flood_t *f, enum flood_kind k, uint64_t i)
{
	fclient_t *fc = &f->fc[i % FLOOD_CLIENTS];
	uint8_t junk[1024], *b = NULL;
	size_t len;
	bool ok = false;

	switch (k) {
	case FK_GARBAGE:
		len = 1 + randombytes_uniform(sizeof(junk));
		randombytes_buf(junk, len);
		junk[0] = i % 3 ? 0x92 : junk[0]; /* often a plausible start */
		ok = s_fsend(&f->pre, junk, len);
		if (++f->pre_bad >= HOSTILE_KEY_EVERY) {
			s_client_close(&f->pre);
			s_client_open(&f->pre, f->ep, f->server);
			zsock_set_linger(f->pre.sock, 1000);
			f->pre_bad = 0;
			f->rotated++;
		}
		return ok;
	case FK_PING:
		return s_fsend(&fc->c, (uint8_t[]){ 0x92, 0x0b, 0x05 }, 3);
	case FK_REPLAY_RECORD:
		return fc->rec && s_fsend(&fc->c, fc->rec, fc->rec_len);
	case FK_REPLAY_REQUEST:
		return fc->req && s_fsend(&fc->c, fc->req, fc->req_len);
	case FK_FORGED:
		ok = fc->forged && s_fsend(&fc->c, fc->forged, fc->forged_len);
		break;
	case FK_TRUNCATED:
		ok = fc->trunc && s_fsend(&fc->c, fc->trunc, fc->trunc_len);
		break;
	case FK_COUNT:
		ok = s_send_count(f, fc, i / FLOOD_MIX);
		break;
	case FK_UNKNOWN:
		ok = s_send_unknown(fc, i / FLOOD_MIX);
		break;
	case FK_UNAUTH:
		b = s_flood_request(f, fc, &len);
		ok = b && s_fsend(&fc->c, b, len);
		free(b);
		return ok;
	case FK_BLOB:
		return s_send_blob(f, fc, i / FLOOD_MIX);
	default:
		return false;
	}
	s_flood_bad(f, fc);
	return ok;
}

/* What the node sends our listening peer: count blob bytes served. */
static void s_flood_drain(flood_t *f)
{
	for (int n = 0; f->router && n < 256; n++) {
		zmsg_t *zm = zmsg_recv_nowait(f->router);
		zframe_t *body;
		msg_t *m = NULL;

		if (!zm)
			return;
		body = zmsg_last(zm);
		if (zmsg_size(zm) == 2 &&
		    msg_decode(zframe_data(body), zframe_size(body),
			       PROTO_MAX_MSG, &m) == 0 &&
		    m->type == MSG_BLOB_DATA) {
			bool control = f->has_blob &&
				       memcmp(m->blob_data.blob_id, f->blob,
					      32) == 0 &&
				       m->blob_data.offset < FLOOD_PAST_END;

			f->answers++;
			if (control)
				f->served_control += m->blob_data.data.len;
			else
				f->served_forbidden += m->blob_data.data.len;
		}
		msg_destroy(&m);
		zmsg_destroy(&zm);
	}
}

/* One blob-get for the held blob: proves the node answers at all. */
static void s_flood_control(flood_t *f)
{
	msg_t m = { .type = MSG_BLOB_GET };
	uint8_t *b = NULL;
	size_t len = 0;

	if (!f->router || !f->has_blob)
		return;
	memcpy(m.blob_get.blob_id, f->blob, 32);
	m.blob_get.length = 4096;
	if (msg_encode(&m, &b, &len) == 0)
		s_fsend(&f->lis, b, len);
	free(b);
}

static void s_flood_make(flood_t *f)
{
	size_t n = 0;
	uint8_t *p;

	for (int k = 0; k < FK_N; k++)
		for (int w = 0; w < s_fk[k].weight && n < FLOOD_MIX; w++)
			f->mix[n++] = (uint8_t)k;
	for (size_t i = FLOOD_MIX - 1; i > 0; i--) { /* shuffle */
		size_t j = randombytes_uniform((uint32_t)i + 1);
		uint8_t t = f->mix[i];

		f->mix[i] = f->mix[j];
		f->mix[j] = t;
	}
	/* [REQUEST_IDS, 1025 ids]: complete, one over the cap */
	f->big_ids_len = 5 + (PROTO_MAX_IDS + 1) * 34;
	f->big_ids = p = xmalloc(f->big_ids_len);
	memcpy(p, (uint8_t[]){ 0x92, 0x04, 0xdc, 0x04, 0x01 }, 5);
	for (p += 5; p < f->big_ids + f->big_ids_len; p += 34) {
		p[0] = 0xc4;
		p[1] = 32;
		randombytes_buf(p + 2, 32);
	}
	/* [WANT, author, 1, 100000] and [BLOB_GET, id, 0, 1 MiB] */
	f->want = xzalloc(42);
	memcpy(f->want, (uint8_t[]){ 0x94, 0x06, 0xc4, 0x20 }, 4);
	memcpy(f->want + 36, (uint8_t[]){ 0x01, 0xce, 0x00, 0x01, 0x86,
					  0xa0 }, 6);
	f->blob_big = xzalloc(42);
	memcpy(f->blob_big, (uint8_t[]){ 0x94, 0x09, 0xc4, 0x20 }, 4);
	memcpy(f->blob_big + 36, (uint8_t[]){ 0x00, 0xce, 0x00, 0x10, 0x00,
					      0x00 }, 6);
}

static void s_flood_report(flood_t *f, double secs)
{
	unsigned long total = 0;

	for (int k = 0; k < FK_N; k++) {
		printf("  %-36s %lu\n", s_fk[k].name, f->count[k]);
		total += f->count[k];
	}
	printf("keys used %lu, messages not queued (high-water mark) %lu,"
	       " blob answers %" PRIu64 "\n", f->rotated, f->dropped,
	       f->answers);
	printf("flood: %lu messages in %.2f s, %.0f msg/s; blob bytes served:"
	       " forbidden %" PRIu64 ", control %" PRIu64 "\n", total, secs,
	       total / secs, f->served_forbidden, f->served_control);
}

static volatile sig_atomic_t s_stop; /* SIGTERM: stop, then report */

static void s_on_term(int sig)
{
	(void)sig;
	s_stop = 1;
}

static void s_flood_run(flood_t *f, double secs, long rate)
{
	int64_t t0 = zclock_usecs(), end = t0 + (int64_t)(secs * 1e6);
	int64_t now, next_control = t0;
	uint64_t i = 0;

	signal(SIGTERM, s_on_term);
	while ((now = zclock_usecs()) < end && !s_stop) {
		uint64_t due = (uint64_t)((now - t0) * rate / 1000000);

		if (now >= next_control) {
			s_flood_control(f);
			next_control = now + 250 * 1000;
		}
		if (i >= due) {
			s_flood_drain(f);
			zclock_sleep(1);
			continue;
		}
		for (; i < due; i++) {
			enum flood_kind k = f->mix[i % FLOOD_MIX];

			if (s_flood_one(f, k, i))
				f->count[k]++;
			else
				f->dropped++;
		}
	}
	now = zclock_usecs();
	/* the answers to the last requests */
	for (int t = 0; t < 10; t++) {
		zclock_sleep(100);
		s_flood_drain(f);
	}
	s_flood_report(f, (double)(now - t0) / 1e6);
}

/* flood ENDPOINT NODE_ID SECONDS RATE LAB BOARD [PORT [BLOB]] */
static int s_flood_main(int argc, char **argv)
{
	flood_t f = { .ep = argv[2], .lab = argv[6], .board = argv[7] };
	char server[KEY_Z85_LEN + 1];
	uint8_t victim[32];
	double secs = atof(argv[4]);
	long rate = atol(argv[5]);
	int port = argc > 8 ? atoi(argv[8]) : 0;

	if (key_parse_hex(argv[3], victim) < 0 ||
	    key_curve_public(victim, server) < 0 || secs <= 0 || rate <= 0)
		return 2;
	f.server = server;
	if (argc > 9 && key_parse_hex(argv[9], f.blob) == 0)
		f.has_blob = true;
	s_flood_make(&f);
	if (port > 0 && s_client_open(&f.lis, f.ep, server) == 0) {
		f.router = zsock_new(ZMQ_ROUTER);
		zsock_set_curve_server(f.router, 1);
		zsock_set_curve_secretkey(f.router, f.lis.sec);
		if (zsock_bind(f.router, "tcp://127.0.0.1:%d", port) < 0) {
			fprintf(stderr, "hostile: cannot listen on %d\n", port);
			return 1;
		}
		s_hello(&f.lis, port);
		zclock_sleep(300); /* the node connects back */
	}
	s_client_open(&f.pre, f.ep, server);
	for (int c = 0; c < FLOOD_CLIENTS; c++)
		s_fclient_open(&f, &f.fc[c]);
	zclock_sleep(200); /* the hellos first */
	s_flood_run(&f, secs, rate);
	for (int c = 0; c < FLOOD_CLIENTS; c++)
		s_fclient_free(&f.fc[c]);
	s_client_close(&f.pre);
	s_client_close(&f.lis);
	zsock_destroy(&f.router);
	free(f.big_ids);
	free(f.want);
	free(f.blob_big);
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t victim[32];
	char server[KEY_Z85_LEN + 1];
	int n = 10000;

	zsys_handler_set(NULL);
	if (sodium_init() < 0)
		return 2;
	if (argc == 3 && strcmp(argv[1], "plain") == 0)
		return s_plain(argv[2]);
	if (argc == 4 && strcmp(argv[1], "equivocate") == 0) {
		if (key_parse_hex(argv[3], victim) < 0 ||
		    key_curve_public(victim, server) < 0)
			return 2;
		return s_equivocate(argv[2], server);
	}
	if (argc == 4 && strcmp(argv[1], "make-request") == 0)
		return s_make_request(argv[2], atol(argv[3]));
	if (argc >= 8 && strcmp(argv[1], "flood") == 0)
		return s_flood_main(argc, argv);
	if (argc < 4 || strcmp(argv[1], "attack") != 0 ||
	    key_parse_hex(argv[3], victim) < 0 ||
	    key_curve_public(victim, server) < 0) {
		fprintf(stderr, "usage: hostile plain ENDPOINT | hostile attack"
				" ENDPOINT NODE_ID [N]\n");
		return 2;
	}
	if (argc > 4)
		n = atoi(argv[4]);
	s_garbage(argv[2], server, n);
	s_oversized(argv[2], server);
	s_noncanonical(argv[2], server, 50);
	s_forged(argv[2], server, victim, 200);
	printf("sent %lu messages\n", s_sent);
	return 0;
}
