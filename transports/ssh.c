/*
 * ssh: placeholder until the ssh backend lands.
 */
#include "transports/backend.h"

#include <errno.h>

int ssh_open(transport_t *t)
{
	transport_set_error(t, "ssh transport not built yet");
	return -ENOTSUP;
}
