/*
 * wire_advert: the advert record template built from the lab config (kept
 * apart from wire.c so the decoding side links without the lab loader).
 */
#include "node/store/wire.h"

#include "proto/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef LABMESH_VERSION
#define LABMESH_VERSION "0.1.0"
#endif

static const char *s_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

/*
 * What the lab builds, one info entry per recipe: "build-ARCH" =
 * "native" or the cross toolchain prefix, then the config names the
 * recipe limits itself to, if it does.
 */
static void s_builds(const lab_config_t *cfg, record_t *tmpl)
{
	size_t n = cfg->n_recipes < PROTO_MAX_INFO ? cfg->n_recipes :
						     PROTO_MAX_INFO;
	proto_kv_t *kv = xcalloc(n ? n : 1, sizeof(*kv));

	for (size_t i = 0; i < n; i++) {
		const lab_recipe_t *r = &cfg->recipes[i];
		char v[PROTO_MAX_SHORT];
		size_t used;

		used = (size_t)snprintf(v, sizeof(v), "%s", r->cross_compile ?
					r->cross_compile : "native");
		for (size_t c = 0; c < r->n_configs && used + 1 < sizeof(v); c++)
			used += (size_t)snprintf(v + used, sizeof(v) - used,
						 "%s%s", c ? "," : " configs=",
						 r->configs[c]);
		kv[i].key = xasprintf("build-%s", r->arch);
		kv[i].value = xstrdup(v);
	}
	tmpl->advert.info = kv;
	tmpl->advert.n_info = n;
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
	s_builds(cfg, tmpl);
}

void wire_advert_tmpl_free(record_t *tmpl)
{
	free((void *)tmpl->advert.boards);
	tmpl->advert.boards = NULL;
	for (size_t i = 0; i < tmpl->advert.n_info; i++) {
		free((void *)tmpl->advert.info[i].key);
		free((void *)tmpl->advert.info[i].value);
	}
	free((void *)tmpl->advert.info);
	tmpl->advert.info = NULL;
	tmpl->advert.n_info = 0;
}

