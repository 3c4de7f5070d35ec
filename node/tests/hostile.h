/*
 * hostile: what the attack modes of the hostile test peer share (see
 * hostile.c for the modes, hostile_flood.c for the sustained flood).
 */
#ifndef LABMESH_NODE_TESTS_HOSTILE_H
#define LABMESH_NODE_TESTS_HOSTILE_H

#include "node/tests/peerlib.h"
#include "proto/keys.h"

#include <czmq.h>

#define HOSTILE_KEY_EVERY 40 /* fresh key after this many bad messages */

/* hostile flood ENDPOINT NODE_ID SECONDS RATE LAB BOARD [PORT [BLOB]] */
/* A request message (kernel none, suite "smoke") for LAB (and BOARD when
 * not NULL), signed by KP, expiring in ttl_ms; NULL when it cannot be made. */
uint8_t *hostile_request_msg(const key_pair_t *kp, const char *lab,
			     const char *board, int64_t ttl_ms, int priority,
			     size_t *ret_len);
int hostile_flood_main(int argc, char **argv);

#endif
