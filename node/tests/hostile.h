/*
 * hostile: what the attack modes of the hostile test peer share (see
 * hostile.c for the modes, hostile_flood.c for the sustained flood).
 */
#ifndef LABMESH_NODE_TESTS_HOSTILE_H
#define LABMESH_NODE_TESTS_HOSTILE_H

#include "proto/keys.h"

#include <czmq.h>

#define HOSTILE_KEY_EVERY 40 /* fresh key after this many bad messages */

/* A CURVE DEALER with a fresh key, connected to the node under attack. */
typedef struct {
	zsock_t *sock;
	key_pair_t kp;
	char pub[KEY_Z85_LEN + 1], sec[KEY_Z85_LEN + 1];
} hostile_client_t;

extern unsigned long hostile_sent; /* messages handed to libzmq */

/* Connect c with a fresh key to ep (server: the node's z85 key). */
int hostile_client_open(hostile_client_t *c, const char *ep,
			const char *server);
void hostile_client_close(hostile_client_t *c);
/* Send a valid hello whose descriptor names tcp://127.0.0.1:port. */
void hostile_hello(hostile_client_t *c, int port);
/* hostile flood ENDPOINT NODE_ID SECONDS RATE LAB BOARD [PORT [BLOB]] */
/* A request message (kernel none, suite "smoke") for LAB (and BOARD when
 * not NULL), signed by KP, expiring in ttl_ms; NULL when it cannot be made. */
uint8_t *hostile_request_msg(const key_pair_t *kp, const char *lab,
			     const char *board, int64_t ttl_ms, int priority,
			     size_t *ret_len);
int hostile_flood_main(int argc, char **argv);

#endif
