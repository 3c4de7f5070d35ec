/*
 * Unit tests for signed test requests (none, git and artifact kernels)
 * and cancels: round trips, field rules, signatures.
 */
#include "proto/codec.h"
#include "proto/request.h"
#include "proto/tests/check.h"
#include "proto/tests/sample.h"

#include <stdlib.h>
#include <string.h>

int check_failures;

static void s_roundtrip(enum request_kernel_type type)
{
	key_pair_t kp;
	request_t *q = NULL;
	uint8_t *data, *again, id[32], want[32];
	size_t len, len2;

	sample_key(1, &kp);
	sample_request_bytes(type, &data, &len);
	CHECK_ERR(request_decode(data, len, &q), 0);
	if (!q) {
		free(data);
		return;
	}
	proto_id(data, len, want);
	CHECK(memcmp(q->id, want, 32) == 0);
	CHECK(memcmp(q->submitter, kp.pk, 32) == 0);
	CHECK(q->kernel.type == type && q->n_suites == 2);
	CHECK(q->priority == 50 && q->select.max_per_lab == 2);
	if (type == REQUEST_KERNEL_ARTIFACT)
		CHECK(q->kernel.has_initrd_blob &&
		      strcmp(q->kernel.arch, "arm64") == 0);
	if (type == REQUEST_KERNEL_GIT)
		CHECK(strcmp(q->kernel.branch, "linux-6.8.y") == 0);
	CHECK_ERR(request_sign(q, &kp, &again, &len2, id), 0);
	CHECK(len2 == len && memcmp(again, data, len) == 0);
	CHECK(memcmp(id, want, 32) == 0);
	free(again);
	request_destroy(&q);
	free(data);
}

static int s_sign(const request_t *q)
{
	key_pair_t kp;
	uint8_t *data = NULL, id[32];
	size_t len;

	sample_key(1, &kp);
	int r = request_sign(q, &kp, &data, &len, id);
	free(data);
	return r;
}

static void test_rules(void)
{
	request_t q;
	static const char *const bad_suite[] = {"ok", "not ok"};

	sample_request(REQUEST_KERNEL_GIT, &q);
	CHECK_ERR(s_sign(&q), 0);
	q.kernel.commit = "fedcba9876543210";
	CHECK_ERR(s_sign(&q), PROTO_E_SYNTAX);
	sample_request(REQUEST_KERNEL_GIT, &q);
	q.kernel.url = "";
	CHECK_ERR(s_sign(&q), PROTO_E_EMPTY);
	sample_request(REQUEST_KERNEL_GIT, &q);
	q.expires_ms = q.created_ms;
	CHECK_ERR(s_sign(&q), PROTO_E_RANGE);
	sample_request(REQUEST_KERNEL_GIT, &q);
	q.priority = PROTO_MAX_PRIORITY + 1;
	CHECK_ERR(s_sign(&q), PROTO_E_RANGE);
	sample_request(REQUEST_KERNEL_GIT, &q);
	q.n_suites = 0;
	CHECK_ERR(s_sign(&q), PROTO_E_EMPTY);
	sample_request(REQUEST_KERNEL_GIT, &q);
	q.suites = bad_suite;
	CHECK_ERR(s_sign(&q), PROTO_E_SYNTAX);
	sample_request(REQUEST_KERNEL_GIT, &q);
	q.kernel.type = 3;
	CHECK_ERR(s_sign(&q), PROTO_E_KIND);
	sample_request(REQUEST_KERNEL_ARTIFACT, &q);
	q.kernel.commit = ""; /* identity fields are optional for artifacts */
	q.kernel.url = "";
	CHECK_ERR(s_sign(&q), 0);
	q.kernel.arch = "";
	CHECK_ERR(s_sign(&q), PROTO_E_EMPTY);
	sample_request(REQUEST_KERNEL_NONE, &q);
	q.select.max_per_lab = PROTO_MAX_BOARDS + 1;
	CHECK_ERR(s_sign(&q), PROTO_E_RANGE);
	sample_request(REQUEST_KERNEL_NONE, &q);
	const char *tags[PROTO_MAX_TAGS + 1];
	for (size_t i = 0; i <= PROTO_MAX_TAGS; i++)
		tags[i] = "t";
	q.select.tags = tags;
	q.select.n_tags = PROTO_MAX_TAGS + 1;
	CHECK_ERR(s_sign(&q), PROTO_E_TOOMANY);
}

/* Hex to bytes (spaces ignored); returns the count. */
static size_t s_unhex(const char *hex, uint8_t *out)
{
	size_t n = 0;
	unsigned v;

	while (*hex) {
		if (*hex == ' ') {
			hex++;
			continue;
		}
		if (sscanf(hex, "%2x", &v) != 1)
			abort();
		out[n++] = (uint8_t)v;
		hex += 2;
	}
	return n;
}

/* Offset and size of top-level field k of the request in data. */
static void s_field(const uint8_t *data, size_t len, int k, size_t *ret_off,
		    size_t *ret_n)
{
	mp_reader_t r;
	uint32_t n;

	mp_reader_init(&r, data, len);
	if (mp_get_array(&r, 1, UINT32_MAX, &n) < 0)
		abort();
	for (int i = 0; i < k; i++)
		if (mp_skip(&r, PROTO_MAX_DEPTH) < 0)
			abort();
	*ret_off = mp_reader_offset(&r);
	if (mp_skip(&r, PROTO_MAX_DEPTH) < 0)
		abort();
	*ret_n = mp_reader_offset(&r) - *ret_off;
}

/*
 * A sample request of type with n bytes at off of its signed part replaced
 * by the hex bytes repl, signed again by the submitter's key, through
 * request_decode: only the decoder's own checks can refuse it.
 */
static int s_splice(enum request_kernel_type type, size_t off, size_t n,
		    const char *repl)
{
	key_pair_t kp;
	uint8_t *data, *out, r[64];
	size_t len, olen, rlen = s_unhex(repl, r);
	request_t *q = NULL;
	mp_enc_t e;

	sample_key(1, &kp);
	sample_request_bytes(type, &data, &len);
	if (off + n > len - 66)
		abort();
	mp_enc_init(&e, 0);
	mp_put_raw(&e, data, off);
	mp_put_raw(&e, r, rlen);
	mp_put_raw(&e, data + off + n, len - 66 - off - n);
	if (enc_sign_finish(&e, REQUEST_SIG_PREFIX, &kp, &out, &olen) < 0)
		abort();
	int err = request_decode(out, olen, &q);
	request_destroy(&q);
	free(out);
	free(data);
	return err;
}

/* Malformed values inside a signed request, each with its own code. */
/* Absurd times and over-long lifetimes are refused at decode (signing
 * decodes what it made), each with its own reason. */
static void test_times(void)
{
	request_t q;

	sample_request(REQUEST_KERNEL_NONE, &q);
	q.created_ms = 1ULL << 62; /* and expires 2^63: wrapped by a cast */
	q.expires_ms = 1ULL << 63;
	CHECK_ERR(s_sign(&q), PROTO_E_TIME);
	sample_request(REQUEST_KERNEL_NONE, &q);
	q.expires_ms = UINT64_MAX;
	CHECK_ERR(s_sign(&q), PROTO_E_TIME);
	sample_request(REQUEST_KERNEL_NONE, &q);
	q.expires_ms = PROTO_MAX_TIME_MS + 1;
	CHECK_ERR(s_sign(&q), PROTO_E_TIME);
	sample_request(REQUEST_KERNEL_NONE, &q);
	q.created_ms = PROTO_MAX_TIME_MS - 1000;
	q.expires_ms = PROTO_MAX_TIME_MS;
	CHECK_ERR(s_sign(&q), 0);
	sample_request(REQUEST_KERNEL_NONE, &q);
	q.expires_ms = q.created_ms + PROTO_MAX_REQUEST_LIFETIME_MS;
	CHECK_ERR(s_sign(&q), 0);
	q.expires_ms++;
	CHECK_ERR(s_sign(&q), PROTO_E_LIFETIME);
	CHECK(strcmp(proto_strerror(PROTO_E_LIFETIME),
		     proto_strerror(PROTO_E_TIME)) != 0);
}

static void test_values(void)
{
	enum { VERSION = 0, PRIORITY = 5, SUITES = 7 };
	const enum request_kernel_type git = REQUEST_KERNEL_GIT;
	uint8_t *data;
	size_t len, off, n, s_off, s_n;
	request_t *q = NULL;

	sample_request_bytes(git, &data, &len);
	s_field(data, len, PRIORITY, &off, &n);
	s_field(data, len, SUITES, &s_off, &s_n);
	CHECK(n == 1 && data[off] == 50);
	/* control: the same priority spliced back decodes */
	CHECK_ERR(s_splice(git, off, n, "32"), 0);
	CHECK_ERR(s_splice(git, off, n, "cb7ff8000000000000"), PROTO_E_NAN);
	CHECK_ERR(s_splice(git, off, n, "cbfff0000000000000"), PROTO_E_NAN);
	CHECK_ERR(s_splice(git, off, n, "ca42480000"), PROTO_E_FLOAT);
	CHECK_ERR(s_splice(git, off, n, "d40032"), PROTO_E_EXT);
	CHECK_ERR(s_splice(git, off, n, "c70100 32"), PROTO_E_EXT); /* ext 8 */
	CHECK_ERR(s_splice(git, off, n, "cb4049000000000000"),
		  PROTO_E_TYPE); /* 50.0: a finite float64 is just a type error */
	/* inside a nested list: the first suite name (after its array head) */
	CHECK_ERR(s_splice(git, s_off + 1, 0, "d40078"), PROTO_E_EXT);
	CHECK_ERR(s_splice(git, s_off + 1, 0, "ca3f800000"), PROTO_E_FLOAT);
	/* unknown version, correctly signed */
	s_field(data, len, VERSION, &off, &n);
	CHECK_ERR(s_splice(git, off, n, "01"), 0);
	CHECK_ERR(s_splice(git, off, n, "02"), PROTO_E_VERSION);
	CHECK_ERR(s_splice(git, off, n, "cc80"), PROTO_E_VERSION);
	/* truncated: inside the kernel url, inside the last suite name, and
	 * just before and inside the sig */
	const char *url = "https://git.kernel.org/";
	const uint8_t *at = memmem(data, len, url, strlen(url));
	CHECK(at != NULL);
	if (at)
		CHECK_ERR(request_decode(data, (size_t)(at - data) + 5, &q),
			  PROTO_E_TRUNCATED);
	CHECK_ERR(request_decode(data, s_off + s_n - 2, &q), PROTO_E_TRUNCATED);
	CHECK_ERR(request_decode(data, len - 66, &q), PROTO_E_TRUNCATED);
	CHECK_ERR(request_decode(data, len - 1, &q), PROTO_E_TRUNCATED);
	CHECK(q == NULL);
	free(data);
}

static void test_bitflips(void)
{
	uint8_t *data;
	size_t len, accepted = 0;
	request_t *q;

	sample_request_bytes(REQUEST_KERNEL_ARTIFACT, &data, &len);
	for (size_t bit = 0; bit < len * 8; bit++) {
		data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		q = NULL;
		if (request_decode(data, len, &q) == 0)
			accepted++;
		request_destroy(&q);
		data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	CHECK(accepted == 0);
	free(data);
}

static void test_cancel(void)
{
	key_pair_t kp, other;
	uint8_t rid[32], *data, id[32], want[32];
	size_t len;
	request_cancel_t c;

	sample_key(1, &kp);
	sample_key(2, &other);
	memset(rid, 0x5a, 32);
	CHECK_ERR(cancel_sign(rid, 12345, &kp, &data, &len, id), 0);
	CHECK(len <= PROTO_MAX_CANCEL);
	CHECK_ERR(cancel_decode(data, len, &c), 0);
	proto_id(data, len, want);
	CHECK(memcmp(c.id, want, 32) == 0 && memcmp(id, want, 32) == 0);
	CHECK(memcmp(c.request_id, rid, 32) == 0 && c.ts_ms == 12345);
	CHECK(memcmp(c.submitter, kp.pk, 32) == 0);
	uint8_t *at = memmem(data, len, kp.pk, 32);
	CHECK(at != NULL);
	if (at) {
		memcpy(at, other.pk, 32);
		CHECK_ERR(cancel_decode(data, len, &c), PROTO_E_SIG);
		memcpy(at, kp.pk, 32);
	}
	data[len - 1] ^= 0x80;
	CHECK_ERR(cancel_decode(data, len, &c), PROTO_E_SIG);
	data[len - 1] ^= 0x80;
	data[1] = 2; /* version */
	CHECK_ERR(cancel_decode(data, len, &c), PROTO_E_VERSION);
	free(data);
	/* a cancel is not a request: different form and prefix */
	sample_request_bytes(REQUEST_KERNEL_NONE, &data, &len);
	CHECK(cancel_decode(data, len, &c) < 0);
	free(data);
}

int main(void)
{
	s_roundtrip(REQUEST_KERNEL_NONE);
	s_roundtrip(REQUEST_KERNEL_GIT);
	s_roundtrip(REQUEST_KERNEL_ARTIFACT);
	test_rules();
	test_times();
	test_values();
	test_bitflips();
	test_cancel();
	sample_free();
	return CHECK_DONE();
}
