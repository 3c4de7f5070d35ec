/*
 * Allocation bounds: a 5-byte input declaring 2^32-1 array elements must
 * be refused by every decoder without allocating for the declared count,
 * and so must a list whose count fits the input but exceeds its named cap.
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
	CHECK_ERR(msg_decode(huge, sizeof(huge), PROTO_MAX_MSG, &m),
		  PROTO_E_COUNT);
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
}

/*
 * A list whose declared count fits in the bytes that remain but exceeds
 * the type's named cap: refused with TOOMANY, and without allocating for
 * the count (only the arena sized from the input length).
 */
static void s_over_cap(uint8_t type, uint32_t count, const char *what)
{
	/* [type, [bin0, bin0, ...]]: count empty bins of 2 bytes each */
	size_t len = 1 + 1 + 5 + 2 * (size_t)count;
	uint8_t *buf = calloc(1, len);
	msg_t *m = NULL;

	buf[0] = 0x92;
	buf[1] = type;
	buf[2] = 0xdd; /* array32: the count is canonical only past 65535 */
	buf[3] = (uint8_t)(count >> 24);
	buf[4] = (uint8_t)(count >> 16);
	buf[5] = (uint8_t)(count >> 8);
	buf[6] = (uint8_t)count;
	for (uint32_t i = 0; i < count; i++)
		buf[7 + 2 * i] = 0xc4;
	s_reset();
	CHECK_ERR(msg_decode(buf, len, PROTO_MAX_MSG, &m), PROTO_E_TOOMANY);
	CHECK(m == NULL);
	/* a list of count proto_bytes_t would be 8x the input */
	if (s_largest > len + SMALL || s_total > len + 4 * SMALL) {
		fprintf(stderr, "%s: largest allocation %zu, total %zu for %zu "
			"input bytes\n", what, s_largest, s_total, len);
		check_failures++;
	}
	free(buf);
}

static void test_caps(void)
{
	/* [MSG_RECORDS, array16 of n empty bins]: 5 + 2n bytes */
	uint8_t batch[5 + 2 * (PROTO_MAX_BATCH + 1)] = {
		0x92, MSG_RECORDS, 0xdc, 0, PROTO_MAX_BATCH + 1};
	msg_t *m = NULL;

	for (size_t i = 0; i <= PROTO_MAX_BATCH; i++)
		batch[5 + 2 * i] = 0xc4;
	s_reset();
	CHECK_ERR(msg_decode(batch, sizeof(batch), PROTO_MAX_MSG, &m),
		  PROTO_E_TOOMANY);
	s_check_small("records over the batch cap");
	/* at the cap the list is decoded (the empty bins are refused later,
	 * by record_decode, not here) */
	batch[4] = PROTO_MAX_BATCH;
	s_reset();
	CHECK_ERR(msg_decode(batch, sizeof(batch) - 2, PROTO_MAX_MSG, &m), 0);
	s_check_small("records at the batch cap");
	CHECK(m != NULL && m->records.n == PROTO_MAX_BATCH);
	msg_destroy(&m);
	/* far over the cap, with every declared element present */
	s_over_cap(MSG_PEERS, 100000, "peers over the peers cap");
	s_over_cap(MSG_RECORDS, 100000, "records over the batch cap");
}

int main(void)
{
	test_huge_count();
	test_nested_counts();
	test_caps();
	return CHECK_DONE();
}
