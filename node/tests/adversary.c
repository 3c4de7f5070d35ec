/*
 * adversary: an admitted peer that sends a node, for every message kind,
 * the extreme values of every field the protocol allows (proto/msg.h):
 * empty lists, maximal counts, invented ids and authors, far seqs, all
 * repeated without reading the answers. Everything it sends decodes: it
 * attacks the cost of handling valid messages, not the decoder (hostile
 * does that).
 *
 *   adversary MODE ENDPOINT NODE_ID PORT SECONDS [ARG...]
 *       say hello as a peer (with a fresh key, naming tcp://127.0.0.1:PORT,
 *       where a CURVE listener takes the node's answers), then run MODE
 *       for SECONDS or until SIGTERM; print "MODE: N messages in S s (D
 *       refused at the high-water mark)". Modes (see s_modes for rates):
 *         request-ids    empty lists and lists of 1,024 invented ids
 *         request-summary
 *                        summaries of 256 buckets around now, each of
 *                        2^32-1 requests and a random hash, and empty ones
 *         request-ids-in 1,024 invented ids in the 256 buckets around now,
 *                        and no bucket at all
 *         vectors        vectors of 1,024 invented authors at seqs up to
 *                        2^62, ~15 a second, wants never answered
 *         liar AUTHOR    AUTHOR's feed claimed at seq 2^62, wants never
 *                        answered
 *         digest         digests of random hashes, each range at count 0
 *                        or 2^32-1: each differs from the node's own in
 *                        every range, ~50 a second
 *         ranges         answers to digests never sent: all 64 ranges,
 *                        1,024 invented authors at seqs up to 2^62
 *         subdigest      subdigests of every range in turn, 64 sub-ranges
 *                        of random hashes at count 2^32-1, ~50 a second
 *                        (those of the node's digests are answered)
 *         subranges      answers to subdigests never sent: 1,024 invented
 *                        authors of a range, every sub-range
 *         request-times  signed requests with absurd times (created 2^62
 *                        / expires 2^63, a lifetime of a century...)
 *         hellos         hellos with a rising epoch
 *         blob-get [BLOB] a blob held by the node (64 hex), whole chunks,
 *                        and invented blobs at offset 2^62 that may be
 *                        relayed (hops PROTO_MAX_BLOB_HOPS)
 *         peers          64 descriptors of invented nodes, epoch 2^62,
 *                        8 endpoints each (PORT+2..PORT+9, closed), and
 *                        empty lists
 *         peers-delta    the same descriptors joined and 64 random ids
 *                        left, and empty deltas
 *         request        requests of the largest size (64 suites, 256
 *                        boards, 32 tags) and that same one again
 *         want AUTHOR    want(AUTHOR, 1, 1024) and want(invented, 2^62,
 *                        1024), never reading the records
 *         records        64 records of our feed at seq 2^62 and 64 first
 *                        records of invented authors a message
 *         credit AUTHOR  one want of AUTHOR's feed, then credit 1,024 over
 *                        and over, never reading
 *         blob-data      unsolicited chunks of 256 KiB of invented blobs at
 *                        offset 2^62
 *         ping / pong    nonces 2^64-1 and random, never reading
 *         cancel         signed cancels of invented requests at ts 2^63
 *         lease          signed lease takes of fresh keys, for invented
 *                        labs and for "target" at the longest lease
 *         relay          exec operations of no lease holder with 48 KiB
 *                        of data, to invented nodes, at 0 and the most hops
 *         relay-back     replies of fresh keys to operations never sent
 *   adversary slow-relay ENDPOINT NODE_ID PORT SECONDS AUTHOR AUTHOR_EP
 *             [KEYFILE]
 *       peer also with AUTHOR's node (at AUTHOR_EP, its answers on PORT+1;
 *       as the key in KEYFILE, when AUTHOR's node trusts only some keys),
 *       take its feed honestly, claim to the node what it holds and answer
 *       the node's wants with one record every SLOW_RELAY_MS.
 *   adversary mute-author ENDPOINT NODE_ID PORT SECONDS RELAY_ID RELAY_EP N
 *       an author: write N records of our own feed, peer also with the node
 *       RELAY_ID (at RELAY_EP, its answers on PORT+1, with the same key),
 *       claim the feed to both, serve the relay's wants and never the
 *       node's: the node must take the feed from the relay.
 *   adversary lagging-author ENDPOINT NODE_ID PORT SECONDS RELAY_ID RELAY_EP
 *             N LAG_MS TRICKLE_MS
 *       the same author, serving the relay at once and the node behind on
 *       its reading: each message of the node is read LAG_MS after it came
 *       (pings answered then), and a want answered with one record every
 *       TRICKLE_MS until its stop is read. The node gives up on it and
 *       must take the rest from the relay, each record once: what we sent
 *       before we read the stop comes first.
 *   adversary fill-requests ENDPOINT NODE_ID N
 *       hand the node N distinct valid requests of ~16.5 KB (for a lab
 *       named "nowhere", expiring in an hour) from peers with fresh keys,
 *       under its per-peer rate; what request-ids makes it send.
 *   adversary http HOST PORT N SECONDS
 *       hold N connections to the dashboard, each with a half-sent GET,
 *       opening new ones as the server closes them; print how many were
 *       open at the end and how many were opened in all.
 */
#include "node/tests/peerlib.h"

#include "proto/desc.h"
#include "proto/error.h"
#include "proto/keys.h"
#include "proto/lease.h"
#include "proto/msg.h"
#include "proto/record.h"
#include "proto/request.h"

#include <arpa/inet.h>
#include <czmq.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#define FAR_SEQ (1ull << 62)
#define FAR_TIME (1ull << 63)
#define SLOW_RELAY_MS 4900
#define FILL_PER_KEY 250	/* requests per peer key: under 600 a minute */
#define FILL_BOARDS 240		/* selector boards of ~64 bytes: ~16.5 KB */
#define RELAY_MAX_RECORDS 65536 /* records of the relayed feed we keep */
#define POOL 64			/* signed things made before the attack */

static volatile sig_atomic_t s_stop; /* SIGTERM: report and leave */

typedef struct adv adv_t;
typedef uint8_t *(*gen_fn)(adv_t *a, unsigned long n, size_t *ret_len);

struct adv {
	const char *ep, *server;
	int port;
	double secs;
	peerlib_client_t c;
	zsock_t *l;
	uint8_t author[32]; /* the AUTHOR (or BLOB) argument */
	bool has_author;
	/* made before the attack */
	uint8_t *pool[POOL];
	size_t pool_len[POOL];
	uint8_t *last; /* the request sent again */
	size_t last_len;
	uint64_t epoch;
	uint64_t features; /* said in the node's hello */
};

static uint8_t *s_encode(const msg_t *m, size_t *ret_len)
{
	uint8_t *b = NULL;
	int rc = msg_encode(m, &b, ret_len);

	if (rc < 0) {
		fprintf(stderr, "adversary: msg_encode %s: %s\n",
			msg_type_name(m->type), proto_strerror(rc));
		return NULL;
	}
	return b;
}

/* The pools are made once: a signing that fails is the adversary's own
 * bug (it would remake its pool for every message), so it stops. */
static void s_made(const char *what, int rc)
{
	if (rc < 0) {
		fprintf(stderr, "adversary: %s: %s\n", what, proto_strerror(rc));
		exit(2);
	}
}

static uint64_t s_rand64(void)
{
	uint64_t v;

	randombytes_buf(&v, sizeof(v));
	return v;
}

static int s_cmp32(const void *a, const void *b)
{
	return memcmp(a, b, 32);
}

/* ---- generators: message n of a mode --------------------------------- */

static uint8_t *s_gen_request_ids(adv_t *a, unsigned long n, size_t *ret_len)
{
	static uint8_t ids[PROTO_MAX_IDS * 32];
	msg_t m = { .type = MSG_REQUEST_IDS };

	(void)a;
	if (n % 2) {
		randombytes_buf(ids, sizeof(ids));
		m.request_ids.ids = ids;
		m.request_ids.n = PROTO_MAX_IDS;
	}
	return s_encode(&m, ret_len);
}

/* The 256 buckets of requests' expiry around now, ascending. */
static uint32_t s_bucket_now(void)
{
	return msg_req_bucket((uint64_t)time(NULL) * 1000) -
	       PROTO_MAX_REQ_BUCKETS / 2;
}

static uint8_t *s_gen_request_summary(adv_t *a, unsigned long n,
				      size_t *ret_len)
{
	static msg_req_bucket_t b[PROTO_MAX_REQ_BUCKETS];
	msg_t m = { .type = MSG_REQUEST_SUMMARY };
	uint32_t first = s_bucket_now();

	(void)a;
	if (n % 2) {
		for (uint32_t i = 0; i < PROTO_MAX_REQ_BUCKETS; i++)
			b[i] = (msg_req_bucket_t){ first + i, UINT32_MAX,
						   s_rand64() };
		m.request_summary.buckets = b;
		m.request_summary.n = PROTO_MAX_REQ_BUCKETS;
	}
	return s_encode(&m, ret_len);
}

static uint8_t *s_gen_request_ids_in(adv_t *a, unsigned long n,
				     size_t *ret_len)
{
	static uint8_t ids[PROTO_MAX_IDS * 32];
	static uint32_t b[PROTO_MAX_REQ_BUCKETS];
	msg_t m = { .type = MSG_REQUEST_IDS_IN };
	uint32_t first = s_bucket_now();

	(void)a;
	if (n % 2) {
		for (uint32_t i = 0; i < PROTO_MAX_REQ_BUCKETS; i++)
			b[i] = first + i;
		randombytes_buf(ids, sizeof(ids));
		m.request_ids_in.buckets = b;
		m.request_ids_in.n_buckets = PROTO_MAX_REQ_BUCKETS;
		m.request_ids_in.ids = ids;
		m.request_ids_in.n = PROTO_MAX_IDS;
	}
	return s_encode(&m, ret_len);
}

/* PROTO_MAX_VECTOR entries of invented authors at seqs up to FAR_SEQ,
 * in range (the authors' first 6 bits; -1: any), sorted by author (the
 * entry is author then seq: sorting by the first 32 bytes does it). */
static void s_invented(msg_vec_entry_t *v, int range)
{
	for (size_t i = 0; i < PROTO_MAX_VECTOR; i++) {
		randombytes_buf(v[i].author, 32);
		if (range >= 0)
			v[i].author[0] = (uint8_t)(range << 2 |
						   (v[i].author[0] & 3));
		v[i].seq = 1 + s_rand64() % FAR_SEQ;
	}
	qsort(v, PROTO_MAX_VECTOR, sizeof(v[0]), s_cmp32);
}

static uint8_t *s_gen_vectors(adv_t *a, unsigned long n, size_t *ret_len)
{
	static msg_vec_entry_t v[PROTO_MAX_VECTOR];
	msg_t m = { .type = MSG_VECTOR };

	(void)a;
	(void)n;
	s_invented(v, -1);
	m.vector.entries = v;
	m.vector.n = PROTO_MAX_VECTOR;
	return s_encode(&m, ret_len);
}

static uint8_t *s_gen_digest(adv_t *a, unsigned long n, size_t *ret_len)
{
	static msg_digest_range_t d[PROTO_DIGEST_RANGES];
	msg_t m = { .type = MSG_DIGEST };

	(void)a;
	for (size_t i = 0; i < PROTO_DIGEST_RANGES; i++) {
		d[i].count = n % 2 ? UINT32_MAX : 0;
		d[i].hash = s_rand64();
	}
	m.digest.ranges = d;
	return s_encode(&m, ret_len);
}

static uint8_t *s_gen_ranges(adv_t *a, unsigned long n, size_t *ret_len)
{
	static msg_vec_entry_t v[PROTO_MAX_VECTOR];
	msg_t m = { .type = MSG_RANGES };

	(void)a;
	(void)n;
	s_invented(v, -1);
	m.ranges.mask = UINT64_MAX;
	m.ranges.entries = v;
	m.ranges.n = PROTO_MAX_VECTOR;
	return s_encode(&m, ret_len);
}

static uint8_t *s_gen_subdigest(adv_t *a, unsigned long n, size_t *ret_len)
{
	static msg_sub_range_t d[PROTO_DIGEST_RANGES];
	msg_t m = { .type = MSG_SUBDIGEST };

	(void)a;
	for (uint32_t i = 0; i < PROTO_DIGEST_RANGES; i++)
		d[i] = (msg_sub_range_t){ i, UINT32_MAX, s_rand64() };
	m.subdigest.range = (uint32_t)(n % PROTO_DIGEST_RANGES);
	m.subdigest.subs = d;
	m.subdigest.n = PROTO_DIGEST_RANGES;
	return s_encode(&m, ret_len);
}

static uint8_t *s_gen_subranges(adv_t *a, unsigned long n, size_t *ret_len)
{
	static msg_vec_entry_t v[PROTO_MAX_VECTOR];
	msg_t m = { .type = MSG_SUBRANGES };
	uint32_t range = (uint32_t)(n % PROTO_DIGEST_RANGES);

	(void)a;
	s_invented(v, (int)range);
	m.subranges.range = range;
	m.subranges.mask = UINT64_MAX;
	m.subranges.entries = v;
	m.subranges.n = PROTO_MAX_VECTOR;
	return s_encode(&m, ret_len);
}

static uint8_t *s_gen_liar(adv_t *a, unsigned long n, size_t *ret_len)
{
	msg_vec_entry_t v;
	msg_t m = { .type = MSG_VECTOR };

	(void)n;
	memcpy(v.author, a->author, 32);
	v.seq = FAR_SEQ;
	m.vector.entries = &v;
	m.vector.n = 1;
	return s_encode(&m, ret_len);
}

static uint8_t *s_wrap_request(uint8_t *q, size_t qlen, size_t *ret_len)
{
	msg_t m = { .type = MSG_REQUEST };
	uint8_t *b;

	if (!q)
		return NULL;
	m.request = (proto_bytes_t){ q, qlen };
	b = s_encode(&m, ret_len);
	free(q);
	return b;
}

/* The signed bytes of a request by kp; big: every list at its cap. */
static uint8_t *s_request_bytes(const key_pair_t *kp, uint64_t created,
				uint64_t expires, bool big, size_t n_boards,
				size_t *ret_len)
{
	static char names[PROTO_MAX_SEL_BOARDS][PROTO_MAX_NAME + 1];
	static const char *boards[PROTO_MAX_SEL_BOARDS],
		*suites[PROTO_MAX_SUITES], *tags[PROTO_MAX_TAGS];
	const char *labs[1] = { "nowhere" };
	request_t r = { 0 };
	uint8_t *q = NULL, id[32];
	int rc;

	for (size_t i = 0; i < PROTO_MAX_SEL_BOARDS; i++) {
		memset(names[i], 'b', PROTO_MAX_NAME);
		snprintf(names[i], 8, "n%05zu", i);
		names[i][6] = 'x';
		names[i][PROTO_MAX_NAME] = 0;
		boards[i] = names[i];
	}
	for (size_t i = 0; i < PROTO_MAX_SUITES; i++)
		suites[i] = names[i];
	for (size_t i = 0; i < PROTO_MAX_TAGS; i++)
		tags[i] = names[i];
	r.created_ms = created;
	r.expires_ms = expires;
	randombytes_buf(r.nonce, sizeof(r.nonce));
	r.priority = PROTO_MAX_PRIORITY;
	r.kernel.type = REQUEST_KERNEL_NONE;
	r.suites = suites;
	r.n_suites = big ? PROTO_MAX_SUITES : 1;
	r.select.arch = "";
	r.select.labs = labs;
	r.select.n_labs = 1;
	r.select.boards = boards;
	r.select.n_boards = n_boards;
	r.select.tags = tags;
	r.select.n_tags = big ? PROTO_MAX_TAGS : 0;
	r.select.max_per_lab = big ? PROTO_MAX_BOARDS : 0;
	rc = request_sign(&r, kp, &q, ret_len, id);
	if (rc < 0) {
		fprintf(stderr, "adversary: request_sign: %s\n",
			proto_strerror(rc));
		return NULL;
	}
	return q;
}

/* A request message from a fresh submitter (see s_request_bytes). */
static uint8_t *s_request(uint64_t created, uint64_t expires, bool big,
			  size_t n_boards, size_t *ret_len)
{
	key_pair_t kp;
	uint8_t *q;
	size_t qlen = 0;

	if (key_generate(&kp) < 0)
		return NULL;
	q = s_request_bytes(&kp, created, expires, big, n_boards, &qlen);
	key_wipe(&kp);
	return s_wrap_request(q, qlen, ret_len);
}

/*
 * A request whose times our own encoder may refuse: signed with ordinary
 * times of the same width (uint64: [0x9a, version, bin 32 submitter,
 * 0xcf created, 0xcf expires, ...]), those two fields overwritten, and
 * signed again over REQUEST_SIG_PREFIX (its NUL too) and the bytes up to
 * the signature's bin header.
 */
static uint8_t *s_request_at(uint64_t created, uint64_t expires,
			     size_t *ret_len)
{
	const size_t at = 1 + 1 + 2 + 32, plen = sizeof(REQUEST_SIG_PREFIX);
	uint64_t now = (uint64_t)zclock_time();
	key_pair_t kp;
	uint8_t *q, *m;
	size_t qlen = 0;

	if (created >> 32 == 0 || expires >> 32 == 0 || key_generate(&kp) < 0)
		return NULL;
	q = s_request_bytes(&kp, now - 1000, now + 3600 * 1000, false, 0,
			    &qlen);
	if (!q || qlen < at + 18 + 66 || q[at] != 0xcf || q[at + 9] != 0xcf) {
		free(q);
		key_wipe(&kp);
		return NULL;
	}
	for (int i = 0; i < 8; i++) {
		q[at + 1 + i] = (uint8_t)(created >> (56 - 8 * i));
		q[at + 10 + i] = (uint8_t)(expires >> (56 - 8 * i));
	}
	m = malloc(plen + qlen - 66);
	memcpy(m, REQUEST_SIG_PREFIX, plen);
	memcpy(m + plen, q, qlen - 66);
	crypto_sign_detached(q + qlen - 64, NULL, m, plen + qlen - 66, kp.sk);
	free(m);
	key_wipe(&kp);
	return s_wrap_request(q, qlen, ret_len);
}

static uint8_t *s_gen_request_times(adv_t *a, unsigned long n,
				    size_t *ret_len)
{
	uint64_t now = (uint64_t)zclock_time();
	uint64_t century = 100ull * 365 * 24 * 3600 * 1000;

	(void)a;
	switch (n % 4) {
	case 0:
		return s_request_at(FAR_SEQ, FAR_TIME, ret_len);
	case 1: /* born now, kept for a century */
		return s_request_at(now - 1000, now + century, ret_len);
	case 2: /* the widest range of the same width */
		return s_request_at(1ull << 32, UINT64_MAX, ret_len);
	default: /* created in the far future, expiring a moment later */
		return s_request_at(FAR_TIME, FAR_TIME + 1, ret_len);
	}
}

static uint8_t *s_gen_hellos(adv_t *a, unsigned long n, size_t *ret_len)
{
	const char *eps[1];
	char ep[64];
	node_desc_t d = { 0 };
	msg_t m = { .type = MSG_HELLO };
	uint8_t *desc = NULL, *b, id[32];
	size_t dlen = 0;

	(void)n;
	snprintf(ep, sizeof(ep), "tcp://127.0.0.1:%d", a->port);
	eps[0] = ep;
	d.lab = "adversary";
	d.endpoints = eps;
	d.n_endpoints = 1;
	d.software = "adversary";
	d.ts_ms = (uint64_t)zclock_time();
	d.epoch = ++a->epoch;
	if (desc_sign(&d, &a->c.kp, &desc, &dlen, id) < 0)
		return NULL;
	m.hello.version = PROTO_VERSION;
	m.hello.features = UINT64_MAX;
	m.hello.desc = (proto_bytes_t){ desc, dlen };
	b = s_encode(&m, ret_len);
	free(desc);
	return b;
}

static uint8_t *s_gen_blob_get(adv_t *a, unsigned long n, size_t *ret_len)
{
	msg_t m = { .type = MSG_BLOB_GET };

	m.blob_get.length = PROTO_MAX_BLOB_CHUNK;
	if (a->has_author && n % 2 == 0) {
		memcpy(m.blob_get.blob_id, a->author, 32);
		m.blob_get.offset = (uint64_t)(n / 2 % 16) * PROTO_MAX_BLOB_CHUNK;
	} else {
		/* and may be relayed as far as any ask: each makes the
		 * target try to fetch it from its other peers */
		randombytes_buf(m.blob_get.blob_id, 32);
		m.blob_get.offset = FAR_SEQ;
		m.blob_get.hops = PROTO_MAX_BLOB_HOPS;
	}
	return s_encode(&m, ret_len);
}

/* POOL descriptors of invented nodes, made once. */
static void s_make_descs(adv_t *a)
{
	static char eps[PROTO_MAX_ENDPOINTS][64];
	const char *ep[PROTO_MAX_ENDPOINTS];

	for (int i = 0; i < PROTO_MAX_ENDPOINTS; i++) {
		/* ports nobody listens on: the 8 after our two */
		snprintf(eps[i], sizeof(eps[i]), "tcp://127.0.0.1:%d",
			 a->port + 2 + i);
		ep[i] = eps[i];
	}
	for (int i = 0; i < POOL; i++) {
		node_desc_t d = { 0 };
		key_pair_t kp;
		uint8_t id[32];

		key_generate(&kp);
		d.lab = "invented";
		d.endpoints = ep;
		d.n_endpoints = PROTO_MAX_ENDPOINTS;
		d.software = "adversary";
		d.ts_ms = FAR_TIME;
		d.epoch = FAR_SEQ;
		s_made("desc_sign",
		       desc_sign(&d, &kp, &a->pool[i], &a->pool_len[i], id));
		key_wipe(&kp);
	}
}

static uint8_t *s_gen_peers(adv_t *a, unsigned long n, size_t *ret_len)
{
	proto_bytes_t d[PROTO_MAX_PEERS];
	msg_t m = { .type = MSG_PEERS };

	if (!a->pool[0])
		s_make_descs(a);
	if (n % 4) {
		for (int i = 0; i < PROTO_MAX_PEERS; i++)
			d[i] = (proto_bytes_t){ a->pool[i % POOL],
						a->pool_len[i % POOL] };
		m.peers.descs = d;
		m.peers.n = PROTO_MAX_PEERS;
	}
	return s_encode(&m, ret_len);
}

/* What joined and left a table that never was: PROTO_MAX_PEERS of each,
 * the ids that left made up; every fourth one empty. */
static uint8_t *s_gen_peers_delta(adv_t *a, unsigned long n, size_t *ret_len)
{
	static uint8_t gone[PROTO_MAX_PEERS * 32];
	proto_bytes_t d[PROTO_MAX_PEERS];
	msg_t m = { .type = MSG_PEERS_DELTA };

	if (!a->pool[0])
		s_make_descs(a);
	if (n % 4) {
		for (int i = 0; i < PROTO_MAX_PEERS; i++)
			d[i] = (proto_bytes_t){ a->pool[(i + n) % POOL],
						a->pool_len[(i + n) % POOL] };
		randombytes_buf(gone, sizeof(gone));
		m.peers.descs = d;
		m.peers.n = PROTO_MAX_PEERS;
		m.peers.gone = gone;
		m.peers.n_gone = PROTO_MAX_PEERS;
	}
	return s_encode(&m, ret_len);
}

static uint8_t *s_gen_request(adv_t *a, unsigned long n, size_t *ret_len)
{
	uint64_t now = (uint64_t)zclock_time();
	uint8_t *b;

	/* a new one of the largest size now and then, under the per-peer
	 * rate; the same bytes again in between */
	if (!a->last || n % 100 == 0) {
		free(a->last);
		a->last = s_request(now - 1000, now + 3600 * 1000, true,
				    PROTO_MAX_SEL_BOARDS, &a->last_len);
		if (!a->last)
			return NULL;
	}
	b = malloc(a->last_len);
	memcpy(b, a->last, a->last_len);
	*ret_len = a->last_len;
	return b;
}

static uint8_t *s_gen_want(adv_t *a, unsigned long n, size_t *ret_len)
{
	msg_t m = { .type = MSG_WANT };

	m.want.max = PROTO_MAX_WANT;
	if (a->has_author && n % 2 == 0) {
		memcpy(m.want.author, a->author, 32);
		m.want.from_seq = 1;
	} else {
		randombytes_buf(m.want.author, 32);
		m.want.from_seq = FAR_SEQ;
	}
	return s_encode(&m, ret_len);
}

/* A records message of PROTO_MAX_BATCH events: ours at far seqs that
 * chain on nothing we sent, or the first of invented authors' feeds. */
static uint8_t *s_gen_records(adv_t *a, unsigned long n, size_t *ret_len)
{
	proto_bytes_t recs[PROTO_MAX_BATCH];
	uint8_t *bytes[PROTO_MAX_BATCH] = { 0 };
	msg_t m = { .type = MSG_RECORDS };
	uint8_t *b = NULL;
	int k = 0;

	for (; k < PROTO_MAX_BATCH; k++) {
		record_t r;
		key_pair_t kp;
		uint8_t id[32];
		size_t len = 0;
		bool ours = n % 2 == 0;
		int rc;

		memset(&r, 0, sizeof(r));
		r.head.kind = RECORD_EVENT;
		r.head.seq = ours ? FAR_SEQ + n * PROTO_MAX_BATCH + k : 1;
		r.head.has_prev = ours;
		randombytes_buf(r.head.prev_id, 32);
		r.head.ts_ms = FAR_TIME;
		r.event.board = "x";
		r.event.state = JOB_QUEUED;
		r.event.suite = "";
		r.event.text = "adversary";
		if (!ours)
			key_generate(&kp);
		rc = record_sign(&r, ours ? &a->c.kp : &kp, &bytes[k], &len,
				 id);
		if (!ours)
			key_wipe(&kp);
		if (rc < 0)
			break;
		recs[k] = (proto_bytes_t){ bytes[k], len };
	}
	if (k == PROTO_MAX_BATCH) {
		m.records.recs = recs;
		m.records.n = k;
		b = s_encode(&m, ret_len);
	}
	for (int i = 0; i < k; i++)
		free(bytes[i]);
	return b;
}

static uint8_t *s_gen_credit(adv_t *a, unsigned long n, size_t *ret_len)
{
	msg_t m = { .type = MSG_CREDIT };

	if (n == 0 && a->has_author) {
		m.type = MSG_WANT;
		memcpy(m.want.author, a->author, 32);
		m.want.from_seq = 1;
		m.want.max = PROTO_MAX_WANT;
	}
	m.credit = PROTO_MAX_CREDIT;
	return s_encode(&m, ret_len);
}

static uint8_t *s_gen_blob_data(adv_t *a, unsigned long n, size_t *ret_len)
{
	static uint8_t chunk[PROTO_MAX_BLOB_CHUNK];
	msg_t m = { .type = MSG_BLOB_DATA };

	(void)a;
	randombytes_buf(m.blob_data.blob_id, 32);
	m.blob_data.offset = n % 2 ? FAR_SEQ : 0;
	m.blob_data.total = n % 2 ? FAR_TIME : PROTO_MAX_BLOB_CHUNK;
	m.blob_data.data = (proto_bytes_t){ chunk, sizeof(chunk) };
	return s_encode(&m, ret_len);
}

static uint8_t *s_gen_ping(adv_t *a, unsigned long n, size_t *ret_len)
{
	msg_t m = { .type = MSG_PING };

	(void)a;
	m.nonce = n % 2 ? UINT64_MAX : s_rand64();
	return s_encode(&m, ret_len);
}

static uint8_t *s_gen_pong(adv_t *a, unsigned long n, size_t *ret_len)
{
	msg_t m = { .type = MSG_PONG };

	(void)a;
	m.nonce = n % 2 ? UINT64_MAX : s_rand64();
	return s_encode(&m, ret_len);
}

static uint8_t *s_gen_cancel(adv_t *a, unsigned long n, size_t *ret_len)
{
	msg_t m = { .type = MSG_CANCEL };

	if (!a->pool[0]) {
		for (int i = 0; i < POOL; i++) {
			key_pair_t kp;
			uint8_t rid[32], id[32];

			key_generate(&kp);
			randombytes_buf(rid, sizeof(rid));
			s_made("cancel_sign",
			       cancel_sign(rid, i % 2 ? FAR_TIME : UINT64_MAX,
					   &kp, &a->pool[i], &a->pool_len[i],
					   id));
			key_wipe(&kp);
		}
	}
	m.cancel = (proto_bytes_t){ a->pool[n % POOL], a->pool_len[n % POOL] };
	return s_encode(&m, ret_len);
}

/* Signed lease operations of fresh keys (no lease, no policy admits
 * them): takes for invented labs and for every lab at the longest
 * lease, or exec with the most data a relay may carry. */
static void s_lease_pool(adv_t *a, bool exec)
{
	static uint8_t data[LEASE_MAX_DATA];

	for (int i = 0; i < POOL; i++) {
		lease_t l;
		key_pair_t kp;
		uint8_t id[32];

		memset(&l, 0, sizeof(l));
		key_generate(&kp);
		l.op = exec ? LEASE_EXEC : LEASE_TAKE;
		snprintf(l.lab, sizeof(l.lab), i % 2 ? "target" : "lab%d", i);
		snprintf(l.board, sizeof(l.board), "board%d", i);
		l.seq = i % 2 ? UINT64_MAX : (uint64_t)i + 1;
		l.value = i % 2 ? LEASE_MAX_MS : 1;
		l.arg = exec ? "true" : NULL;
		l.data = exec ? data : NULL;
		l.data_len = exec ? sizeof(data) : 0;
		s_made("lease_sign", lease_sign(&l, &kp, &a->pool[i],
						&a->pool_len[i], id));
		key_wipe(&kp);
	}
}

static uint8_t *s_gen_lease(adv_t *a, unsigned long n, size_t *ret_len)
{
	msg_t m = { .type = MSG_LEASE };

	if (!a->pool[0])
		s_lease_pool(a, false);
	m.lease = (proto_bytes_t){ a->pool[n % POOL], a->pool_len[n % POOL] };
	return s_encode(&m, ret_len);
}

/* Operations of no lease holder to invented nodes (flooded on, if the
 * node forwarded them) at the most hops, with the most data. */
static uint8_t *s_gen_relay(adv_t *a, unsigned long n, size_t *ret_len)
{
	msg_t m = { .type = MSG_RELAY };

	if (!a->pool[0])
		s_lease_pool(a, true);
	randombytes_buf(m.relay.id, sizeof(m.relay.id));
	m.relay.hops = n % 2 ? PROTO_MAX_HOPS : 0;
	m.relay.body = (proto_bytes_t){ a->pool[n % POOL],
					a->pool_len[n % POOL] };
	return s_encode(&m, ret_len);
}

/* Replies, signed by fresh keys, to operations no one sent. */
static uint8_t *s_gen_relay_back(adv_t *a, unsigned long n, size_t *ret_len)
{
	static uint8_t data[LEASE_MAX_DATA];
	msg_t m = { .type = MSG_RELAY_BACK };

	if (!a->pool[0]) {
		for (int i = 0; i < POOL; i++) {
			lease_reply_t r;
			key_pair_t kp;

			memset(&r, 0, sizeof(r));
			key_generate(&kp);
			randombytes_buf(r.op_id, sizeof(r.op_id));
			r.index = i % 2 ? UINT64_MAX : 0;
			r.final = i % 2;
			r.status = i % 2 ? INT64_MIN : 0;
			r.data = data;
			r.data_len = sizeof(data);
			s_made("lease_reply_sign",
			       lease_reply_sign(&r, &kp, &a->pool[i],
						&a->pool_len[i]));
			key_wipe(&kp);
		}
	}
	randombytes_buf(m.relay.id, sizeof(m.relay.id));
	m.relay.hops = n % 2 ? PROTO_MAX_HOPS : 0;
	m.relay.body = (proto_bytes_t){ a->pool[n % POOL],
					a->pool_len[n % POOL] };
	return s_encode(&m, ret_len);
}

/* ---- the attack loop --------------------------------------------------- */

static const struct mode {
	const char *name;
	gen_fn gen;
	double rate; /* messages a second */
	bool read;   /* take the node's answers (and drop them) */
	bool needs;  /* the AUTHOR argument */
} s_modes[] = {
	{ "request-ids", s_gen_request_ids, 500, false, false },
	{ "request-summary", s_gen_request_summary, 500, false, false },
	{ "request-ids-in", s_gen_request_ids_in, 500, false, false },
	{ "vectors", s_gen_vectors, 15, true, false },
	{ "liar", s_gen_liar, 2, true, true },
	{ "digest", s_gen_digest, 50, true, false },
	{ "ranges", s_gen_ranges, 15, true, false },
	{ "subdigest", s_gen_subdigest, 50, true, false },
	{ "subranges", s_gen_subranges, 15, true, false },
	{ "request-times", s_gen_request_times, 8, true, false },
	{ "hellos", s_gen_hellos, 400, false, false },
	{ "blob-get", s_gen_blob_get, 2000, false, false },
	{ "peers", s_gen_peers, 20, true, false },
	{ "peers-delta", s_gen_peers_delta, 20, true, false },
	{ "request", s_gen_request, 500, true, false },
	{ "want", s_gen_want, 500, false, false },
	{ "records", s_gen_records, 10, true, false },
	{ "credit", s_gen_credit, 500, false, false },
	{ "blob-data", s_gen_blob_data, 50, true, false },
	{ "ping", s_gen_ping, 2000, false, false },
	{ "pong", s_gen_pong, 2000, true, false },
	{ "cancel", s_gen_cancel, 500, true, false },
	{ "lease", s_gen_lease, 500, true, false },
	{ "relay", s_gen_relay, 200, true, false },
	{ "relay-back", s_gen_relay_back, 200, true, false },
};

static void s_drain(zsock_t *l)
{
	zmsg_t *m;

	if (!l)
		return;
	while (zsock_events(l) & ZMQ_POLLIN) {
		m = zmsg_recv(l);
		if (!m)
			break;
		zmsg_destroy(&m);
	}
}

static int s_connect(adv_t *a)
{
	if (peerlib_open(&a->c, a->ep, a->server) < 0)
		return -1;
	a->c.features = a->features;
	zsock_set_sndtimeo(a->c.sock, 0);
	a->l = peerlib_listener(&a->c, a->port);
	if (!a->l)
		return -1;
	a->epoch = 1;
	if (peerlib_hello_as(&a->c, a->port, "adversary", a->epoch) < 0)
		return -1;
	zclock_sleep(300); /* the node dials back: we are a peer */
	return 0;
}

static int s_attack(adv_t *a, const struct mode *md)
{
	int64_t t0 = zclock_mono(), now = t0;
	unsigned long n = 0, refused = 0;

	while ((now = zclock_mono()) - t0 < (int64_t)(a->secs * 1000) &&
	       !s_stop) {
		unsigned long due = (unsigned long)((now - t0) * md->rate / 1000) + 1;

		while (n < due && !s_stop) {
			size_t len = 0;
			uint8_t *b = md->gen(a, n, &len);

			if (!b)
				return 1;
			if (peerlib_send_nowait(&a->c, b, len) < 0)
				refused++;
			free(b);
			n++;
		}
		if (md->read)
			s_drain(a->l);
		zclock_sleep(2);
	}
	printf("%s: %lu messages in %.1f s (%lu refused at the high-water"
	       " mark)\n", md->name, n, (double)(now - t0) / 1000, refused);
	fflush(stdout);
	return 0;
}

/* ---- slow relay ---------------------------------------------------------- */

typedef struct {
	uint8_t *rec[RELAY_MAX_RECORDS + 1]; /* by seq */
	size_t len[RELAY_MAX_RECORDS + 1];
	uint64_t held;	/* contiguous from 1 */
	uint64_t asked; /* wanted from the author's node up to */
	uint64_t told;	/* claimed to the node */
	uint64_t next, last; /* the node's want: next to send, up to */
	unsigned long wants; /* wants the node sent us */
} relay_t;

static void s_relay_take(relay_t *r, peerlib_client_t *up, const msg_t *d)
{
	msg_t cm = { .type = MSG_CREDIT };

	for (size_t i = 0; i < d->records.n; i++) {
		record_t *rec = NULL;
		const proto_bytes_t *b = &d->records.recs[i];

		if (record_decode(b->p, b->len, &rec) < 0)
			continue;
		if (rec->head.seq == r->held + 1 &&
		    rec->head.seq <= RELAY_MAX_RECORDS) {
			r->rec[rec->head.seq] = malloc(b->len);
			memcpy(r->rec[rec->head.seq], b->p, b->len);
			r->len[rec->head.seq] = b->len;
			r->held++;
		}
		record_destroy(&rec);
	}
	cm.credit = d->records.n ? (uint32_t)d->records.n : 1;
	peerlib_send_msg(up, &cm);
}

/* What the author's node sends us: its vector (we pull), its records. */
static void s_relay_from_author(relay_t *r, peerlib_client_t *up,
				const uint8_t *author, const msg_t *d)
{
	if (d->type == MSG_RECORDS) {
		s_relay_take(r, up, d);
		return;
	}
	if (d->type != MSG_VECTOR)
		return;
	for (size_t i = 0; i < d->vector.n; i++) {
		msg_t w = { .type = MSG_WANT };

		if (memcmp(d->vector.entries[i].author, author, 32) ||
		    d->vector.entries[i].seq <= r->asked)
			continue;
		memcpy(w.want.author, author, 32);
		w.want.from_seq = r->held + 1;
		w.want.max = PROTO_MAX_WANT;
		r->asked = d->vector.entries[i].seq;
		peerlib_send_msg(up, &w);
	}
}

/* The next message on l: false when none waits; else its frames in
 * *ret_zm and, when it decodes, the message (borrowing from them) in
 * *ret_d, else NULL. The caller destroys both. */
static bool s_recv(zsock_t *l, zmsg_t **ret_zm, msg_t **ret_d)
{
	zframe_t *body;

	*ret_d = NULL;
	*ret_zm = NULL;
	if (!(zsock_events(l) & ZMQ_POLLIN) || !(*ret_zm = zmsg_recv(l)))
		return false;
	body = zmsg_last(*ret_zm);
	if (body && msg_decode(zframe_data(body), zframe_size(body),
			       PROTO_MAX_MSG, ret_d) < 0)
		*ret_d = NULL;
	return true;
}

static void s_relay_recv(zsock_t *l, relay_t *r, peerlib_client_t *up,
			 const uint8_t *author, bool from_author)
{
	zmsg_t *zm;
	msg_t *d;

	while (s_recv(l, &zm, &d)) {
		if (d) {
			if (from_author) {
				s_relay_from_author(r, up, author, d);
			} else if (d->type == MSG_WANT &&
				   memcmp(d->want.author, author, 32) == 0) {
				r->next = d->want.from_seq;
				r->last = d->want.from_seq + d->want.max - 1;
				r->wants++;
			}
		}
		msg_destroy(&d);
		zmsg_destroy(&zm);
	}
}

static void s_relay_tell(adv_t *a, relay_t *r)
{
	msg_vec_entry_t v;
	msg_t m = { .type = MSG_VECTOR };

	if (r->held == r->told)
		return;
	memcpy(v.author, a->author, 32);
	v.seq = r->held;
	m.vector.entries = &v;
	m.vector.n = 1;
	peerlib_send_msg(&a->c, &m);
	r->told = r->held;
}

/* Our peer of the author's node: with the key in keyfile when given (an
 * author that trusts only some keys), else a fresh one. */
static int s_relay_open(adv_t *a, peerlib_client_t *up, const char *author_ep,
			const char *keyfile)
{
	char up_server[KEY_Z85_LEN + 1], err[256];
	key_pair_t kp;
	int rc;

	if (key_curve_public(a->author, up_server) < 0)
		return -1;
	if (!keyfile)
		return peerlib_open(up, author_ep, up_server);
	if (key_load(keyfile, &kp, err, sizeof(err)) < 0) {
		fprintf(stderr, "adversary: %s\n", err);
		return -1;
	}
	rc = peerlib_open_key(up, author_ep, up_server, &kp);
	key_wipe(&kp);
	return rc;
}

static int s_slow_relay(adv_t *a, const char *author_ep, const char *keyfile)
{
	static relay_t r;
	peerlib_client_t up;
	zsock_t *ul;
	int64_t t0 = zclock_mono(), next_send = t0;
	unsigned long sent = 0;

	if (s_relay_open(a, &up, author_ep, keyfile) < 0)
		return 2;
	ul = peerlib_listener(&up, a->port + 1);
	if (!ul || s_connect(a) < 0)
		return 2;
	peerlib_hello_as(&up, a->port + 1, "adversary", 1);
	while (zclock_mono() - t0 < (int64_t)(a->secs * 1000) && !s_stop) {
		int64_t now = zclock_mono();

		s_relay_recv(ul, &r, &up, a->author, true);
		s_relay_recv(a->l, &r, &up, a->author, false);
		s_relay_tell(a, &r);
		if (now >= next_send && r.next && r.next <= r.held &&
		    r.next <= r.last) {
			proto_bytes_t one = { r.rec[r.next], r.len[r.next] };
			msg_t m = { .type = MSG_RECORDS };

			m.records.recs = &one;
			m.records.n = 1;
			if (peerlib_send_msg(&a->c, &m) == 0)
				sent++;
			r.next++;
			next_send = now + SLOW_RELAY_MS;
		}
		zclock_sleep(5);
	}
	printf("slow-relay: held %" PRIu64 " records, wanted %lu times,"
	       " relayed %lu\n", r.held, r.wants, sent);
	for (uint64_t s = 1; s <= r.held; s++)
		free(r.rec[s]);
	zsock_destroy(&ul);
	peerlib_close(&up);
	return 0;
}


/* ---- mute author --------------------------------------------------------- */

#define MUTE_MAX_RECORDS 4096

/* n records of our own feed, chained, in rec/len (1..n); 0 or -1 */
static int s_mute_write(adv_t *a, uint8_t **rec, size_t *len, int n)
{
	uint8_t prev[32] = { 0 };

	for (int s = 1; s <= n; s++) {
		record_t r;

		memset(&r, 0, sizeof(r));
		r.head.kind = RECORD_EVENT;
		r.head.seq = (uint64_t)s;
		r.head.has_prev = s > 1;
		memcpy(r.head.prev_id, prev, 32);
		r.head.ts_ms = (uint64_t)zclock_time();
		r.event.board = "mute";
		r.event.state = JOB_QUEUED;
		r.event.suite = "";
		r.event.text = "a record of an author that serves only relays";
		if (record_sign(&r, &a->c.kp, &rec[s], &len[s], prev) < 0)
			return -1;
	}
	return 0;
}

static void s_mute_tell(peerlib_client_t *c, const uint8_t *author,
			uint64_t seq)
{
	msg_vec_entry_t v;
	msg_t m = { .type = MSG_VECTOR };

	memcpy(v.author, author, 32);
	v.seq = seq;
	m.vector.entries = &v;
	m.vector.n = 1;
	peerlib_send_msg(c, &m);
}

/* The wants of our feed on l: answered on c when serve; counted. */
static unsigned long s_mute_recv(zsock_t *l, peerlib_client_t *c,
				 const uint8_t *author, uint8_t **rec,
				 size_t *len, int n, bool serve)
{
	unsigned long wants = 0;
	zmsg_t *zm;
	msg_t *d;

	while (s_recv(l, &zm, &d)) {
		if (d && d->type == MSG_PING) {
			/* alive to both: a peer that is down is not asked */
			msg_t pong = { .type = MSG_PONG, .nonce = d->nonce };

			peerlib_send_msg(c, &pong);
		} else if (d && d->type == MSG_WANT &&
			   !memcmp(d->want.author, author, 32)) {
			uint64_t s = d->want.from_seq;
			uint64_t last = s + d->want.max - 1;

			wants++;
			while (serve && s >= 1 && s <= (uint64_t)n && s <= last) {
				proto_bytes_t b[PROTO_MAX_BATCH];
				msg_t m = { .type = MSG_RECORDS };
				size_t k = 0;

				for (; k < PROTO_MAX_BATCH && s <= (uint64_t)n &&
				       s <= last; k++, s++)
					b[k] = (proto_bytes_t){ rec[s], len[s] };
				m.records.recs = b;
				m.records.n = k;
				peerlib_send_msg(c, &m);
			}
		}
		msg_destroy(&d);
		zmsg_destroy(&zm);
	}
	return wants;
}

/* An author's feed and its peer of the relay. */
typedef struct {
	uint8_t *rec[MUTE_MAX_RECORDS + 1];
	size_t len[MUTE_MAX_RECORDS + 1];
	int n;
	peerlib_client_t up; /* to the relay */
	zsock_t *ul;	     /* the relay's answers */
} author_t;

/* Peer with the node (with features), write our feed of n records, and
 * peer with the relay (RELAY_ID in a->author, at relay_ep, its answers
 * on PORT+1) under the key we author with: it knows us by it. 0 or -1;
 * s_author_close undoes either. */
static int s_author_open(adv_t *a, author_t *w, const char *relay_ep, int n,
			 uint64_t features)
{
	char relay_server[KEY_Z85_LEN + 1];

	memset(w, 0, sizeof(*w));
	if (n < 1 || n > MUTE_MAX_RECORDS)
		return -1;
	w->n = n;
	a->features = features;
	if (s_connect(a) < 0 || s_mute_write(a, w->rec, w->len, n) < 0 ||
	    key_curve_public(a->author, relay_server) < 0 ||
	    peerlib_open_key(&w->up, relay_ep, relay_server, &a->c.kp) < 0 ||
	    !(w->ul = peerlib_listener(&w->up, a->port + 1)))
		return -1;
	peerlib_hello_as(&w->up, a->port + 1, "adversary", 1);
	zclock_sleep(300);
	return 0;
}

static void s_author_close(author_t *w)
{
	zsock_destroy(&w->ul);
	peerlib_close(&w->up);
	for (int s = 1; s <= w->n; s++)
		free(w->rec[s]);
}

static int s_mute_author(adv_t *a, const char *relay_ep, int n)
{
	static author_t w;
	const uint8_t *me = a->c.kp.pk;
	int64_t t0 = zclock_mono(), told = 0;
	unsigned long relay_wants = 0, node_wants = 0;

	if (s_author_open(a, &w, relay_ep, n, 0) < 0) {
		s_author_close(&w);
		return 2;
	}
	while (zclock_mono() - t0 < (int64_t)(a->secs * 1000) && !s_stop) {
		if (zclock_mono() - told >= 1000) {
			/* the relay hears it until it pulls; the node once:
			 * an author says its head once */
			if (!relay_wants)
				s_mute_tell(&w.up, me, (uint64_t)n);
			if (!told)
				s_mute_tell(&a->c, me, (uint64_t)n);
			told = zclock_mono();
		}
		relay_wants += s_mute_recv(w.ul, &w.up, me, w.rec, w.len, n,
					   true);
		node_wants += s_mute_recv(a->l, &a->c, me, w.rec, w.len, n,
					  false);
		zclock_sleep(5);
	}
	printf("mute-author: %d records, the relay wanted %lu times, the node"
	       " %lu (none answered)\n", n, relay_wants, node_wants);
	fflush(stdout);
	s_author_close(&w);
	return 0;
}

/* ---- lagging author ------------------------------------------------------ */

#define LAG_QUEUE 1024 /* the node's messages held unread */

typedef struct {
	zmsg_t *q[LAG_QUEUE];
	int64_t at[LAG_QUEUE];
	size_t head, n;
	uint64_t next, last; /* the node's want: next to send, up to */
	unsigned long wants, stops, pongs, dropped;
	unsigned long sent, sent_stopped; /* records; with a stop unread */
	unsigned long stops_held; /* stops come and not read yet */
} lag_t;

/* What the node sent: held, to be read lag_ms after it came. */
static void s_lag_take(lag_t *g, zsock_t *l)
{
	zmsg_t *zm;

	while ((zsock_events(l) & ZMQ_POLLIN) && (zm = zmsg_recv(l))) {
		zframe_t *body = zmsg_last(zm);
		msg_t *d = NULL;

		if (g->n == LAG_QUEUE) {
			g->dropped++;
			zmsg_destroy(&zm);
			continue;
		}
		/* a stop held: what we send until we read it crosses it
		 * (counted: the node's handover is for these) */
		if (body && msg_decode(zframe_data(body), zframe_size(body),
				       PROTO_MAX_MSG, &d) == 0 &&
		    d->type == MSG_WANT && d->want.max == 0)
			g->stops_held++;
		msg_destroy(&d);
		g->q[(g->head + g->n) % LAG_QUEUE] = zm;
		g->at[(g->head + g->n) % LAG_QUEUE] = zclock_mono();
		g->n++;
	}
}

/* The node's messages come lag_ms ago or more, read in order: a ping is
 * answered, a want of our feed starts the trickle, a stop ends it. */
static void s_lag_read(lag_t *g, peerlib_client_t *c, const uint8_t *author,
		       int64_t lag_ms)
{
	while (g->n && zclock_mono() - g->at[g->head] >= lag_ms) {
		zmsg_t *zm = g->q[g->head];
		zframe_t *body = zmsg_last(zm);
		msg_t *d = NULL;

		g->head = (g->head + 1) % LAG_QUEUE;
		g->n--;
		if (body && msg_decode(zframe_data(body), zframe_size(body),
				       PROTO_MAX_MSG, &d) == 0) {
			if (d->type == MSG_PING) {
				msg_t pong = { .type = MSG_PONG,
					       .nonce = d->nonce };

				peerlib_send_msg(c, &pong);
				g->pongs++;
			} else if (d->type == MSG_WANT &&
				   !memcmp(d->want.author, author, 32)) {
				if (d->want.max == 0) {
					g->stops++;
					g->stops_held--;
					g->next = 0;
				} else {
					g->wants++;
					g->next = d->want.from_seq;
					g->last = d->want.from_seq +
						  d->want.max - 1;
				}
			}
		}
		msg_destroy(&d);
		zmsg_destroy(&zm);
	}
}

/*
 * An author that serves the relay at once and the node lag_ms late: it
 * reads the node's messages that long after they came, and answers a
 * want with one record every trickle_ms. The node judges the pull
 * stalled and leaves it; the records sent before we read its stop are
 * on their way when it does.
 */
static int s_lagging_author(adv_t *a, const char *relay_ep, int n,
			    int64_t lag_ms, int64_t trickle_ms)
{
	static author_t w;
	static lag_t g;
	const uint8_t *me = a->c.kp.pk;
	int64_t t0 = zclock_mono(), told = 0, next_send = 0;
	unsigned long relay_wants = 0;
	bool node_told = false;

	/* it is told to stop */
	if (lag_ms < 0 || trickle_ms < 1 ||
	    s_author_open(a, &w, relay_ep, n, MSG_FEATURE_WANT_STOP) < 0) {
		s_author_close(&w);
		return 2;
	}
	while (zclock_mono() - t0 < (int64_t)(a->secs * 1000) && !s_stop) {
		int64_t now = zclock_mono();

		/* the relay hears of the feed until it pulls, the node
		 * once, at the same time: it asks us first, and the relay
		 * holds the feed by the time it gives up on us */
		if (now - told >= 1000 && !relay_wants) {
			s_mute_tell(&w.up, me, (uint64_t)n);
			told = now;
		}
		if (!node_told) {
			s_mute_tell(&a->c, me, (uint64_t)n);
			node_told = true;
		}
		relay_wants += s_mute_recv(w.ul, &w.up, me, w.rec, w.len, n,
					   true);
		s_lag_take(&g, a->l);
		s_lag_read(&g, &a->c, me, lag_ms);
		if (g.next && g.next <= g.last && g.next <= (uint64_t)n &&
		    now >= next_send) {
			proto_bytes_t one = { w.rec[g.next], w.len[g.next] };
			msg_t m = { .type = MSG_RECORDS };

			m.records.recs = &one;
			m.records.n = 1;
			if (peerlib_send_msg(&a->c, &m) == 0) {
				g.sent++;
				g.sent_stopped += g.stops_held > 0;
			}
			g.next++;
			next_send = now + trickle_ms;
		}
		zclock_sleep(5);
	}
	printf("lagging-author: %d records, the relay wanted %lu times; the"
	       " node %lu wants, %lu stops, %lu pongs, %lu records sent (%lu"
	       " with a stop unread), %lu messages dropped\n",
	       n, relay_wants, g.wants, g.stops, g.pongs, g.sent,
	       g.sent_stopped, g.dropped);
	fflush(stdout);
	while (g.n) {
		zmsg_destroy(&g.q[g.head]);
		g.head = (g.head + 1) % LAG_QUEUE;
		g.n--;
	}
	s_author_close(&w);
	return 0;
}

/* ---- fill-requests ---------------------------------------------------------- */

static int s_fill_requests(const char *ep, const char *server, int n)
{
	uint64_t now = (uint64_t)zclock_time();
	int sent = 0;

	while (sent < n) {
		peerlib_client_t c;

		if (peerlib_open(&c, ep, server) < 0)
			return 1;
		zsock_set_sndtimeo(c.sock, 5000);
		peerlib_hello_as(&c, 1, "adversary", 1);
		zclock_sleep(300);
		for (int i = 0; i < FILL_PER_KEY && sent < n; i++) {
			size_t len = 0;
			uint8_t *b = s_request(now - 1000, now + 3600 * 1000,
					       false, FILL_BOARDS, &len);

			if (b && peerlib_send(&c, b, len) == 0)
				sent++;
			free(b);
		}
		zclock_sleep(300);
		peerlib_close(&c);
	}
	printf("fill-requests: %d sent\n", sent);
	return 0;
}

/* ---- http ---------------------------------------------------------------- */

static int s_http_open(const struct sockaddr_in *sa)
{
	static const char half[] = "GET /api/status HTTP/1.1\r\nHost: 127.0.0.1"
				   "\r\nUser-Agent: adversary\r\n";
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0 ||
	    write(fd, half, sizeof(half) - 1) < 0) {
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

/* Whether the server closed fd (or answered it: then close it). */
static bool s_http_gone(int fd)
{
	char buf[512];
	ssize_t r = read(fd, buf, sizeof(buf));

	return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK) ||
	       r > 0;
}

static int s_http(const char *host, int port, int n, double secs)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port) };
	struct rlimit rl;
	int *fds = calloc((size_t)n, sizeof(int));
	int64_t t0 = zclock_mono();
	unsigned long opened = 0;
	int open_now = 0;

	if (!fds || inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		return 2;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)n + 64) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (int i = 0; i < n; i++)
		fds[i] = -1;
	while (zclock_mono() - t0 < (int64_t)(secs * 1000) && !s_stop) {
		open_now = 0;
		for (int i = 0; i < n; i++) {
			if (fds[i] >= 0 && s_http_gone(fds[i])) {
				close(fds[i]);
				fds[i] = -1;
			}
			if (fds[i] < 0 && (fds[i] = s_http_open(&sa)) >= 0)
				opened++;
			open_now += fds[i] >= 0;
		}
		zclock_sleep(100);
	}
	printf("http: %d half-sent requests open, %lu opened in all\n",
	       open_now, opened);
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return 0;
}

/* ---- main -------------------------------------------------------------- */

static void s_usage(void)
{
	fprintf(stderr, "usage: adversary MODE ENDPOINT NODE_ID PORT SECONDS"
			" [ARG...] | adversary fill-requests ENDPOINT NODE_ID N"
			" | adversary http HOST PORT N SECONDS\n");
}

static int s_run_mode(adv_t *a, const char *name, int argc, char **argv)
{
	const struct mode *md = NULL;
	int rc;

	for (size_t i = 0; i < sizeof(s_modes) / sizeof(s_modes[0]); i++)
		if (strcmp(s_modes[i].name, name) == 0)
			md = &s_modes[i];
	if (argc > 0 && key_parse_hex(argv[0], a->author) == 0)
		a->has_author = true;
	if (strcmp(name, "mute-author") == 0 && argc == 3 && a->has_author)
		return s_mute_author(a, argv[1], atoi(argv[2]));
	if (strcmp(name, "lagging-author") == 0 && argc == 5 && a->has_author)
		return s_lagging_author(a, argv[1], atoi(argv[2]),
					atoll(argv[3]), atoll(argv[4]));
	if (strcmp(name, "slow-relay") == 0 && (argc == 2 || argc == 3) &&
	    a->has_author)
		return s_slow_relay(a, argv[1], argc == 3 ? argv[2] : NULL);
	if (!md || (md->needs && !a->has_author)) {
		s_usage();
		return 2;
	}
	if (s_connect(a) < 0) {
		fprintf(stderr, "adversary: cannot become a peer\n");
		return 2;
	}
	rc = s_attack(a, md);
	/* the node's answers stay unread: do not wait for them to go */
	zsock_set_linger(a->c.sock, 0);
	return rc;
}

static void s_on_signal(int sig)
{
	(void)sig;
	s_stop = 1;
}

int main(int argc, char **argv)
{
	static adv_t a;
	struct sigaction sa = { .sa_handler = s_on_signal };
	char server[KEY_Z85_LEN + 1];
	int rc;

	zsys_handler_set(NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (sodium_init() < 0)
		return 2;
	if (argc == 6 && strcmp(argv[1], "http") == 0)
		return s_http(argv[2], atoi(argv[3]), atoi(argv[4]),
			      atof(argv[5]));
	if (argc < 5 || peerlib_server_key(argv[3], server) < 0) {
		s_usage();
		return 2;
	}
	if (argc == 5 && strcmp(argv[1], "fill-requests") == 0)
		return s_fill_requests(argv[2], server, atoi(argv[4]));
	if (argc < 6) {
		s_usage();
		return 2;
	}
	a.ep = argv[2];
	a.server = server;
	a.port = atoi(argv[4]);
	a.secs = atof(argv[5]);
	rc = s_run_mode(&a, argv[1], argc - 6, argv + 6);
	for (int i = 0; i < POOL; i++)
		free(a.pool[i]);
	free(a.last);
	zsock_destroy(&a.l);
	peerlib_close(&a.c);
	return rc;
}
