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
	test_bitflips();
	test_cancel();
	sample_free();
	return CHECK_DONE();
}
