/*
 * Fuzz the raw canonical reader. Differential check: whatever mp_validate
 * accepts, msgpack-c must unpack as one object and re-pack to the very
 * same bytes (canonical means there is only one encoding to produce).
 */
#include "proto/mp.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	msgpack_unpacked u;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	size_t off = 0;

	if (mp_validate(data, size) != 0)
		return 0;
	msgpack_unpacked_init(&u);
	if (msgpack_unpack_next(&u, (const char *)data, size, &off) !=
		    MSGPACK_UNPACK_SUCCESS ||
	    off != size)
		abort();
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_object(&pk, u.data);
	if (sb.size != size || memcmp(sb.data, data, size) != 0)
		abort();
	msgpack_sbuffer_destroy(&sb);
	msgpack_unpacked_destroy(&u);
	return 0;
}
