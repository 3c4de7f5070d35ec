/*
 * The adb transport end to end through tests/adb-standin/adb, which stands
 * in for the adb client and a device (none exists on this machine): the
 * transport contract, the device check at open, a bad serial refused.
 * What this cannot show is a real adbd's behaviour.
 */
#include "proto/tests/check.h"
#include "transports/tests/contract.h"
#include "transports/transport.h"

#include "proto/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int check_failures;

int main(void)
{
	const char *path = getenv("PATH");
	lab_board_t b = { .name = "adb-board" };
	transport_t *t = NULL;
	char *err = NULL, *p;

	p = xasprintf("%s:%s", ADB_STANDIN_DIR, path ? path : "/usr/bin:/bin");
	setenv("PATH", p, 1);
	free(p);
	b.transport.type = LAB_TRANSPORT_ADB;
	b.transport.adb_serial = "labmesh-standin";
	if (transport_open(&b, NULL, &t, &err) < 0) {
		fprintf(stderr, "open: %s\n", err);
		free(err);
		return 1;
	}
	check_failures += contract_run(t, "adb (stand-in device)");
	{
		int st = -1;

		/* the device-side command is gone after a timeout */
		CHECK(transport_run(t, "sleep 1717", 1000, NULL, NULL, &st) == -ETIMEDOUT);
		CHECK(contract_procs_gone("sleep 1717", 5000));
		CHECK(transport_run(t, "exit 7", 10000, NULL, NULL, &st) == 0 && st == 7);
	}
	transport_close(&t);
	b.transport.adb_serial = "no-such-device";
	CHECK(transport_open(&b, NULL, &t, &err) == -ENODEV && !t);
	fprintf(stderr, "missing device: %s\n", err ? err : "(none)");
	CHECK(err && strstr(err, "not available"));
	free(err);
	err = NULL;
	b.transport.adb_serial = "-H evil";
	CHECK(transport_open(&b, NULL, &t, &err) == -EINVAL);
	free(err);
	fprintf(stderr, "%d failures\n", check_failures);
	return check_failures ? 1 : 0;
}
