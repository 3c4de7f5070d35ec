/*
 * node_reload: the lab file read again while the node runs, on SIGHUP or
 * the control command `reload`. Nothing restarts: peers stay connected,
 * running jobs and leases go on. The new file is loaded and checked in
 * full first; any error leaves the node as it was and is logged (and
 * returned to `labmesh reload`). What changes at once: boards (added,
 * removed when idle, changed), policy, recipes, seeds (new ones are
 * dialled), the trust list (for the connections made from then on),
 * max_peers, liveness, blob budget. What needs a restart: lab.name (the node's
 * descriptor and every record carry it: refused) and node.listen (the
 * socket is bound: kept, with a warning).
 *
 * Layout: the new trust list; the per-board arrays moved by name; the
 * reload itself.
 */
#include "node/net/node_int.h"

#include "node/jobs/jobs.h"
#include "proto/log.h"
#include "proto/mem.h"

#include <errno.h>
#include <string.h>

/* max_peers and liveness, at start and on each reload */
void node_apply_limits(node_t *node)
{
	const lab_config_t *cfg = node->cfg;

	node->max_peers = cfg->max_peers > 0 ? cfg->max_peers : 8;
	if (node->max_peers > NODE_MAX_PEERS_HARD)
		node->max_peers = NODE_MAX_PEERS_HARD;
	node->liveness_ms = cfg->liveness_ms >= LAB_MIN_LIVENESS_MS ?
				    cfg->liveness_ms : NODE_LIVENESS_MS;
}

static int s_trust(node_t *node, const lab_config_t *cfg, zhashx_t **ret,
		   char **ret_err)
{
	zhashx_t *trust;

	*ret = NULL;
	if (cfg->trust_open)
		return 0;
	trust = zhashx_new();
	for (size_t i = 0; i < cfg->n_trust_keys; i++) {
		uint8_t pk[WIRE_KEY_BYTES];
		char z85[WIRE_Z85_LEN + 1];

		if (wire_unhex(cfg->trust_keys[i], pk, sizeof(pk)) < 0 ||
		    wire_curve_public(pk, z85) < 0) {
			zhashx_destroy(&trust);
			*ret_err = xasprintf("%s: trust: bad node id '%.64s'",
					     cfg->path, cfg->trust_keys[i]);
			return -EINVAL;
		}
		zhashx_insert(trust, z85, (void *)"");
		node_ids_add(node, pk);
	}
	*ret = trust;
	return 0;
}

/* The node's per-board state, advert notes and queue lengths, moved to
 * the boards' indexes in cfg (a new board starts empty). */
static void s_move_boards(node_t *node, const lab_config_t *cfg)
{
	const lab_config_t *old = node->cfg;
	int *state = xcalloc(cfg->n_boards + 1, sizeof(int));
	uint32_t *queue = xcalloc(cfg->n_boards + 1, sizeof(uint32_t));
	char **notes = xcalloc(NODE_NOTES * cfg->n_boards + 1,
			       sizeof(char *));

	for (size_t o = 0; o < old->n_boards; o++) {
		const lab_board_t *b = lab_config_board(cfg,
							old->boards[o].name);
		size_t i = b ? (size_t)(b - cfg->boards) : 0;

		for (int k = 0; k < NODE_NOTES; k++) {
			char *note = node->board_notes[NODE_NOTES * o + k];

			if (b)
				notes[NODE_NOTES * i + k] = note;
			else
				free(note);
		}
		if (b) {
			state[i] = node->board_state[o];
			queue[i] = node->board_queue[o];
		}
	}
	free(node->board_state);
	free(node->board_queue);
	free(node->board_notes);
	node->board_state = state;
	node->board_queue = queue;
	node->board_notes = notes;
}

/* Load and check the file; the parts that cannot change are refused or
 * kept. */
static int s_load(node_t *node, lab_config_t **ret, char **ret_err)
{
	const lab_config_t *old = node->cfg;
	lab_config_t *cfg = NULL;
	int rc;

	if (!old->path || strcmp(old->path, "(default)") == 0) {
		*ret_err = xstrdup("no lab file to read again: the node runs"
				   " the default lab");
		return -ENOENT;
	}
	rc = lab_config_load(old->path, &cfg, ret_err);
	if (rc == 0)
		rc = lab_config_check_host(cfg, ret_err);
	if (rc == 0 && strcmp(cfg->name, old->name) != 0) {
		*ret_err = xasprintf("%s: lab.name: '%s' cannot become '%s'"
				     " while the node runs; restart it",
				     old->path, old->name, cfg->name);
		rc = -EINVAL;
	}
	if (rc < 0) {
		lab_config_destroy(&cfg);
		return rc;
	}
	if (strcmp(cfg->listen, old->listen) != 0) {
		if (!node->listen_fixed)
			log_warn("%s: node.listen: the node stays on %s until"
				 " it restarts", old->path, old->listen);
		free(cfg->listen);
		cfg->listen = xstrdup(old->listen);
	}
	*ret = cfg;
	return 0;
}

int node_reload(node_t *node, char **ret_err)
{
	lab_config_t *cfg = NULL, *old = node->cfg;
	zhashx_t *trust = NULL;
	int rc;

	rc = s_load(node, &cfg, ret_err);
	if (rc == 0)
		rc = s_trust(node, cfg, &trust, ret_err);
	if (rc == 0)
		rc = jobs_reload(node->jobs, cfg, ret_err);
	if (rc < 0) {
		zhashx_destroy(&trust);
		lab_config_destroy(&cfg);
		log_error("reload: %s", *ret_err);
		return rc;
	}
	s_move_boards(node, cfg);
	zhashx_destroy(&node->trust);
	node->trust = trust;
	node->cfg = cfg;
	log_set_tag(cfg->name); /* the tag is borrowed from the config */
	lab_config_destroy(&old);
	node_apply_limits(node);
	peer_seed(node); /* dials seeds it did not know */
	jobs_reload_done(node->jobs);
	rc = node_publish_advert(node);
	if (rc < 0)
		log_error("advert: %s", wire_strerror(rc));
	log_info("reloaded %s: %zu board(s), %zu seed(s), trust %s",
		 cfg->path, cfg->n_boards, cfg->n_seeds,
		 node->trust ? "list" : "open");
	return 0;
}
