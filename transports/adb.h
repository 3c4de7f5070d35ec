/*
 * adb internals shared with the tests and the fuzz harness: the exit-status
 * frame parser and the client command line. Internal to transports/.
 *
 * The board's stdout ends with FRAME<status>\n (\r\n through an old adbd
 * that uses a pty). adb_frame_feed() passes output on as it arrives,
 * holding back only bytes that could still be the start of the frame, so
 * output stays streamed and exact; adb_frame_finish() checks the held tail
 * is exactly one frame and yields the status.
 */
#ifndef LABMESH_TRANSPORTS_ADB_H
#define LABMESH_TRANSPORTS_ADB_H

#include "transports/proc.h"
#include "transports/transport.h"

#include <stdbool.h>
#include <stddef.h>

#define ADB_FRAME_PREFIX "__LMRC_"
#define ADB_MAX_FRAME 48 /* prefix, token, '=', status, \r\n */

typedef struct {
	char frame[ADB_MAX_FRAME]; /* "__LMRC_<token>=" */
	size_t flen;
	char held[ADB_MAX_FRAME + 8];
	size_t hlen;
	transport_output_fn *fn;
	void *arg;
} adb_frame_t;

/* token: REMOTE_TOKEN_HEX hex digits. */
void adb_frame_init(adb_frame_t *f, const char *token, transport_output_fn *fn,
		    void *arg);
void adb_frame_feed(adb_frame_t *f, const char *data, size_t len);
/* 0 and *ret_status when the stream ended with one well-formed frame;
 * -EPROTO otherwise (the held bytes are passed on as output). */
int adb_frame_finish(adb_frame_t *f, int *ret_status);

/* adb [-s SERIAL] then the given words; the spec borrows serial. */
void adb_command(const char *serial, proc_spec_t *s);

#endif
