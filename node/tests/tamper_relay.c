/*
 * tamper_relay: a node that lies. It runs the real node code with the
 * testing switch that flips one byte of every record it serves, so the
 * next hop must reject what it relays.
 *
 *   tamper_relay HOME CONFIG
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
		fprintf(stderr, "usage: tamper_relay HOME CONFIG\n");
		return 2;
	}
	o.home = argv[1];
	o.config = argv[2];
	if (node_new(&o, &node, &err) < 0) {
		fprintf(stderr, "tamper_relay: %s\n", err ? err : "cannot start");
		free(err);
		return 1;
	}
	node_set_tamper(node, true);
	log_warn("this node tampers with every record it serves");
	node_run(node);
	node_destroy(&node);
	return 0;
}
