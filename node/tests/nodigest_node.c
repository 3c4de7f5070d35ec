/*
 * nodigest_node: a node of the version before digests, for tests of mixed
 * versions. It runs the real node code with the testing switch that
 * leaves MSG_FEATURE_DIGEST and MSG_FEATURE_PEERS_DELTA out of its hello,
 * sends every peer whole vectors and whole peer tables.
 *
 *   nodigest_node HOME CONFIG
 */
#include "node/net/node.h"

#include "proto/log.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	node_opts_t o = { 0 };
	node_t *node = NULL;
	char *err = NULL;

	if (argc != 3) {
		fprintf(stderr, "usage: nodigest_node HOME CONFIG\n");
		return 2;
	}
	o.home = argv[1];
	o.config = argv[2];
	if (node_new(&o, &node, &err) < 0) {
		fprintf(stderr, "nodigest_node: %s\n",
			err ? err : "cannot start");
		free(err);
		return 1;
	}
	node_set_no_digest(node, true);
	log_warn("this node neither sends nor announces digests");
	node_run(node);
	node_destroy(&node);
	return 0;
}
