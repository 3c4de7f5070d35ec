/*
 * sim_wire: the bytes of what simulated nodes send, from the node's own
 * encoders. Records are real: one of each kind signed at start-up with a
 * real key (a run of 50 test cases as results_synth makes them, an event,
 * an accept, a decline, an advert of three boards), and every records
 * message is wire_records over those bytes. Vectors, wants, credits,
 * pings, requests, request-ids, hellos and peers are encoded by wire.c
 * for each message (pings once: their nonce is always a 32-bit number),
 * and so are the digest (wire_digest) and its answer (wire_ranges).
 */
#include "node/sim/sim_int.h"
#include "node/results/results_synth.h"
#include "node/store/wire.h"

#include "proto/mem.h"
#include "proto/mp.h"
#include "proto/request.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIM_CASES 50

static struct {
	uint8_t *rec[8];
	size_t rec_len[8];
	uint8_t *req;
	size_t req_len;
	uint8_t *desc;
	size_t desc_len;
	size_t ping, pong;
	wire_key_t node_key;
	bool failed; /* an encoder refused a message */
} w;

static const int64_t s_ts = 1796000000000LL; /* late 2026 */

static int s_sign(const record_t *t, int kind)
{
	uint8_t id[32];

	return wire_record_sign_as(&w.node_key.kp, t, &w.rec[kind],
				   &w.rec_len[kind], id);
}

static int s_run(void)
{
	synth_feed_t f;
	synth_run_t *r = synth_run_new(
		"lab-example", "qemu-x86-64", "x86_64",
		"https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/"
		"linux.git",
		"master", "0123456789abcdef0123456789abcdef01234567");
	char path[64];
	uint8_t id[32];
	int rc;

	synth_feed_init(&f, 7);
	f.seq = 1233; /* a feed well under way: the record has a prev */
	memset(f.head, 0xa5, sizeof(f.head));
	synth_suite(r, "kselftest-net", s_ts, s_ts + 600000, PROTO_FAIL);
	synth_log(r, "console", 1);
	for (unsigned k = 0; k < SIM_CASES; k++) {
		snprintf(path, sizeof(path), "net.test_%02u_sh", k);
		synth_case(r, path, k % 17 ? PROTO_PASS : PROTO_FAIL,
			   1000 + 37 * k, k % 17 ? "" : "timeout after 30s");
	}
	memset(id, 0x5a, sizeof(id));
	synth_request(r, id);
	rc = synth_publish(&f, NULL, r, (uint64_t)s_ts, &w.rec[WIRE_KIND_RUN],
			   &w.rec_len[WIRE_KIND_RUN], id);
	synth_run_destroy(&r);
	key_wipe(&f.key);
	return rc;
}

static int s_small_records(void)
{
	static const char *const boards[] = {"qemu-x86-64"};
	record_t t = {0};
	int rc;

	t.head = (record_head_t){.kind = RECORD_EVENT,
				 .seq = 1234,
				 .has_prev = true,
				 .ts_ms = s_ts};
	t.event = (record_event_t){.has_request = true,
				   .board = "qemu-x86-64",
				   .state = JOB_RUNNING,
				   .suite_index = 1,
				   .suite_count = 1,
				   .suite = "kselftest-net",
				   .text = "running kselftest-net (1 of 1)"};
	rc = s_sign(&t, WIRE_KIND_EVENT);
	t.head.kind = RECORD_ACCEPT;
	t.accept = (record_accept_t){.boards = boards, .n_boards = 1};
	if (rc == 0)
		rc = s_sign(&t, WIRE_KIND_ACCEPT);
	t.head.kind = RECORD_DECLINE;
	t.decline = (record_decline_t){
		.reason = DECLINE_NO_BOARD,
		.text = "no board matches: arch arm64, tags [rpi4]"};
	if (rc == 0)
		rc = s_sign(&t, WIRE_KIND_DECLINE);
	return rc;
}

static int s_advert(void)
{
	static const record_board_t b[] = {
		{.name = "qemu-x86-64",
		 .arch = "x86_64",
		 .machine = "q35",
		 .transport = "serial",
		 .boot = "qemu",
		 .state = BOARD_BUSY,
		 .queue_len = 1},
		{.name = "qemu-arm64",
		 .arch = "arm64",
		 .machine = "virt",
		 .transport = "serial",
		 .boot = "qemu",
		 .state = BOARD_IDLE},
		{.name = "rpi4",
		 .arch = "arm64",
		 .machine = "rpi4",
		 .transport = "ssh",
		 .boot = "command",
		 .state = BOARD_IDLE},
	};
	static const char *const suites[] = {"kselftest-net", "kunit",
					     "ltp-syscalls", "boot"};
	record_t t = {0};

	t.head = (record_head_t){.kind = RECORD_ADVERT,
				 .seq = 1235,
				 .has_prev = true,
				 .ts_ms = s_ts};
	t.advert = (record_advert_t){.lab = "lab-example",
				     .software = "labmesh 0.1.0",
				     .suites = suites,
				     .n_suites = 4,
				     .boards = b,
				     .n_boards = 3};
	memcpy(t.advert.node_id, w.node_key.pk, 32);
	return s_sign(&t, WIRE_KIND_ADVERT);
}

int sim_wire_request_new(const key_pair_t *kp, int64_t created_ms,
			 uint8_t **ret, size_t *ret_len, uint8_t ret_id[32])
{
	static const char *const suites[] = {"kselftest-net"};
	request_t r = {0};

	r.created_ms = (uint64_t)created_ms;
	r.expires_ms = (uint64_t)created_ms + 24ULL * 3600 * 1000;
	randombytes_buf(r.nonce, sizeof(r.nonce));
	r.kernel.type = REQUEST_KERNEL_GIT;
	r.kernel.url = "https://git.kernel.org/pub/scm/linux/kernel/git/"
		       "torvalds/linux.git";
	r.kernel.branch = "master";
	r.kernel.commit = "0123456789abcdef0123456789abcdef01234567";
	r.kernel.config = "defconfig";
	r.kernel.describe = "";
	r.kernel.arch = "";
	r.suites = suites;
	r.n_suites = 1;
	r.select.arch = "x86_64";
	return request_sign(&r, kp, ret, ret_len, ret_id);
}

static int s_request(void)
{
	uint8_t id[32];

	return sim_wire_request_new(&w.node_key.kp, s_ts, &w.req, &w.req_len,
				    id);
}

int sim_wire_init(void)
{
	uint8_t *b = NULL;
	int rc;

	if (sodium_init() < 0)
		return -EIO;
	if (key_generate(&w.node_key.kp) < 0)
		return -EIO;
	memcpy(w.node_key.pk, w.node_key.kp.pk, 32);
	rc = s_run();
	if (rc == 0)
		rc = s_small_records();
	if (rc == 0)
		rc = s_advert();
	if (rc == 0)
		rc = s_request();
	if (rc == 0)
		rc = wire_desc_make(&w.node_key, "lab-example",
				    "tcp://203.0.113.45:7701", &w.desc,
				    &w.desc_len);
	if (rc == 0 && wire_ping(0xdeadbeef, false, &b, &w.ping) == 0) {
		free(b);
		rc = wire_ping(0xdeadbeef, true, &b, &w.pong);
		free(b);
	}
	return rc;
}

void sim_wire_fini(void)
{
	for (int i = 0; i < 8; i++)
		free(w.rec[i]);
	free(w.req);
	free(w.desc);
	key_wipe(&w.node_key.kp);
	memset(&w, 0, sizeof(w));
}

bool sim_wire_failed(void)
{
	return w.failed;
}

const uint8_t *sim_wire_sample(int kind, size_t *ret_len)
{
	*ret_len = sim_wire_record(kind);
	return *ret_len ? w.rec[kind] : NULL;
}

size_t sim_wire_record(int kind)
{
	return kind > 0 && kind < 8 ? w.rec_len[kind] : 0;
}

/* The length an encoder made (0 when it failed), its bytes freed: called
 * as s_len(encoder(..., &b, &len), &b, &len), so b and len are read once
 * the encoder is done. */
static size_t s_len(int rc, uint8_t **b, const size_t *len)
{
	free(*b);
	*b = NULL;
	if (rc != 0)
		w.failed = true;
	return rc == 0 ? *len : 0;
}

size_t sim_wire_want(sim_t *s, uint32_t a, uint64_t from)
{
	uint8_t *b = NULL;
	size_t len = 0;
	return s_len(wire_want(s->nodes[s->feeds[a].node].key, from,
			       NODE_WANT_RECORDS, &b, &len),
		     &b, &len);
}

size_t sim_wire_records(const sim_feed_t *f, uint32_t from, uint32_t upto)
{
	wire_bytes_t recs[WIRE_MAX_BATCH_RECORDS];
	uint8_t *b = NULL;
	size_t len = 0, n = 0;

	for (uint32_t d = from; d <= upto && n < WIRE_MAX_BATCH_RECORDS; d++) {
		int k = f->kinds[d - 1];

		recs[n++] = (wire_bytes_t){w.rec[k], w.rec_len[k]};
	}
	return s_len(wire_records(recs, n, &b, &len), &b, &len);
}

size_t sim_wire_credit(uint32_t n)
{
	uint8_t *b = NULL;
	size_t len = 0;

	return s_len(wire_credit(n, &b, &len), &b, &len);
}

size_t sim_wire_ping(bool pong)
{
	return pong ? w.pong : w.ping;
}

size_t sim_wire_request(void)
{
	uint8_t *b = NULL;
	size_t len = 0;

	return s_len(wire_request(w.req, w.req_len, &b, &len), &b, &len);
}

size_t sim_wire_request_ids(uint32_t n)
{
	static uint8_t ids[WIRE_MAX_REQUEST_IDS][WIRE_ID_BYTES];
	uint8_t *b = NULL;
	size_t len = 0;

	if (n > WIRE_MAX_REQUEST_IDS)
		n = WIRE_MAX_REQUEST_IDS;
	for (uint32_t i = 0; i < n; i++)
		memset(ids[i], (int)(i * 7 + 1), WIRE_ID_BYTES);
	return s_len(wire_request_ids((const uint8_t(*)[WIRE_ID_BYTES])ids, n,
				      &b, &len),
		     &b, &len);
}

size_t sim_wire_hello(void)
{
	uint8_t *b = NULL;
	size_t len = 0;

	return s_len(wire_hello(w.desc, w.desc_len, true, false, &b, &len), &b, &len);
}

size_t sim_wire_peers(uint32_t n)
{
	wire_bytes_t d[WIRE_MAX_DESCS];
	uint8_t *b = NULL;
	size_t len = 0;

	if (n > WIRE_MAX_DESCS)
		n = WIRE_MAX_DESCS;
	for (uint32_t i = 0; i < n; i++)
		d[i] = (wire_bytes_t){w.desc, w.desc_len};
	return s_len(wire_peers(d, n, &b, &len), &b, &len);
}

size_t sim_wire_peers_delta(uint32_t add, uint32_t gone)
{
	wire_bytes_t d[WIRE_MAX_DESCS];
	uint8_t ids[WIRE_MAX_DESCS][WIRE_KEY_BYTES];
	uint8_t *b = NULL;
	size_t len = 0;

	if (add > WIRE_MAX_DESCS)
		add = WIRE_MAX_DESCS;
	if (gone > WIRE_MAX_DESCS)
		gone = WIRE_MAX_DESCS;
	memset(ids, 0x5a, sizeof(ids));
	for (uint32_t i = 0; i < add; i++)
		d[i] = (wire_bytes_t){w.desc, w.desc_len};
	return s_len(wire_peers_delta(d, add, (const void *)ids, gone, &b,
				      &len),
		     &b, &len);
}

_Static_assert(DIGEST_BUCKETS == WIRE_DIGEST_RANGES, "one digest range a wire range");

size_t sim_wire_digest(const digest_t *d)
{
	wire_range_t r[DIGEST_BUCKETS];
	uint8_t *b = NULL;
	size_t len = 0;

	for (unsigned i = 0; i < DIGEST_BUCKETS; i++) {
		r[i].hash = d->hash[i];
		r[i].count = d->count[i];
	}
	return s_len(wire_digest(r, &b, &len), &b, &len);
}

/* One vector message's entries: the active authors given, and with mask
 * every other author in those ranges at its seq of the start. */
static size_t s_fill(sim_t *s, wire_vec_t *v, const uint32_t *ea,
		     const uint16_t *ed, uint32_t n, uint64_t mask)
{
	size_t k = 0;

	for (uint32_t i = 0; i < n; i++) {
		memcpy(v[k].author, s->nodes[s->feeds[ea[i]].node].key, 32);
		v[k++].seq = sim_seq(s, ea[i], ed[i]);
	}
	for (unsigned b = 0; mask && b < DIGEST_BUCKETS; b++) {
		if (!((mask >> b) & 1))
			continue;
		for (uint32_t j = 0; j < s->bucket_n[b]; j++) {
			uint32_t x = s->bucket_nodes[b][j];

			if (s->nodes[x].active != SIM_NO_ACTIVE)
				continue; /* given above */
			memcpy(v[k].author, s->nodes[x].key, 32);
			v[k++].seq = s->base_seq[x];
		}
	}
	return k;
}

/* The bytes of a vector of one entry: node's own head, of a feed that
 * did not grow in the window (node_repl.c: s_send_own_head). */
size_t sim_wire_head(sim_t *s, uint32_t node)
{
	wire_vec_t v;
	uint8_t *b = NULL;
	size_t len = 0;

	memset(&v, 0, sizeof(v));
	v.seq = s->base_seq[node];
	return s_len(wire_vector(&v, 1, &b, &len), &b, &len);
}

/* The bytes of the vector messages of these entries: WIRE_MAX_VECTOR
 * entries a message, as s_send_vector flushes them. */
size_t sim_wire_vector(sim_t *s, uint32_t node, const uint32_t *ea,
		       const uint16_t *ed, uint32_t n, uint64_t mask)
{
	wire_vec_t *v =
		xcalloc((size_t)n + (mask ? s->p.nodes : 0) + 1, sizeof(*v));
	size_t k = s_fill(s, v, ea, ed, n, mask), total = 0;

	(void)node;
	for (size_t off = 0; off < k; off += WIRE_MAX_VECTOR) {
		size_t m =
			k - off < WIRE_MAX_VECTOR ? k - off : WIRE_MAX_VECTOR;
		uint8_t *b = NULL;
		size_t len = 0;

		/* an answer to a digest is the node's `ranges` message */
		total += s_len(mask ? wire_ranges(mask, v + off, m, &b, &len)
				    : wire_vector(v + off, m, &b, &len),
			       &b, &len);
	}
	free(v);
	return total;
}
