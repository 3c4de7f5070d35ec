/*
 * Unit tests for node descriptors and node-to-node messages: every type
 * round-trips, nested signed objects verify, and each rule is enforced.
 */
#include "proto/codec.h"
#include "proto/desc.h"
#include "proto/msg.h"
#include "proto/record.h"
#include "proto/request.h"
#include "proto/tests/check.h"
#include "proto/tests/sample.h"

#include <stdlib.h>
#include <string.h>

int check_failures;

static void test_desc(void)
{
	key_pair_t kp;
	node_desc_t d, *got = NULL;
	uint8_t *data, *again, id[32], id2[32];
	size_t len, len2;

	sample_key(0, &kp);
	sample_desc(&d);
	CHECK_ERR(desc_sign(&d, &kp, &data, &len, id), 0);
	CHECK_ERR(desc_decode(data, len, &got), 0);
	if (got) {
		CHECK(memcmp(got->node_id, kp.pk, 32) == 0);
		CHECK(got->n_endpoints == 2 &&
		      strcmp(got->endpoints[1], "tcp://[::1]:7701") == 0);
		CHECK(memcmp(got->id, id, 32) == 0);
		CHECK_ERR(desc_sign(got, &kp, &again, &len2, id2), 0);
		CHECK(len2 == len && memcmp(again, data, len) == 0);
		free(again);
		desc_destroy(&got);
	}
	data[len - 3] ^= 4;
	CHECK_ERR(desc_decode(data, len, &got), PROTO_E_SIG);
	free(data);
	static const char *const bad[] = {"tcp://127.0.0.1"};
	d.endpoints = bad;
	d.n_endpoints = 1;
	CHECK_ERR(desc_sign(&d, &kp, &data, &len, id), PROTO_E_SYNTAX);
	sample_desc(&d);
	d.epoch = 0;
	CHECK_ERR(desc_sign(&d, &kp, &data, &len, id), PROTO_E_RANGE);
	sample_desc(&d);
	const char *eps[PROTO_MAX_ENDPOINTS + 1];
	for (size_t i = 0; i <= PROTO_MAX_ENDPOINTS; i++)
		eps[i] = "tcp://127.0.0.1:1";
	d.endpoints = eps;
	d.n_endpoints = PROTO_MAX_ENDPOINTS + 1;
	CHECK_ERR(desc_sign(&d, &kp, &data, &len, id), PROTO_E_TOOMANY);
}

/*
 * A descriptor with version v (everything else as signed), signed again
 * with the node's key: refused for its version, not its signature.
 */
static int s_desc_version(uint8_t v)
{
	key_pair_t kp;
	node_desc_t d, *got = NULL;
	uint8_t *data, *out, id[32];
	size_t len, olen;
	mp_enc_t e;

	sample_key(0, &kp);
	sample_desc(&d);
	if (desc_sign(&d, &kp, &data, &len, id) < 0 || data[1] != DESC_VERSION)
		abort(); /* [fixarray 8, version, ...] */
	data[1] = v;
	mp_enc_init(&e, 0);
	mp_put_raw(&e, data, len - 66); /* sig: the last 66 bytes */
	if (enc_sign_finish(&e, DESC_SIG_PREFIX, &kp, &out, &olen) < 0)
		abort();
	int err = desc_decode(out, olen, &got);
	CHECK(err < 0 || got != NULL);
	desc_destroy(&got);
	free(out);
	free(data);
	return err;
}

static void test_desc_version(void)
{
	CHECK_ERR(s_desc_version(DESC_VERSION), 0); /* control */
	CHECK_ERR(s_desc_version(0), PROTO_E_VERSION);
	CHECK_ERR(s_desc_version(DESC_VERSION + 1), PROTO_E_VERSION);
	CHECK_ERR(s_desc_version(0x7f), PROTO_E_VERSION);
}

static void s_roundtrip(enum msg_type type)
{
	msg_t m, *got = NULL;
	uint8_t *data, *again;
	size_t len, len2;

	sample_msg(type, &m);
	CHECK_ERR(msg_encode(&m, &data, &len), 0);
	if (check_failures)
		return;
	CHECK_ERR(msg_decode(data, len, PROTO_MAX_MSG, &got), 0);
	if (!got) {
		free(data);
		return;
	}
	CHECK(got->type == type);
	CHECK_ERR(msg_encode(got, &again, &len2), 0);
	CHECK(len2 == len && memcmp(again, data, len) == 0);
	free(again);
	/* nested signed objects verify over the very bytes carried */
	record_t *rec = NULL;
	node_desc_t *d = NULL;
	request_t *q = NULL;
	request_cancel_t c;
	switch (type) {
	case MSG_RECORDS:
		CHECK(got->records.n == 2);
		for (size_t i = 0; i < got->records.n; i++) {
			CHECK_ERR(record_decode(got->records.recs[i].p,
						got->records.recs[i].len, &rec),
				  0);
			record_destroy(&rec);
		}
		break;
	case MSG_HELLO:
		CHECK(got->hello.version == PROTO_VERSION);
		CHECK_ERR(
			desc_decode(got->hello.desc.p, got->hello.desc.len, &d),
			0);
		desc_destroy(&d);
		break;
	case MSG_PEERS:
		CHECK_ERR(desc_decode(got->peers.descs[1].p,
				      got->peers.descs[1].len, &d),
			  0);
		desc_destroy(&d);
		break;
	case MSG_PEERS_DELTA:
		CHECK(got->peers.n == 1 && got->peers.n_gone == 2);
		CHECK(got->peers.gone[0] == 0x40 && got->peers.gone[32] == 0x41);
		CHECK_ERR(desc_decode(got->peers.descs[0].p,
				      got->peers.descs[0].len, &d),
			  0);
		desc_destroy(&d);
		break;
	case MSG_REQUEST:
		CHECK_ERR(request_decode(got->request.p, got->request.len, &q),
			  0);
		request_destroy(&q);
		break;
	case MSG_CANCEL:
		CHECK_ERR(cancel_decode(got->cancel.p, got->cancel.len, &c), 0);
		break;
	case MSG_VECTOR:
		CHECK(got->vector.n == 2 && got->vector.entries[1].seq == 12);
		break;
	case MSG_RANGES:
		CHECK(got->ranges.n == 2 && got->ranges.entries[1].seq == 12 &&
		      got->ranges.mask == (1ull | 1ull << 32));
		break;
	case MSG_SUBDIGEST:
		CHECK(got->subdigest.range == 63 && got->subdigest.n == 3 &&
		      got->subdigest.subs[1].count == 70000 &&
		      got->subdigest.subs[2].sub == 41);
		break;
	case MSG_SUBRANGES:
		CHECK(got->subranges.range == 32 && got->subranges.n == 2 &&
		      got->subranges.mask == (2ull | 1ull << 17) &&
		      got->subranges.entries[1].seq == 12);
		break;
	case MSG_REQUEST_SUMMARY:
		CHECK(got->request_summary.n == 3 &&
		      got->request_summary.buckets[2].count == 70000 &&
		      got->request_summary.buckets[1].bucket == 480005 &&
		      got->request_summary.buckets[0].hash ==
			      0x9e3779b97f4a7c15ull);
		break;
	case MSG_REQUEST_IDS_IN:
		CHECK(got->request_ids_in.n_buckets == 2 &&
		      got->request_ids_in.buckets[1] == 480005 &&
		      got->request_ids_in.n == 2 &&
		      got->request_ids_in.ids[32] == 0x31);
		break;
	case MSG_DIGEST:
		CHECK(got->digest.ranges[5].count == 70000 &&
		      got->digest.ranges[62].hash == 0x9e3779b97f4a7c15ull * 63);
		break;
	case MSG_BLOB_DATA:
		CHECK(got->blob_data.data.len == 21 &&
		      got->blob_data.total == 1000000);
		break;
	default:
		break;
	}
	msg_destroy(&got);
	free(data);
}

static int s_enc(const msg_t *m)
{
	uint8_t *data = NULL;
	size_t len;
	int r = msg_encode(m, &data, &len);

	free(data);
	return r;
}

static void test_rules(void)
{
	msg_t m;

	sample_msg(MSG_VECTOR, &m);
	msg_vec_entry_t v[2];
	memcpy(v, m.vector.entries, sizeof(v));
	msg_vec_entry_t swapped[2] = {v[1], v[0]};
	m.vector.entries = swapped;
	CHECK_ERR(s_enc(&m), PROTO_E_UNSORTED);
	msg_vec_entry_t dup[2] = {v[0], v[0]};
	m.vector.entries = dup;
	CHECK_ERR(s_enc(&m), PROTO_E_DUPKEY);
	v[0].seq = 0;
	m.vector.entries = v;
	CHECK_ERR(s_enc(&m), PROTO_E_RANGE);
	sample_msg(MSG_RANGES, &m);
	msg_vec_entry_t rv[2];
	memcpy(rv, m.ranges.entries, sizeof(rv));
	msg_vec_entry_t rswapped[2] = {rv[1], rv[0]};
	m.ranges.entries = rswapped;
	CHECK_ERR(s_enc(&m), PROTO_E_UNSORTED);
	/* subdigests: a range and its sub-ranges below 64, ascending, none
	 * empty */
	sample_msg(MSG_SUBDIGEST, &m);
	msg_sub_range_t sd[3];
	memcpy(sd, m.subdigest.subs, sizeof(sd));
	m.subdigest.subs = sd;
	sd[1].sub = sd[0].sub;
	CHECK_ERR(s_enc(&m), PROTO_E_UNSORTED);
	sd[1].sub = 64;
	sd[2].sub = 65;
	CHECK_ERR(s_enc(&m), PROTO_E_RANGE);
	sd[1].sub = 2;
	sd[2].sub = 3;
	sd[1].count = 0;
	CHECK_ERR(s_enc(&m), PROTO_E_RANGE);
	sd[1].count = 1;
	m.subdigest.range = PROTO_DIGEST_RANGES;
	CHECK_ERR(s_enc(&m), PROTO_E_RANGE);
	m.subdigest.range = 0;
	CHECK(s_enc(&m) == 0);
	sample_msg(MSG_SUBRANGES, &m);
	m.subranges.range = PROTO_DIGEST_RANGES;
	CHECK_ERR(s_enc(&m), PROTO_E_RANGE);
	/* request summaries: buckets ascending, none empty, at most
	 * PROTO_MAX_REQ_BUCKETS */
	sample_msg(MSG_REQUEST_SUMMARY, &m);
	msg_req_bucket_t rb[PROTO_MAX_REQ_BUCKETS + 1];
	memcpy(rb, m.request_summary.buckets, 3 * sizeof(*rb));
	rb[1].bucket = rb[0].bucket;
	m.request_summary.buckets = rb;
	CHECK_ERR(s_enc(&m), PROTO_E_UNSORTED);
	rb[1].bucket = rb[0].bucket + 1;
	rb[1].count = 0;
	CHECK_ERR(s_enc(&m), PROTO_E_RANGE);
	for (uint32_t i = 0; i <= PROTO_MAX_REQ_BUCKETS; i++)
		rb[i] = (msg_req_bucket_t){ i, 1, i };
	m.request_summary.n = PROTO_MAX_REQ_BUCKETS;
	CHECK(s_enc(&m) == 0);
	m.request_summary.n = PROTO_MAX_REQ_BUCKETS + 1;
	CHECK_ERR(s_enc(&m), PROTO_E_TOOMANY);
	sample_msg(MSG_REQUEST_IDS_IN, &m);
	uint32_t bk[2] = { 9, 9 };
	m.request_ids_in.buckets = bk;
	CHECK_ERR(s_enc(&m), PROTO_E_UNSORTED);
	m.request_ids_in.n_buckets = 0; /* nothing differs: no ids */
	m.request_ids_in.n = 0;
	CHECK(s_enc(&m) == 0);
	CHECK(msg_req_bucket(PROTO_REQ_BUCKET_MS * 7 + 5) == 7);
	uint8_t hid[32] = { 0x01, 0x02 };
	CHECK(msg_req_hash(hid) == 0x0201);
	sample_msg(MSG_WANT, &m);
	m.want.max = 0; /* a stop */
	CHECK(s_enc(&m) == 0);
	m.want.max = PROTO_MAX_WANT + 1;
	CHECK_ERR(s_enc(&m), PROTO_E_RANGE);
	sample_msg(MSG_WANT, &m);
	m.want.from_seq = 0;
	CHECK_ERR(s_enc(&m), PROTO_E_RANGE);
	sample_msg(MSG_BLOB_DATA, &m);
	m.blob_data.offset = m.blob_data.total - 3;
	CHECK_ERR(s_enc(&m), PROTO_E_RANGE);
	sample_msg(MSG_BLOB_GET, &m);
	m.blob_get.length = PROTO_MAX_BLOB_CHUNK + 1;
	CHECK_ERR(s_enc(&m), PROTO_E_RANGE);
	sample_msg(MSG_CREDIT, &m);
	m.credit = 0;
	CHECK_ERR(s_enc(&m), PROTO_E_RANGE);
	sample_msg(MSG_RECORDS, &m);
	m.records.n = 0;
	CHECK_ERR(s_enc(&m), PROTO_E_EMPTY);
	proto_bytes_t many[PROTO_MAX_BATCH + 1];
	for (size_t i = 0; i < PROTO_MAX_BATCH + 1; i++)
		many[i] = m.records.recs[0];
	m.records.recs = many;
	m.records.n = PROTO_MAX_BATCH + 1;
	CHECK_ERR(s_enc(&m), PROTO_E_TOOMANY);
	sample_msg(MSG_PING, &m);
	m.type = 0;
	CHECK_ERR(s_enc(&m), PROTO_E_KIND);

	/* raw decoder checks */
	msg_t *got = NULL;
	uint8_t unknown[] = {0x92, MSG_TYPE_MAX + 1, 0x00};
	CHECK_ERR(msg_decode(unknown, sizeof(unknown), PROTO_MAX_MSG, &got),
		  PROTO_E_KIND);
	uint8_t arity[] = {0x93, MSG_PING, 0x01, 0x02};
	CHECK_ERR(msg_decode(arity, sizeof(arity), PROTO_MAX_MSG, &got),
		  PROTO_E_ARITY);
	uint8_t empty[] = {0x90};
	CHECK_ERR(msg_decode(empty, sizeof(empty), PROTO_MAX_MSG, &got),
		  PROTO_E_ARITY);
	uint8_t ping[] = {0x92, MSG_PING, 0x07};
	CHECK_ERR(msg_decode(ping, sizeof(ping), 2, &got), PROTO_E_TOOBIG);
	CHECK_ERR(msg_decode(ping, sizeof(ping), PROTO_MAX_MSG, &got), 0);
	CHECK(got && got->nonce == 7);
	msg_destroy(&got);
	uint8_t hello0[] = {0x94, MSG_HELLO, 0x00, 0x00, 0xc4, 0x00};
	CHECK_ERR(msg_decode(hello0, sizeof(hello0), PROTO_MAX_MSG, &got),
		  PROTO_E_VERSION);
	uint8_t ids[] = {0x92, MSG_REQUEST_IDS, 0xdd, 0xff, 0xff, 0xff, 0xff};
	CHECK_ERR(msg_decode(ids, sizeof(ids), PROTO_MAX_MSG, &got),
		  PROTO_E_COUNT);
	CHECK(got == NULL);
	/* a digest has every range or is refused */
	uint8_t digest0[] = {0x92, MSG_DIGEST, 0x90};
	CHECK_ERR(msg_decode(digest0, sizeof(digest0), PROTO_MAX_MSG, &got),
		  PROTO_E_ARITY);
	uint8_t ranges1[] = {0x92, MSG_RANGES, 0x00};
	CHECK_ERR(msg_decode(ranges1, sizeof(ranges1), PROTO_MAX_MSG, &got),
		  PROTO_E_ARITY);
	CHECK(got == NULL);
}

/* blob-get's long form: hops 1..PROTO_MAX_BLOB_HOPS round-trips; hops 0
 * has the short form only, and no other type takes a fifth field. */
static void test_blob_hops(void)
{
	msg_t m, *got = NULL;
	uint8_t *data;
	size_t len;

	sample_msg(MSG_BLOB_GET, &m);
	m.blob_get.hops = PROTO_MAX_BLOB_HOPS;
	CHECK_ERR(msg_encode(&m, &data, &len), 0);
	if (check_failures)
		return;
	CHECK(data[0] == 0x95);
	CHECK_ERR(msg_decode(data, len, PROTO_MAX_MSG, &got), 0);
	CHECK(got && got->blob_get.hops == PROTO_MAX_BLOB_HOPS &&
	      got->blob_get.length == m.blob_get.length);
	msg_destroy(&got);
	data[len - 1] = 0x00; /* hops 0 in the long form */
	CHECK_ERR(msg_decode(data, len, PROTO_MAX_MSG, &got), PROTO_E_RANGE);
	data[len - 1] = PROTO_MAX_BLOB_HOPS + 1;
	CHECK_ERR(msg_decode(data, len, PROTO_MAX_MSG, &got), PROTO_E_RANGE);
	free(data);
	m.blob_get.hops = PROTO_MAX_BLOB_HOPS + 1;
	CHECK_ERR(s_enc(&m), PROTO_E_RANGE);
	m.blob_get.hops = 0;
	CHECK_ERR(msg_encode(&m, &data, &len), 0);
	CHECK(len && data[0] == 0x94);
	free(data);
	uint8_t want5[] = {0x95, MSG_WANT, 0x01, 0x01, 0x01, 0x01};
	CHECK_ERR(msg_decode(want5, sizeof(want5), PROTO_MAX_MSG, &got),
		  PROTO_E_ARITY);
	CHECK(got == NULL);
}

static void test_names(void)
{
	CHECK(strcmp(msg_type_name(MSG_BLOB_DATA), "blob-data") == 0);
	CHECK(strcmp(msg_type_name(0), "?") == 0);
	CHECK(strcmp(record_kind_name(RECORD_RUN), "run") == 0);
	CHECK(strcmp(job_state_name(JOB_CANCELLED), "cancelled") == 0);
	CHECK(strcmp(proto_status_name(PROTO_MISS), "MISS") == 0);
	enum proto_status st;
	CHECK(proto_status_parse("SKIP", &st) == 0 && st == PROTO_SKIP);
	CHECK(proto_status_parse("skip", &st) < 0);
}

int main(void)
{
	test_desc();
	test_desc_version();
	for (int t = MSG_HELLO; t <= MSG_TYPE_MAX; t++)
		s_roundtrip(t);
	test_rules();
	test_blob_hops();
	test_names();
	sample_free();
	return CHECK_DONE();
}
