/*
 * Unit tests for signed records: every kind round-trips (decode, re-sign
 * the decoded struct, same bytes), the envelope rules hold, every single
 * bit flip of a valid record is refused, and the fast path agrees.
 */
#include "proto/codec.h"
#include "proto/mem.h"
#include "proto/record.h"
#include "proto/tests/check.h"
#include "proto/tests/sample.h"

#include <stdlib.h>
#include <string.h>

int check_failures;

static void s_roundtrip(enum record_kind kind, uint64_t seq, size_t n_cases)
{
	key_pair_t kp;
	record_t *rec = NULL;
	uint8_t *data, *again, id[32];
	size_t len, len2;
	record_head_t head;

	sample_key(0, &kp);
	sample_record_bytes(kind, seq, n_cases, &data, &len);
	CHECK_ERR(record_decode(data, len, &rec), 0);
	if (!rec) {
		free(data);
		return;
	}
	CHECK(rec->head.kind == kind && rec->head.seq == seq);
	CHECK(rec->head.has_prev == (seq > 1));
	CHECK(memcmp(rec->head.author, kp.pk, 32) == 0);
	uint8_t want_id[32];
	proto_id(data, len, want_id);
	CHECK(memcmp(rec->head.id, want_id, 32) == 0);
	/* the decoded struct signs to the very same bytes */
	CHECK_ERR(record_sign(rec, &kp, &again, &len2, id), 0);
	CHECK(len2 == len && memcmp(again, data, len) == 0);
	CHECK(memcmp(id, want_id, 32) == 0);
	/* the fast path sees the same head */
	CHECK_ERR(record_verify(data, len, &head), 0);
	CHECK(memcmp(head.id, want_id, 32) == 0 && head.seq == seq);
	free(again);
	record_destroy(&rec);
	CHECK(rec == NULL);
	free(data);
}

static void test_roundtrip(void)
{
	for (int k = RECORD_ADVERT; k <= RECORD_KIND_MAX; k++) {
		if (!record_kind_known(k))
			continue;
		s_roundtrip(k, 1, 0);
		s_roundtrip(k, 7, 50);
	}
	s_roundtrip(RECORD_RUN, 3, 1000);
}

static void test_fields(void)
{
	record_t *rec = NULL;
	uint8_t *data;
	size_t len;

	sample_record_bytes(RECORD_RUN, 2, 50, &data, &len);
	CHECK_ERR(record_decode(data, len, &rec), 0);
	if (rec) {
		const record_run_t *run = &rec->run;
		CHECK(strcmp(run->board, "qemu-a") == 0);
		CHECK(strcmp(run->kernel.commit,
			     "0123456789abcdef0123456789abcdef01234567") == 0);
		CHECK(run->n_suites == 2 && run->suites[0].n_cases == 50);
		CHECK(strcmp(run->suites[0].cases[7].path,
			     "timers.posix_timers.test_007") == 0);
		CHECK(run->suites[0].metrics[1].value == 941.5);
		CHECK(run->suites[0].metrics[0].better == METRIC_LOWER);
		CHECK(run->kernel.has_kernel_blob &&
		      !run->kernel.has_initrd_blob);
		record_destroy(&rec);
	}
	free(data);
	sample_record_bytes(RECORD_ADVERT, 1, 0, &data, &len);
	CHECK_ERR(record_decode(data, len, &rec), 0);
	if (rec) {
		const record_advert_t *ad = &rec->advert;
		CHECK(ad->n_boards == 2 && ad->boards[1].queue_len == 3);
		CHECK(ad->n_info == 2);
		/* sorted on the wire whatever order the author gave */
		CHECK(strcmp(ad->info[0].key, "contact") == 0);
		CHECK(strcmp(ad->description,
			     "Example lab \xc3\xa9t\xc3\xa9") == 0);
		record_destroy(&rec);
	}
	free(data);
}

/* Every single-bit change of a valid record is refused. */
static void s_bitflips(enum record_kind kind, size_t n_cases)
{
	uint8_t *data;
	size_t len, accepted = 0, accepted_fast = 0;
	record_t *rec;
	record_head_t head;

	sample_record_bytes(kind, 2, n_cases, &data, &len);
	for (size_t bit = 0; bit < len * 8; bit++) {
		data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		rec = NULL;
		if (record_decode(data, len, &rec) == 0) {
			accepted++;
			record_destroy(&rec);
		}
		if (record_verify(data, len, &head) == 0)
			accepted_fast++;
		data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	if (accepted || accepted_fast) {
		fprintf(stderr, "%s: %zu/%zu bit flips accepted (fast %zu)\n",
			record_kind_name(kind), accepted, len * 8,
			accepted_fast);
		check_failures++;
	}
	CHECK(record_decode(data, len, &rec) == 0);
	record_destroy(&rec);
	free(data);
}

static void test_bitflips(void)
{
	for (int k = RECORD_ADVERT; k <= RECORD_KIND_MAX; k++)
		if (record_kind_known(k))
			s_bitflips(k, 3);
}

/*
 * Build a record by hand, field by field, with a valid signature, so the
 * decoder's own checks (not the signature) must refuse it.
 */
struct raw {
	uint64_t version, kind, seq, ts;
	int prev;	   /* 0 nil, 1 bin32, 2 bin31 */
	const char *body;  /* hex of the body value */
	const char *extra; /* hex appended after sig (trailing) */
	int fields;
	bool fast; /* record_verify instead of record_decode */
};

static size_t s_unhex(const char *hex, uint8_t *out)
{
	size_t n = 0;
	unsigned v;

	while (hex && *hex) {
		if (*hex == ' ') {
			hex++;
			continue;
		}
		sscanf(hex, "%2x", &v);
		out[n++] = (uint8_t)v;
		hex += 2;
	}
	return n;
}

static int s_raw(const struct raw *w)
{
	key_pair_t kp;
	mp_enc_t e;
	uint8_t body[512], prev[32] = {0}, *data;
	size_t blen = s_unhex(w->body, body), len;
	record_t *rec = NULL;

	sample_key(0, &kp);
	mp_enc_init(&e, 0);
	mp_put_array(&e, (uint32_t)(w->fields ? w->fields : 8));
	mp_put_uint(&e, w->version);
	mp_put_uint(&e, w->kind);
	mp_put_bin(&e, kp.pk, 32);
	mp_put_uint(&e, w->seq);
	if (w->prev)
		mp_put_bin(&e, prev, w->prev == 1 ? 32 : 31);
	else
		mp_put_nil(&e);
	mp_put_uint(&e, w->ts);
	mp_put_raw(&e, body, blen);
	if (enc_sign_finish(&e, RECORD_SIG_PREFIX, &kp, &data, &len) < 0)
		abort();
	if (w->extra) {
		uint8_t x[16];
		size_t xn = s_unhex(w->extra, x);
		data = realloc(data, len + xn);
		memcpy(data + len, x, xn);
		len += xn;
	}
	record_head_t head;
	int r = w->fast ? record_verify(data, len, &head)
			: record_decode(data, len, &rec);
	record_destroy(&rec);
	free(data);
	return r;
}

/* A valid decline body: [request_id, reason 2, "x"]. */
#define DECLINE_BODY                                                           \
	"93 c420 "                                                             \
	"0000000000000000000000000000000000000000000000000000000000000000 02 " \
	"a178"

static void test_envelope_rules(void)
{
	struct raw ok = {1, RECORD_DECLINE, 1, 5, 0, DECLINE_BODY, NULL,
			 0, false};
	struct raw w;

	CHECK_ERR(s_raw(&ok), 0);
	w = ok, w.version = 2;
	CHECK_ERR(s_raw(&w), PROTO_E_VERSION);
	w = ok, w.kind = RECORD_KIND_MAX + 1;
	CHECK_ERR(s_raw(&w), PROTO_E_KIND);
	w = ok, w.kind = 0;
	CHECK_ERR(s_raw(&w), PROTO_E_KIND);
	w = ok, w.seq = 0;
	CHECK_ERR(s_raw(&w), PROTO_E_RANGE);
	w = ok, w.seq = 2;
	CHECK_ERR(s_raw(&w), PROTO_E_PREV); /* seq 2 needs a prev_id */
	w = ok, w.prev = 1;
	CHECK_ERR(s_raw(&w), PROTO_E_PREV); /* seq 1 has none */
	w = ok, w.seq = 2, w.prev = 1;
	CHECK_ERR(s_raw(&w), 0);
	w = ok, w.seq = 2, w.prev = 2;
	CHECK_ERR(s_raw(&w), PROTO_E_LENGTH);
	w = ok, w.extra = "00";
	CHECK_ERR(s_raw(&w), PROTO_E_TRAILING);
	/* the fast path applies the same envelope rules */
	w = ok, w.fast = true;
	CHECK_ERR(s_raw(&w), 0);
	w.extra = "00";
	CHECK_ERR(s_raw(&w), PROTO_E_TRAILING);
	w = ok, w.fast = true, w.seq = 2;
	CHECK_ERR(s_raw(&w), PROTO_E_PREV);
	/* a kind a newer version made: passed on unread, up to the limit */
	w = ok, w.fast = true, w.kind = RECORD_KIND_MAX + 1;
	CHECK_ERR(s_raw(&w), 0);
	w.kind = RECORD_KIND_LIMIT;
	CHECK_ERR(s_raw(&w), 0);
	w.kind = RECORD_KIND_LIMIT + 1;
	CHECK_ERR(s_raw(&w), PROTO_E_KIND);
	w.kind = 0;
	CHECK_ERR(s_raw(&w), PROTO_E_KIND);
	w = ok, w.fast = true, w.body = "a0";
	CHECK_ERR(s_raw(&w), PROTO_E_TYPE); /* body must be an array */
	w = ok, w.fast = true, w.body = "91 a2c0af";
	CHECK_ERR(s_raw(&w), PROTO_E_UTF8); /* and canonical */
	w = ok, w.fields = 9;
	CHECK_ERR(s_raw(&w), PROTO_E_ARITY);
	/* body rules */
	w = ok, w.body = "92 c420 "
			 "00000000000000000000000000000000000000000000000000000"
			 "00000000000 02";
	CHECK_ERR(s_raw(&w), PROTO_E_ARITY);
	w = ok, w.body = "93 c420 "
			 "00000000000000000000000000000000000000000000000000000"
			 "00000000000 08 a178";
	CHECK_ERR(s_raw(&w), PROTO_E_RANGE); /* reason out of range */
	w = ok, w.body = "93 c420 "
			 "00000000000000000000000000000000000000000000000000000"
			 "00000000000 cc02 a178";
	CHECK_ERR(s_raw(&w), PROTO_E_NONMINIMAL);
	w = ok, w.body = "93 c41f "
			 "00000000000000000000000000000000000000000000000000000"
			 "000000000 02 a178";
	CHECK_ERR(s_raw(&w), PROTO_E_LENGTH);
	w = ok, w.body = "93 c420 "
			 "00000000000000000000000000000000000000000000000000000"
			 "00000000000 02 a2c0af";
	CHECK_ERR(s_raw(&w), PROTO_E_UTF8);
	w = ok, w.body = "93 c420 "
			 "00000000000000000000000000000000000000000000000000000"
			 "00000000000 02 c0";
	CHECK_ERR(s_raw(&w), PROTO_E_TYPE); /* nil where not allowed */
	/* accept: [id, boards] with a bad board name and an empty list */
	w = ok, w.kind = RECORD_ACCEPT;
	w.body = "92 c420 "
		 "0000000000000000000000000000000000000000000000000000000000000"
		 "000 91 a3612f62";
	CHECK_ERR(s_raw(&w), PROTO_E_SYNTAX);
	w.body = "92 c420 "
		 "0000000000000000000000000000000000000000000000000000000000000"
		 "000 90";
	CHECK_ERR(s_raw(&w), PROTO_E_EMPTY);
	/* accept [id, boards, refused]: refused non-empty, each [board, text]
	 * with a name and some text */
	w.body = "93 c420 "
		 "0000000000000000000000000000000000000000000000000000000000000"
		 "000 91 a161 91 92 a162 a178";
	CHECK_ERR(s_raw(&w), 0);
	w.body = "93 c420 "
		 "0000000000000000000000000000000000000000000000000000000000000"
		 "000 91 a161 90";
	CHECK_ERR(s_raw(&w), PROTO_E_EMPTY);
	w.body = "93 c420 "
		 "0000000000000000000000000000000000000000000000000000000000000"
		 "000 91 a161 91 92 a162 a0";
	CHECK_ERR(s_raw(&w), PROTO_E_EMPTY);
	w.body = "93 c420 "
		 "0000000000000000000000000000000000000000000000000000000000000"
		 "000 91 a161 91 92 a3612f62 a178";
	CHECK_ERR(s_raw(&w), PROTO_E_SYNTAX);
	w.body = "93 c420 "
		 "0000000000000000000000000000000000000000000000000000000000000"
		 "000 91 a161 91 93 a162 a178 a178";
	CHECK_ERR(s_raw(&w), PROTO_E_ARITY);
	w.body = "94 c420 "
		 "0000000000000000000000000000000000000000000000000000000000000"
		 "000 91 a161 91 92 a162 a178 90";
	CHECK_ERR(s_raw(&w), PROTO_E_TOOMANY);
	w.body = "91 c420 "
		 "0000000000000000000000000000000000000000000000000000000000000"
		 "000";
	CHECK_ERR(s_raw(&w), PROTO_E_ARITY);
	/* event RUNNING 3 of 2 */
	w = ok, w.kind = RECORD_EVENT;
	w.body = "97 c0 a161 05 03 02 a161 a0";
	CHECK_ERR(s_raw(&w), PROTO_E_RANGE);
	w.body = "97 c0 a161 05 01 02 a161 a0";
	CHECK_ERR(s_raw(&w), 0);
	w.body = "97 c0 a161 05 01 02 a0 a0";
	CHECK_ERR(s_raw(&w), PROTO_E_EMPTY);
	/* run: a suite of 9 fields, or 10 with a non-empty reason */
	w = ok, w.kind = RECORD_RUN;
	w.body = "97 c0 a161 a161 9a a0 a0 a0 a0 a161 a0 c0 c0 01 a0"
		 " 91 99 a161 a0 04 00 00 00 90 90 90 90 04";
	CHECK_ERR(s_raw(&w), 0);
	w.body = "97 c0 a161 a161 9a a0 a0 a0 a0 a161 a0 c0 c0 01 a0"
		 " 91 9a a161 a0 04 00 00 00 90 90 90 a3776879 90 04";
	CHECK_ERR(s_raw(&w), 0);
	w.body = "97 c0 a161 a161 9a a0 a0 a0 a0 a161 a0 c0 c0 01 a0"
		 " 91 9a a161 a0 04 00 00 00 90 90 90 a0 90 04";
	CHECK_ERR(s_raw(&w), PROTO_E_EMPTY); /* an empty reason is left out */
	w.body = "97 c0 a161 a161 9a a0 a0 a0 a0 a161 a0 c0 c0 01 a0"
		 " 91 98 a161 a0 04 00 00 00 90 90 90 04";
	CHECK_ERR(s_raw(&w), PROTO_E_ARITY);
	w.body = "97 c0 a161 a161 9a a0 a0 a0 a0 a161 a0 c0 c0 01 a0"
		 " 91 9b a161 a0 04 00 00 00 90 90 90 a161 a161 90 04";
	CHECK_ERR(s_raw(&w), PROTO_E_TOOMANY);
	w.body = "97 c0 a161 a161 9a a0 a0 a0 a0 a161 a0 c0 c0 01 a0"
		 " 91 9a a161 a0 04 00 00 00 90 90 90 01 90 04";
	CHECK_ERR(s_raw(&w), PROTO_E_TYPE); /* the reason is text */
}

static void test_signature(void)
{
	uint8_t *data;
	size_t len;
	record_t *rec = NULL;

	sample_record_bytes(RECORD_EVENT, 2, 0, &data, &len);
	data[len - 1] ^= 1; /* last byte of sig */
	CHECK_ERR(record_decode(data, len, &rec), PROTO_E_SIG);
	data[len - 1] ^= 1;
	/* another author's key in place of the real one */
	key_pair_t other;
	sample_key(2, &other);
	key_pair_t kp;
	sample_key(0, &kp);
	uint8_t *at = memmem(data, len, kp.pk, 32);
	CHECK(at != NULL);
	if (at) {
		memcpy(at, other.pk, 32);
		CHECK_ERR(record_decode(data, len, &rec), PROTO_E_SIG);
	}
	free(data);
	/* size cap before anything else */
	data = calloc(1, PROTO_MAX_RECORD + 1);
	CHECK_ERR(record_decode(data, PROTO_MAX_RECORD + 1, &rec),
		  PROTO_E_TOOBIG);
	free(data);
}

/* The signing side refuses what decoders would refuse. */
static void test_sign_refuses(void)
{
	key_pair_t kp;
	record_t rec;
	uint8_t *data = NULL, id[32];
	size_t len;

	sample_key(0, &kp);
	sample_record(RECORD_EVENT, 1, 0, &rec);
	rec.event.board = "bad board";
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_SYNTAX);
	CHECK(data == NULL);
	sample_record(RECORD_RUN, 1, 3, &rec);
	run_metric_t m = {"x", 0.0 / 0.0, "", METRIC_NEUTRAL};
	run_suite_t s = rec.run.suites[0];
	s.metrics = &m;
	s.n_metrics = 1;
	rec.run.suites = &s;
	rec.run.n_suites = 1;
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_NAN);
	sample_record(RECORD_RUN, 1, 3, &rec);
	rec.run.kernel.commit = "v6.8";
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_SYNTAX);
	sample_record(RECORD_ADVERT, 1, 0, &rec);
	proto_kv_t dup[] = {{"a", "1"}, {"a", "2"}};
	rec.advert.info = dup;
	rec.advert.n_info = 2;
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_DUPKEY);
	sample_record(RECORD_ACCEPT, 1, 0, &rec);
	rec.head.kind = 42;
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_KIND);
	CHECK(data == NULL);
}

/* A bisect record names its first bad commit exactly when it is done;
 * verdicts and states are in range; a kind between known ones is none. */
static void test_bisect_rules(void)
{
	key_pair_t kp;
	record_t rec;
	uint8_t *data = NULL, id[32];
	size_t len;
	bisect_step_t st;

	sample_key(0, &kp);
	sample_record(RECORD_BISECT, 1, 0, &rec);
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), 0);
	free(data), data = NULL;
	rec.bisect.state = BISECT_DONE;
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_EMPTY);
	rec.bisect.first_bad = rec.bisect.bad;
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), 0);
	free(data), data = NULL;
	rec.bisect.state = BISECT_FAILED;
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_RANGE);
	rec.bisect.state = BISECT_STATE_MAX + 1;
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_RANGE);
	sample_record(RECORD_BISECT, 1, 0, &rec);
	st = rec.bisect.steps[0];
	st.verdict = BISECT_VERDICT_MAX + 1;
	rec.bisect.steps = &st;
	rec.bisect.n_steps = 1;
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_RANGE);
	st.verdict = BISECT_GOOD;
	st.commit = "HEAD";
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_SYNTAX);
	sample_record(RECORD_BISECT, 1, 0, &rec);
	rec.bisect.test = "suite/case";
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_SYNTAX);
	CHECK(data == NULL);
	for (int k = RECORD_RUN + 1; k < RECORD_BISECT; k++)
		CHECK(!record_kind_known(k) || strcmp(record_kind_name(k), "?"));
	CHECK(record_kind_known(RECORD_BISECT) &&
	      !strcmp(record_kind_name(RECORD_BISECT), "bisect"));
}

/* Body bytes built with the encoder, as hex for s_raw(). */
static char *s_body_hex(mp_enc_t *e)
{
	uint8_t *p;
	size_t n;
	static char hex[2048];

	if (mp_enc_finish(e, &p, &n) < 0 || 2 * n + 1 > sizeof(hex))
		abort();
	proto_hex(p, n, hex);
	free(p);
	return hex;
}

static char *s_advert_body(const char *k1, const char *k2)
{
	uint8_t id[32] = {0};
	mp_enc_t e;

	mp_enc_init(&e, 0);
	mp_put_array(&e, 7);
	mp_put_str(&e, "lab-a");
	mp_put_bin(&e, id, 32);
	mp_put_str(&e, "");
	mp_put_str(&e, "labmesh 0.1.0");
	mp_put_array(&e, 0);
	mp_put_map(&e, 2);
	mp_put_str(&e, k1);
	mp_put_str(&e, "1");
	mp_put_str(&e, k2);
	mp_put_str(&e, "2");
	mp_put_array(&e, 0);
	return s_body_hex(&e);
}

static void test_body_rules(void)
{
	struct raw w = {1, RECORD_ADVERT, 1, 5, 0, NULL, NULL, 0, false};

	w.body = s_advert_body("contact", "location");
	CHECK_ERR(s_raw(&w), 0);
	w.body = s_advert_body("location", "contact");
	CHECK_ERR(s_raw(&w), PROTO_E_UNSORTED);
	w.body = s_advert_body("contact", "contact");
	CHECK_ERR(s_raw(&w), PROTO_E_DUPKEY);
	w.body = s_advert_body("a", "b c");
	CHECK_ERR(s_raw(&w), PROTO_E_SYNTAX);
	/* nil where a field allows it (event, run: no request) and not
	 * elsewhere (decline) */
	w.kind = RECORD_EVENT;
	w.body = "97 c0 a161 01 00 00 a0 a0";
	CHECK_ERR(s_raw(&w), 0);
	w.kind = RECORD_DECLINE;
	w.body = "93 c0 02 a178";
	CHECK_ERR(s_raw(&w), PROTO_E_TYPE);
	/* float32 and NaN metric values */
	w.kind = RECORD_EVENT;
	w.body = "97 c0 a161 01 00 00 a0 ca3f800000";
	CHECK_ERR(s_raw(&w), PROTO_E_FLOAT); /* refused before its type */
}

/*
 * A valid sample record with the n bytes at offset off of its signed part
 * replaced by the hex bytes repl, signed again with the author's key: the
 * signature holds, so whatever refuses it is the decoder's own check.
 */
static int s_splice(enum record_kind kind, size_t n_cases, const void *find,
		    size_t flen, ptrdiff_t skip, size_t cut, const char *repl)
{
	key_pair_t kp;
	uint8_t *data, *out, r[64];
	size_t len, olen, rlen = s_unhex(repl, r);
	record_t *rec = NULL;
	mp_enc_t e;

	sample_key(0, &kp);
	sample_record_bytes(kind, 2, n_cases, &data, &len);
	const uint8_t *at = memmem(data, len - 66, find, flen);
	if (!at) {
		fprintf(stderr, "s_splice: pattern not in the sample\n");
		abort();
	}
	size_t off = (size_t)(at - data + skip);
	mp_enc_init(&e, 0);
	mp_put_raw(&e, data, off);
	mp_put_raw(&e, r, rlen);
	mp_put_raw(&e, data + off + cut, len - 66 - off - cut);
	if (enc_sign_finish(&e, RECORD_SIG_PREFIX, &kp, &out, &olen) < 0)
		abort();
	int err = record_decode(out, olen, &rec);
	record_destroy(&rec);
	free(out);
	free(data);
	return err;
}

/*
 * Malformed values deep inside a signed record's body (a run record's
 * metric and case fields), each refused by record_decode with its own
 * code, and truncation inside the body.
 */
static void test_body_values(void)
{
	uint8_t f64[9];
	mp_enc_t e;
	uint8_t *p;
	size_t n;

	/* the 941.5 metric value as encoded: cb + 8 bytes */
	mp_enc_init(&e, 0);
	mp_put_f64(&e, 941.5);
	if (mp_enc_finish(&e, &p, &n) < 0 || n != sizeof(f64))
		abort();
	memcpy(f64, p, n);
	free(p);
	/* control: the same value spliced back decodes */
	CHECK_ERR(s_splice(RECORD_RUN, 3, f64, 9, 0, 9, "cb408d6c0000000000"),
		  0);
	CHECK_ERR(s_splice(RECORD_RUN, 3, f64, 9, 0, 9, "cb7ff8000000000000"),
		  PROTO_E_NAN);
	CHECK_ERR(s_splice(RECORD_RUN, 3, f64, 9, 0, 9, "cb7ff0000000000000"),
		  PROTO_E_NAN); /* +infinity */
	CHECK_ERR(s_splice(RECORD_RUN, 3, f64, 9, 0, 9, "ca446b6000"),
		  PROTO_E_FLOAT); /* 941.5 as float32 */
	CHECK_ERR(s_splice(RECORD_RUN, 3, f64, 9, 0, 9, "d701408d6c0000000000"),
		  PROTO_E_EXT); /* fixext 8 */
	/* an ext where a case path (a name-syntax string) belongs */
	static const char path[] = "timers.posix_timers.test_001";
	CHECK_ERR(s_splice(RECORD_RUN, 3, path, sizeof(path) - 1, 0, 0, ""), 0);
	CHECK_ERR(s_splice(RECORD_RUN, 3, path, sizeof(path) - 1, -1,
			   sizeof(path), "d40078"),
		  PROTO_E_EXT); /* fixext 1 in place of the fixstr */
	CHECK_ERR(s_splice(RECORD_RUN, 3, path, sizeof(path) - 1, -1,
			   sizeof(path), "ca3f800000"),
		  PROTO_E_FLOAT);
	CHECK_ERR(s_splice(RECORD_RUN, 3, path, sizeof(path) - 1, -1,
			   sizeof(path), "cbfff8000000000000"),
		  PROTO_E_NAN); /* refused as NaN before as the wrong type */

	/* truncated inside the body: within a case path, and right after a
	 * value, before the rest of the body */
	uint8_t *data;
	size_t len;
	record_t *rec = NULL;
	sample_record_bytes(RECORD_RUN, 2, 3, &data, &len);
	const uint8_t *at = memmem(data, len, path, sizeof(path) - 1);
	CHECK(at != NULL);
	if (at) {
		size_t off = (size_t)(at - data);
		CHECK_ERR(record_decode(data, off + 5, &rec), PROTO_E_TRUNCATED);
		CHECK_ERR(record_decode(data, off + sizeof(path) - 1, &rec),
			  PROTO_E_TRUNCATED);
	}
	CHECK_ERR(record_decode(data, len - 66, &rec), PROTO_E_TRUNCATED);
	CHECK(rec == NULL);
	free(data);
}

/*
 * PROTO_E_NONCANONICAL (bytes that decode but do not re-encode to
 * themselves) cannot come out of record_decode: the re-encode comparison
 * is a second line that nothing reaches, because the strict reader
 * already refuses every way bytes can differ from the one encoding of a
 * value, each with its own code first:
 *   - an integer or a str/bin/array/map length in a longer form than
 *     needed, or a non-negative integer in the int family: NONMINIMAL;
 *   - a float32: FLOAT; NaN or infinity: NAN; ext: EXT; 0xc1: TYPE;
 *   - a str with invalid UTF-8 or NUL: UTF8 / NUL; names, paths and hex
 *     have their stricter ASCII syntax: SYNTAX;
 *   - advert info keys out of order or repeated: UNSORTED / DUPKEY;
 *   - anything after the sig: TRAILING.
 * What is left decodes into fields that the encoder writes back in the
 * same shortest forms, field for field (record_body.c). So this test
 * checks that each non-canonical form is refused by record_decode with
 * the reader's own code; if a reader check is ever weakened, the same
 * input falls through to the comparison and comes back NONCANONICAL,
 * and these checks fail.
 */
static void test_noncanonical(void)
{
	struct raw ok = {1, RECORD_DECLINE, 1, 5, 0, DECLINE_BODY, NULL,
			 0, false};
	struct raw w;

#define ZERO32 "0000000000000000000000000000000000000000000000000000000000000000"
	CHECK_ERR(s_raw(&ok), 0);
	/* reason 2 as uint8, int8 */
	w = ok, w.body = "93 c420 " ZERO32 " cc02 a178";
	CHECK_ERR(s_raw(&w), PROTO_E_NONMINIMAL);
	w = ok, w.body = "93 c420 " ZERO32 " d002 a178";
	CHECK_ERR(s_raw(&w), PROTO_E_NONMINIMAL);
	/* text "x" as str8 */
	w = ok, w.body = "93 c420 " ZERO32 " 02 d90178";
	CHECK_ERR(s_raw(&w), PROTO_E_NONMINIMAL);
	/* request_id as bin16 */
	w = ok, w.body = "93 c50020 " ZERO32 " 02 a178";
	CHECK_ERR(s_raw(&w), PROTO_E_NONMINIMAL);
	/* the body array as array16 */
	w = ok, w.body = "dc0003 c420 " ZERO32 " 02 a178";
	CHECK_ERR(s_raw(&w), PROTO_E_NONMINIMAL);
#undef ZERO32
	/* seq 2 (the envelope field after the author key) as uint8, uint16,
	 * uint64; the control splices the same byte back */
	key_pair_t kp;
	sample_key(0, &kp);
	CHECK_ERR(s_splice(RECORD_DECLINE, 0, kp.pk, 32, 32, 1, "02"), 0);
	CHECK_ERR(s_splice(RECORD_DECLINE, 0, kp.pk, 32, 32, 1, "cc02"),
		  PROTO_E_NONMINIMAL);
	CHECK_ERR(s_splice(RECORD_DECLINE, 0, kp.pk, 32, 32, 1, "cd0002"),
		  PROTO_E_NONMINIMAL);
	CHECK_ERR(s_splice(RECORD_DECLINE, 0, kp.pk, 32, 32, 1,
			   "cf0000000000000002"),
		  PROTO_E_NONMINIMAL);
	/* the author key as bin16 */
	CHECK_ERR(s_splice(RECORD_DECLINE, 0, kp.pk, 32, -2, 2, "c50020"),
		  PROTO_E_NONMINIMAL);
	/* advert info map keys: out of order, repeated (test_body_rules) and
	 * the map itself as map16 */
	w = ok, w.kind = RECORD_ADVERT;
	w.body = s_advert_body("contact", "location");
	CHECK_ERR(s_raw(&w), 0);
	char *m16 = strdup(w.body);
	char *at = strstr(m16, "82a7636f6e74616374"); /* fixmap 2, "contact" */
	CHECK(at != NULL);
	if (at) {
		char *fixed = xasprintf("%.*sde0002%s", (int)(at - m16), m16,
					at + 2);
		w.body = fixed;
		CHECK_ERR(s_raw(&w), PROTO_E_NONMINIMAL);
		free(fixed);
	}
	free(m16);
	w.body = s_advert_body("location", "contact");
	CHECK_ERR(s_raw(&w), PROTO_E_UNSORTED);
	w.body = s_advert_body("contact", "contact");
	CHECK_ERR(s_raw(&w), PROTO_E_DUPKEY);
}

static void test_caps(void)
{
	key_pair_t kp;
	record_t rec;
	uint8_t *data = NULL, id[32];
	size_t len;
	static run_metric_t many[PROTO_MAX_METRICS + 1];
	run_suite_t s;

	sample_key(0, &kp);
	for (size_t i = 0; i <= PROTO_MAX_METRICS; i++)
		many[i] = (run_metric_t){"m", 1.0, "", METRIC_NEUTRAL};
	sample_record(RECORD_RUN, 1, 0, &rec);
	s = rec.run.suites[1];
	s.metrics = many;
	s.n_metrics = PROTO_MAX_METRICS;
	rec.run.suites = &s;
	rec.run.n_suites = 1;
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), 0);
	free(data);
	s.n_metrics = PROTO_MAX_METRICS + 1;
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_TOOMANY);
	/* a record past PROTO_MAX_RECORD is refused by size alone */
	static char msg[PROTO_MAX_MESSAGE + 2]; /* always NUL-terminated */
	static run_case_t cases[PROTO_MAX_CASES];
	memset(msg, 'x', PROTO_MAX_MESSAGE);
	for (size_t i = 0; i < PROTO_MAX_CASES; i++)
		cases[i] = (run_case_t){"t", PROTO_PASS, 1, msg};
	s.n_metrics = 0;
	s.cases = cases;
	s.n_cases = 300;
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_TOOBIG);
	msg[PROTO_MAX_MESSAGE - 1] = '\0';
	s.n_cases = 1;
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), 0);
	free(data);
	msg[PROTO_MAX_MESSAGE - 1] = 'x';
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), 0);
	free(data);
	msg[PROTO_MAX_MESSAGE] = 'x'; /* one byte over the message cap */
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_TOOBIG);
}

/* A suite's reason comes back as written; a suite without one reads "". */
static void test_suite_reason(void)
{
	record_t *rec = NULL;
	uint8_t *data;
	size_t len;

	sample_run_reason_bytes(&data, &len);
	CHECK_ERR(record_decode(data, len, &rec), 0);
	if (rec) {
		CHECK(strcmp(rec->run.suites[1].reason,
			     "no kselftest install (run_kselftest.sh) on this"
			     " board") == 0);
		CHECK(strcmp(rec->run.suites[0].reason, "") == 0);
	}
	record_destroy(&rec);
	free(data);
}

/* An accept's refused boards come back as written; none reads as 0. */
static void test_accept_refused(void)
{
	record_t *rec = NULL;
	uint8_t *data;
	size_t len;

	sample_accept_refused_bytes(&data, &len);
	CHECK_ERR(record_decode(data, len, &rec), 0);
	if (rec) {
		CHECK(rec->accept.n_refused == 2);
		CHECK(strcmp(rec->accept.refused[1].board, "jetson") == 0);
		CHECK(strcmp(rec->accept.refused[1].text,
			     "board in maintenance: new PSU") == 0);
	}
	record_destroy(&rec);
	free(data);
	sample_record_bytes(RECORD_ACCEPT, 2, 0, &data, &len);
	CHECK_ERR(record_decode(data, len, &rec), 0);
	if (rec)
		CHECK(rec->accept.n_refused == 0 && !rec->accept.refused);
	record_destroy(&rec);
	free(data);
}

/* A verdict's counts and a known mark's fields, each field refused in
 * turn; the good ones round-trip. */
static void test_verdict_known(void)
{
	key_pair_t kp;
	record_t rec, *back = NULL;
	uint8_t *data = NULL, id[32];
	size_t len;

	sample_key(0, &kp);
	sample_record(RECORD_VERDICT, 1, 0, &rec);
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), 0);
	CHECK_ERR(record_decode(data, len, &back), 0);
	if (back) {
		CHECK(back->verdict.verdict == VERDICT_FLAKY);
		CHECK(back->verdict.runs == 3 && back->verdict.passes == 2);
		CHECK(!strcmp(back->verdict.path, "ltp-syscalls.open01"));
	}
	record_destroy(&back);
	free(data);
	data = NULL;
	rec.verdict.passes = 4;
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_RANGE);
	sample_record(RECORD_VERDICT, 1, 0, &rec);
	rec.verdict.runs = rec.verdict.other_runs = 0;
	rec.verdict.passes = rec.verdict.other_passes = 0;
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_RANGE);
	sample_record(RECORD_VERDICT, 1, 0, &rec);
	rec.verdict.runs = PROTO_MAX_RERUNS + 1;
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_RANGE);
	sample_record(RECORD_VERDICT, 1, 0, &rec);
	rec.verdict.verdict = VERDICT_KIND_MAX + 1;
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_RANGE);
	sample_record(RECORD_VERDICT, 1, 0, &rec);
	rec.verdict.path = "ltp syscalls";
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_SYNTAX);

	sample_record(RECORD_KNOWN, 1, 0, &rec);
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), 0);
	CHECK_ERR(record_decode(data, len, &back), 0);
	if (back) {
		CHECK(!strcmp(back->known.board, "qemu-*"));
		CHECK(!strcmp(back->known.arch, "x86_64"));
	}
	record_destroy(&back);
	free(data);
	data = NULL;
	rec.known.board = "qemu a";
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_SYNTAX);
	sample_record(RECORD_KNOWN, 1, 0, &rec);
	rec.known.board = "";
	rec.known.arch = "";
	rec.known.link = "";
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), 0);
	free(data);
	data = NULL;
	rec.known.expires_ms = 0;
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_RANGE);
	rec.known.expires_ms = PROTO_MAX_TIME_MS + 1;
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_TIME);
	sample_record(RECORD_KNOWN, 1, 0, &rec);
	rec.known.arch = "x86 64";
	CHECK_ERR(record_sign(&rec, &kp, &data, &len, id), PROTO_E_SYNTAX);
	CHECK(data == NULL);
	CHECK(!strcmp(record_kind_name(RECORD_KNOWN), "known"));
	CHECK(!strcmp(verdict_kind_name(VERDICT_BOARD_SPECIFIC),
		      "board-specific"));
}

int main(void)
{
	test_verdict_known();
	test_suite_reason();
	test_accept_refused();
	test_body_rules();
	test_caps();
	test_body_values();
	test_noncanonical();
	test_roundtrip();
	test_fields();
	test_bitflips();
	test_envelope_rules();
	test_signature();
	test_sign_refuses();
	test_bisect_rules();
	sample_free();
	return CHECK_DONE();
}
