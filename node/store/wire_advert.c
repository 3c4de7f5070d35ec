/*
 * wire_advert: the advert record template built from the lab config (kept
 * apart from wire.c so the decoding side links without the lab loader).
 */
#include "node/store/wire.h"

#include "proto/mem.h"

#include <stdlib.h>
#include <string.h>

#ifndef LABMESH_VERSION
#define LABMESH_VERSION "0.1.0"
#endif

static const char *s_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

void wire_advert_tmpl(const lab_config_t *cfg, const uint8_t *node_id,
		      const int *states, const uint32_t *queues,
		      record_t *tmpl)
{
	size_t n = cfg->n_boards < PROTO_MAX_BOARDS ? cfg->n_boards :
						      PROTO_MAX_BOARDS;
	record_board_t *b = xcalloc(n ? n : 1, sizeof(*b));

	memset(tmpl, 0, sizeof(*tmpl));
	tmpl->head.kind = RECORD_ADVERT;
	tmpl->advert.lab = cfg->name;
	memcpy(tmpl->advert.node_id, node_id, WIRE_KEY_BYTES);
	tmpl->advert.description = "";
	tmpl->advert.software = "labmesh " LABMESH_VERSION;
	for (size_t i = 0; i < n; i++) {
		const lab_board_t *lb = &cfg->boards[i];

		b[i].name = lb->name;
		b[i].arch = s_or(lb->arch, "unknown");
		b[i].machine = s_or(lb->machine, "");
		b[i].tags = (const char *const *)lb->tags;
		b[i].n_tags = lb->n_tags < PROTO_MAX_TAGS ? lb->n_tags :
							    PROTO_MAX_TAGS;
		b[i].transport = lab_transport_name(lb->transport.type);
		b[i].boot = lab_boot_name(lb->boot.method);
		b[i].state = states && states[i] ? (enum board_state)states[i] :
						   BOARD_IDLE;
		b[i].queue_len = queues ? queues[i] : 0;
	}
	tmpl->advert.boards = b;
	tmpl->advert.n_boards = n;
}

void wire_advert_tmpl_free(record_t *tmpl)
{
	free((void *)tmpl->advert.boards);
	tmpl->advert.boards = NULL;
}

