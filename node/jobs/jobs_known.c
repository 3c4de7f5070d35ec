/*
 * jobs_known: the control command `known` (from `labmesh known add` and
 * `known drop`): the node signs a `known` record of its own feed, which
 * replicates like every record. The record's decoder is the judge of
 * what a mark may hold; its refusal is the operator's error message.
 *
 *   known PATH BOARD_GLOB ARCH LINK EXPIRES_MS TEXT
 */
#include "node/jobs/jobs_int.h"

#include "proto/log.h"
#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define KNOWN_ARGS 6

/* Argument i as a C string when it is text of at most max bytes. */
static char *s_arg(const uint8_t *const *args, const size_t *lens, size_t i,
		   size_t max)
{
	if (lens[i] > max || !proto_text_ok((const char *)args[i], lens[i]))
		return NULL;
	return xasprintf("%.*s", (int)lens[i], (const char *)args[i]);
}

static int s_publish(jobs_t *j, char **a, buf_t *out)
{
	record_t t = { .head.kind = RECORD_KNOWN };
	char *end = NULL;
	unsigned long long exp = strtoull(a[4], &end, 10);
	int rc;

	if (!a[4][0] || *end) {
		buf_puts(out, "known: bad expiry time");
		return -EINVAL;
	}
	t.known = (record_known_t){ .path = a[0], .board = a[1],
				    .arch = a[2], .link = a[3],
				    .expires_ms = exp, .text = a[5] };
	rc = j->ctx.append_record(j->ctx.arg, &t);
	if (rc < 0) {
		buf_printf(out, "known: mark refused: %s", wire_strerror(rc));
		return rc;
	}
	log_info("known failure marked: %.80s board '%.64s' arch '%.64s'"
		 " until %llu", a[0], a[1], a[2], exp);
	buf_puts(out, "ok\n");
	return 0;
}

bool jobs_known_ctl(jobs_t *j, const char *name, const uint8_t *const *args,
		    const size_t *lens, size_t n_args, buf_t *out,
		    bool *ret_failed)
{
	static const size_t max[KNOWN_ARGS] = { PROTO_MAX_PATH, PROTO_MAX_NAME,
						PROTO_MAX_NAME, PROTO_MAX_URL,
						20, PROTO_MAX_MESSAGE };
	char *a[KNOWN_ARGS] = { 0 };
	bool ok = true;

	if (strcmp(name, "known") != 0)
		return false;
	if (n_args != KNOWN_ARGS) {
		buf_puts(out, "known: expected 6 arguments");
		*ret_failed = true;
		return true;
	}
	for (size_t i = 0; i < KNOWN_ARGS; i++)
		if (!(a[i] = s_arg(args, lens, i, max[i])))
			ok = false;
	if (!ok)
		buf_puts(out, "known: an argument is too long or not text");
	*ret_failed = !ok || s_publish(j, a, out) < 0;
	for (size_t i = 0; i < KNOWN_ARGS; i++)
		free(a[i]);
	return true;
}
