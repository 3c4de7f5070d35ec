/*
 * hostile_flood: the sustained flood of the hostile test peer (usage in
 * hostile.c). RATE messages a second for SECONDS, a mix repeating every
 * FLOOD_MIX messages (s_fk): garbage before hello from a key that never
 * says hello, and from FLOOD_CLIENTS hello'd peers pings, replayed
 * records and requests, forged and truncated records, counts over their
 * caps, unknown message and record kinds, newly signed requests for a
 * board the node's policy keeps from us, and blob-gets for blobs it must
 * not serve. A peer that sends bad messages takes a fresh key before the
 * node would ban it. One more peer listens on its own endpoint and counts
 * the blob bytes the node serves it. SIGTERM ends the flood early; the
 * report follows either way.
 */
#include "node/tests/hostile.h"

#include "proto/mem.h"
#include "proto/msg.h"
#include "proto/record.h"
#include "proto/request.h"

#include <inttypes.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	peerlib_client_t c;
	int bad;
	key_pair_t sub; /* its submitter key */
	uint8_t *rec, *forged, *trunc, *unknown, *req;
	size_t rec_len, forged_len, trunc_len, unknown_len, req_len;
} fclient_t;

typedef struct {
	const char *ep, *server, *lab, *board;
	fclient_t fc[FLOOD_CLIENTS];
	peerlib_client_t pre;	/* says no hello: garbage */
	int pre_bad;
	peerlib_client_t lis;	/* says hello with an endpoint it listens on */
	zsock_t *router;
	bool has_blob;
	uint8_t blob[32];
	uint8_t *big_ids, *want, *blob_big; /* over-cap messages, made once */
	size_t big_ids_len;
	uint8_t mix[FLOOD_MIX];
	unsigned long count[FK_N], dropped, rotated;
	uint64_t served_forbidden, served_control, answers;
} flood_t;

static bool s_fsend(peerlib_client_t *c, const void *p, size_t n)
{
	if (!c->sock ||
	    zmq_send(zsock_resolve(c->sock), p, n, ZMQ_DONTWAIT) < 0)
		return false;
	peerlib_sent++;
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
	return hostile_request_msg(&fc->sub, f->lab, f->board, 3600 * 1000, 100,
				   ret_len);
}

static void s_fclient_free(fclient_t *fc)
{
	peerlib_close(&fc->c);
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
	if (peerlib_open(&fc->c, f->ep, f->server) < 0 ||
	    key_generate(&fc->sub) < 0)
		return;
	zsock_set_linger(fc->c.sock, 1000);
	peerlib_hello(&fc->c, 1);
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
	peerlib_client_t *c = f->router ? &f->lis : &fc->c;
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
			peerlib_close(&f->pre);
			peerlib_open(&f->pre, f->ep, f->server);
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
int hostile_flood_main(int argc, char **argv)
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
	if (port > 0 && peerlib_open(&f.lis, f.ep, server) == 0) {
		f.router = zsock_new(ZMQ_ROUTER);
		zsock_set_curve_server(f.router, 1);
		zsock_set_curve_secretkey(f.router, f.lis.sec);
		if (zsock_bind(f.router, "tcp://127.0.0.1:%d", port) < 0) {
			fprintf(stderr, "hostile: cannot listen on %d\n", port);
			return 1;
		}
		peerlib_hello(&f.lis, port);
		zclock_sleep(300); /* the node connects back */
	}
	peerlib_open(&f.pre, f.ep, server);
	for (int c = 0; c < FLOOD_CLIENTS; c++)
		s_fclient_open(&f, &f.fc[c]);
	zclock_sleep(200); /* the hellos first */
	s_flood_run(&f, secs, rate);
	for (int c = 0; c < FLOOD_CLIENTS; c++)
		s_fclient_free(&f.fc[c]);
	peerlib_close(&f.pre);
	peerlib_close(&f.lis);
	zsock_destroy(&f.router);
	free(f.big_ids);
	free(f.want);
	free(f.blob_big);
	return 0;
}

