/*
 * node: the lab daemon. One thread, one zloop: the CURVE ROUTER (inbox
 * from peers), one CURVE DEALER per peer (outbox to it), the ZAP handler
 * (who may connect), the control socket, and timers. Modules:
 *   node_setup.c  making and destroying a node: config, keys, store,
 *                 sockets, the jobs side's context
 *   node.c        the loop, ZAP, dispatch, garbage and bans, timers
 *   node_beacon.c the optional LAN hint
 *   node_feed.c   own records (adverts, node_append_record)
 *   node_peer.c   peers: hello, descriptors, exchange, liveness, backoff
 *   node_repl.c   feed replication (vector, want, records, credit)
 *   node_flood.c  request flooding
 *   node_ctl.c    control socket commands and their rendering
 */
#ifndef LABMESH_NODE_NODE_H
#define LABMESH_NODE_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct node node_t;

typedef struct {
	const char *home;   /* state home; must exist */
	const char *config; /* lab YAML; NULL: the default lab */
	const char *listen; /* overrides node.listen when not NULL */
} node_opts_t;

/* Build a node (keys, store, sockets). 0 and *ret_node, or -errno with a
 * one-line *ret_err (caller frees). */
int node_new(const node_opts_t *opts, node_t **ret_node, char **ret_err);
void node_destroy(node_t **p);
/* Run until SIGINT/SIGTERM or a `stop` control command. 0 or -errno. */
int node_run(node_t *node);

/*
 * Append a record to this node's own feed: tmpl has head.kind and the
 * body for that kind filled (proto/record.h; pointers borrowed); seq,
 * prev_id and ts are set here. The record is signed, stored durably, then
 * pushed to peers that follow us. The jobs side gets it through its
 * context (jobs_ctx_t) for accept/decline/event/run. 0 or -errno / a
 * PROTO_E_* code.
 */
struct record;
int node_append_record(node_t *node, const struct record *tmpl);

/*
 * A signed request from a local submitter (the control socket's
 * submit-raw): verified, stored, flooded to every peer, handed to the
 * jobs side (jobs_on_request). Returns 1 when new, 0 when already known, or -errno.
 */
int node_submit_request(node_t *node, const uint8_t *bytes, size_t len);

/*
 * Change a board's state (enum board_state of proto/record.h) and queue
 * length; the advert is republished when that changes anything.
 * 0, -ENOENT (no such board) or -errno.
 */
int node_set_board(node_t *node, const char *board, int state,
		   uint32_t queue);

/*
 * Testing aid: flip one byte of every record this node serves to peers
 * (a relay that tampers in transit). Only the test programs set this.
 */
void node_set_tamper(node_t *node, bool on);
/*
 * Testing aid: behave as a node of the version before digests: no
 * MSG_FEATURE_DIGEST in its hello, whole vectors to every peer.
 */
void node_set_no_digest(node_t *node, bool on);

#endif
