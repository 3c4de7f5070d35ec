/*
 * Fuzz request_decode, cancel_decode, lease_decode and
 * lease_reply_decode over the same inputs. Whatever
 * decodes must re-encode to the input. (Fuzz builds skip the signature
 * check; see codec.c.)
 */
#include "proto/lease.h"
#include "proto/request.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void s_same(int r, uint8_t *again, size_t len, const uint8_t *data,
		   size_t size)
{
	if (r != 0 || len != size || memcmp(again, data, size) != 0)
		abort();
	free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	request_t *q = NULL;
	request_cancel_t c;
	lease_t l;
	lease_reply_t p;
	uint8_t *again = NULL;
	size_t len = 0;
	int r;

	/* the encoder runs first: the order in which a call's arguments are
	 * evaluated is unspecified, and again/len are its outputs */
	if (request_decode(data, size, &q) == 0) {
		r = request_encode(q, &again, &len);
		s_same(r, again, len, data, size);
		request_destroy(&q);
	}
	if (cancel_decode(data, size, &c) == 0) {
		r = cancel_encode(&c, &again, &len);
		s_same(r, again, len, data, size);
	}
	if (lease_decode(data, size, &l) == 0) {
		r = lease_encode(&l, &again, &len);
		s_same(r, again, len, data, size);
	}
	if (lease_reply_decode(data, size, &p) == 0) {
		r = lease_reply_encode(&p, &again, &len);
		s_same(r, again, len, data, size);
	}
	return 0;
}
