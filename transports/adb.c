/*
 * adb: placeholder until the adb backend lands.
 */
#include "transports/backend.h"

#include <errno.h>

int adb_open(transport_t *t)
{
	transport_set_error(t, "adb transport not built yet");
	return -ENOTSUP;
}
