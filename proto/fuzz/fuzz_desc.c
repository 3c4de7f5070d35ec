/*
 * Fuzz desc_decode. Whatever decodes must re-encode to the input.
 * (Fuzz builds skip the signature check; see codec.c.)
 */
#include "proto/desc.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	node_desc_t *d = NULL;
	uint8_t *again;
	size_t len;

	if (desc_decode(data, size, &d) != 0)
		return 0;
	if (desc_encode(d, &again, &len) != 0 || len != size ||
	    memcmp(again, data, size) != 0)
		abort();
	free(again);
	desc_destroy(&d);
	return 0;
}
