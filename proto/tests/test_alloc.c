/*
 * Allocation bounds: a 5-byte input declaring 2^32-1 array elements must
 * be refused by every decoder without allocating for the declared count.
 * Linked with --wrap=malloc/calloc/realloc so every allocation made by
 * the proto library passes through a counter here.
 */
#include "proto/desc.h"
#include "proto/mp.h"
#include "proto/msg.h"
#include "proto/record.h"
#include "proto/request.h"
#include "proto/tests/check.h"

#include <stdlib.h>
#include <string.h>

int check_failures;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

static size_t s_largest, s_total, s_calls;

static void s_count(size_t n)
{
	s_calls++;
	s_total += n;
	if (n > s_largest)
		s_largest = n;
}

void *__wrap_malloc(size_t n)
{
	s_count(n);
	return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	s_count(n * size);
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	s_count(n);
	return __real_realloc(p, n);
}

static void s_reset(void)
{
	s_largest = s_total = s_calls = 0;
}

/* Nothing the decoders allocate may exceed this for a tiny input. */
#define SMALL 4096

static void s_check_small(const char *what)
{
	if (s_largest > SMALL || s_total > 4 * SMALL) {
		fprintf(stderr, "%s: largest allocation %zu, total %zu\n", what,
			s_largest, s_total);
		check_failures++;
	}
}

static void test_huge_count(void)
{
	static const uint8_t huge[] = {0xdd, 0xff, 0xff, 0xff, 0xff};
	record_t *rec = NULL;
	request_t *req = NULL;
	node_desc_t *d = NULL;
	msg_t *m = NULL;
	request_cancel_t c;

	s_reset();
	CHECK_ERR(mp_validate(huge, sizeof(huge)), PROTO_E_COUNT);
	CHECK(s_calls == 0); /* the reader never allocates */
	s_reset();
	CHECK_ERR(record_decode(huge, sizeof(huge), &rec), PROTO_E_COUNT);
	s_check_small("record_decode");
	CHECK(s_calls > 0); /* the counter does see the library's allocations */
	s_reset();
	record_head_t h;
	CHECK_ERR(record_verify(huge, sizeof(huge), &h), PROTO_E_COUNT);
	CHECK(s_calls == 0);
	s_reset();
	CHECK_ERR(request_decode(huge, sizeof(huge), &req), PROTO_E_COUNT);
	s_check_small("request_decode");
	s_reset();
	CHECK_ERR(cancel_decode(huge, sizeof(huge), &c), PROTO_E_COUNT);
	s_check_small("cancel_decode");
	s_reset();
	CHECK_ERR(desc_decode(huge, sizeof(huge), &d), PROTO_E_COUNT);
	s_check_small("desc_decode");
	s_reset();
	CHECK_ERR(msg_decode(huge, sizeof(huge), PROTO_MAX_MSG, &m), PROTO_E_COUNT);
	s_check_small("msg_decode");
	CHECK(rec == NULL && req == NULL && d == NULL && m == NULL);
}

/* The same inside a message: a list of 2^32-1 records, ids, entries. */
static void test_nested_counts(void)
{
	static const uint8_t types[] = {MSG_PEERS, MSG_REQUEST_IDS, MSG_VECTOR,
					MSG_RECORDS};
	uint8_t buf[] = {0x92, 0, 0xdd, 0xff, 0xff, 0xff, 0xff};
	msg_t *m = NULL;

	for (size_t i = 0; i < sizeof(types); i++) {
		buf[1] = types[i];
		s_reset();
		CHECK_ERR(msg_decode(buf, sizeof(buf), PROTO_MAX_MSG, &m),
			  PROTO_E_COUNT);
		s_check_small(msg_type_name(types[i]));
	}
	/* a count that fits the bytes but not the cap: refused as well */
	uint8_t ids[3 + 2 + 34 * 4] = {0x92, MSG_REQUEST_IDS, 0xdc, 0xff, 0xff};
	s_reset();
	CHECK_ERR(msg_decode(ids, 5, PROTO_MAX_MSG, &m), PROTO_E_COUNT);
	s_check_small("ids");
}

int main(void)
{
	test_huge_count();
	test_nested_counts();
	return CHECK_DONE();
}
