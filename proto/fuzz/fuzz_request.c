/*
 * Fuzz request_decode and cancel_decode over the same inputs. Whatever
 * decodes must re-encode to the input. (Fuzz builds skip the signature
 * check; see codec.c.)
 */
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
	return 0;
}
