/*
 * peerlib: the client side of a test peer, shared by the hostile and
 * adversary programs: a CURVE DEALER to the node under test, the signed
 * hello that makes the node treat it as a peer, and the CURVE listener
 * where the node's answers arrive (a node answers a hello by dialling the
 * endpoint it names).
 */
#ifndef LABMESH_NODE_TESTS_PEERLIB_H
#define LABMESH_NODE_TESTS_PEERLIB_H

#include "proto/keys.h"
#include "proto/msg.h"

#include <czmq.h>
#include <stdint.h>

/* A CURVE DEALER connected to the node under test, and its key. */
typedef struct {
	zsock_t *sock;
	key_pair_t kp;
	char pub[KEY_Z85_LEN + 1], sec[KEY_Z85_LEN + 1];
	uint64_t features; /* MSG_FEATURE_* said in hello: none once opened */
} peerlib_client_t;

extern unsigned long peerlib_sent; /* messages handed to libzmq */

/* The z85 CURVE key of a node id (64 hex) in ret; 0 or -1. */
int peerlib_server_key(const char *hex, char ret[KEY_Z85_LEN + 1]);
/* Connect c with a fresh key to ep (server: the node's z85 key). 0 or -1. */
int peerlib_open(peerlib_client_t *c, const char *ep, const char *server);
/* The same with the key kp (copied). */
int peerlib_open_key(peerlib_client_t *c, const char *ep, const char *server,
		     const key_pair_t *kp);
void peerlib_close(peerlib_client_t *c);
/* Send one frame; 0, or -1 when libzmq would not take it. */
int peerlib_send(peerlib_client_t *c, const void *p, size_t n);
/* The same without blocking: -1 at the high-water mark. */
int peerlib_send_nowait(peerlib_client_t *c, const void *p, size_t n);
/* Encode m and send it; 0, -1 or a PROTO_E_* code from msg_encode. */
int peerlib_send_msg(peerlib_client_t *c, const msg_t *m);
/* A valid hello whose descriptor (lab, epoch) names tcp://127.0.0.1:port. */
int peerlib_hello_as(peerlib_client_t *c, int port, const char *lab,
		     uint64_t epoch);
/* The same for lab "hostile", epoch 1. */
void peerlib_hello(peerlib_client_t *c, int port);
/* A CURVE ROUTER on 127.0.0.1:port with c's key; NULL when it cannot bind. */
zsock_t *peerlib_listener(peerlib_client_t *c, int port);

#endif
