/*
 * peerlib: the client side of a test peer (see peerlib.h). It uses proto
 * only to sign the hello's descriptor and encode messages.
 */
#include "node/tests/peerlib.h"

#include "proto/desc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned long peerlib_sent;

int peerlib_server_key(const char *hex, char ret[KEY_Z85_LEN + 1])
{
	uint8_t pk[32];

	if (key_parse_hex(hex, pk) < 0 || key_curve_public(pk, ret) < 0)
		return -1;
	return 0;
}

static int s_open(peerlib_client_t *c, const char *ep, const char *server)
{
	if (key_curve(&c->kp, c->pub, c->sec) < 0)
		return -1;
	c->sock = zsock_new(ZMQ_DEALER);
	zsock_set_curve_serverkey(c->sock, server);
	zsock_set_curve_publickey(c->sock, c->pub);
	zsock_set_curve_secretkey(c->sock, c->sec);
	zsock_set_linger(c->sock, 5000);
	zsock_set_sndhwm(c->sock, 100000);
	zsock_set_sndtimeo(c->sock, 2000);
	return zsock_connect(c->sock, "%s", ep);
}

int peerlib_open(peerlib_client_t *c, const char *ep, const char *server)
{
	memset(c, 0, sizeof(*c));
	if (key_generate(&c->kp) < 0)
		return -1;
	return s_open(c, ep, server);
}

int peerlib_open_key(peerlib_client_t *c, const char *ep, const char *server,
		     const key_pair_t *kp)
{
	memset(c, 0, sizeof(*c));
	c->kp = *kp;
	return s_open(c, ep, server);
}

void peerlib_close(peerlib_client_t *c)
{
	zsock_destroy(&c->sock);
	key_wipe(&c->kp);
}

int peerlib_send(peerlib_client_t *c, const void *p, size_t n)
{
	if (!c->sock || zmq_send(zsock_resolve(c->sock), p, n, 0) < 0)
		return -1;
	peerlib_sent++;
	return 0;
}

int peerlib_send_nowait(peerlib_client_t *c, const void *p, size_t n)
{
	if (!c->sock ||
	    zmq_send(zsock_resolve(c->sock), p, n, ZMQ_DONTWAIT) < 0)
		return -1;
	peerlib_sent++;
	return 0;
}

int peerlib_send_msg(peerlib_client_t *c, const msg_t *m)
{
	uint8_t *b = NULL;
	size_t len = 0;
	int rc = msg_encode(m, &b, &len);

	if (rc == 0)
		rc = peerlib_send(c, b, len);
	free(b);
	return rc;
}

int peerlib_hello_as(peerlib_client_t *c, int port, const char *lab,
		     uint64_t epoch)
{
	const char *eps[1];
	char ep[64];
	node_desc_t d = { 0 };
	msg_t m = { .type = MSG_HELLO };
	uint8_t *desc = NULL, id[32];
	size_t dlen = 0;
	int rc;

	snprintf(ep, sizeof(ep), "tcp://127.0.0.1:%d", port);
	eps[0] = ep;
	d.lab = lab;
	d.endpoints = eps;
	d.n_endpoints = 1;
	d.software = lab;
	d.ts_ms = 1;
	d.epoch = epoch;
	rc = desc_sign(&d, &c->kp, &desc, &dlen, id);
	if (rc < 0)
		return rc;
	m.hello.version = PROTO_VERSION;
	m.hello.features = c->features;
	m.hello.desc = (proto_bytes_t){ desc, dlen };
	rc = peerlib_send_msg(c, &m);
	free(desc);
	return rc;
}

void peerlib_hello(peerlib_client_t *c, int port)
{
	peerlib_hello_as(c, port, "hostile", 1);
}

zsock_t *peerlib_listener(peerlib_client_t *c, int port)
{
	zsock_t *l = zsock_new(ZMQ_ROUTER);

	zsock_set_curve_server(l, 1);
	zsock_set_curve_publickey(l, c->pub);
	zsock_set_curve_secretkey(l, c->sec);
	zsock_set_maxmsgsize(l, PROTO_MAX_MSG);
	if (zsock_bind(l, "tcp://127.0.0.1:%d", port) < 0) {
		fprintf(stderr, "peerlib: cannot listen on port %d\n", port);
		zsock_destroy(&l);
	}
	return l;
}
