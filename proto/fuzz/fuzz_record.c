/*
 * Fuzz record_decode (the full strict path) and record_verify (the fast
 * path). Whatever decodes must re-encode to the input and must pass the
 * fast path with the same id. (Fuzz builds skip the signature check; see
 * codec.c.)
 */
#include "proto/record.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	record_t *rec = NULL;
	record_head_t head;
	uint8_t *again;
	size_t len;

	if (record_decode(data, size, &rec) != 0)
		return 0;
	if (record_encode(rec, &again, &len) != 0 || len != size ||
	    memcmp(again, data, size) != 0)
		abort();
	if (record_verify(data, size, &head) != 0 ||
	    memcmp(head.id, rec->head.id, 32) != 0)
		abort();
	free(again);
	record_destroy(&rec);
	return 0;
}
