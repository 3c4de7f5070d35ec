/*
 * export_env: where a KCIDB test ran, as far as the store knows: a
 * board's DT compatible (environment.compatible), from the machine its
 * lab's latest advert gives for it when that is written as compatible
 * strings ("vendor,model", several space-separated in the device tree's
 * root-level order).
 */
#include "node/results/export_int.h"

#include "node/store/store.h"
#include "node/store/wire.h"

#include "proto/mem.h"
#include "proto/record.h"

#include <stdlib.h>
#include <string.h>

/* Whether a board's machine is a DT compatible ("vendor,model", or
 * several of them space-separated, the root-level order). */
static bool s_compatible_ok(const char *m)
{
	bool comma = false;

	if (!*m)
		return false;
	for (const char *p = m; *p; p++) {
		if (*p == ',')
			comma = true;
		else if (*p == ' ' && (!comma || p[1] == ' ' || !p[1]))
			return false;
		if (*p == ' ')
			comma = false;
		if ((unsigned char)*p < 0x21 && *p != ' ')
			return false;
	}
	return comma && m[0] != ' ';
}

static int s_advert_compat(void *arg, uint64_t seq, const uint8_t *bytes,
			   size_t len)
{
	export_compats_t *c = arg;
	record_t *rec = NULL;

	(void)seq;
	if (wire_record_decode(bytes, len, &rec) < 0 ||
	    rec->head.kind != RECORD_ADVERT) {
		record_destroy(&rec);
		return 0;
	}
	for (size_t i = 0; i < rec->advert.n_boards; i++) {
		const record_board_t *b = &rec->advert.boards[i];
		export_compat_t *e = NULL;

		/* runs are signed by their job's key: the lab's name, as
		 * the run record gives it, finds its advert */
		for (size_t k = 0; k < c->n && !e; k++)
			if (!strcmp(c->v[k].lab, rec->advert.lab) &&
			    !strcmp(c->v[k].board, b->name))
				e = &c->v[k];
		if (e && e->ts_ms > (int64_t)rec->head.ts_ms)
			continue;
		if (!e) {
			c->v = xreallocarray(c->v, c->n + 1, sizeof(*c->v));
			e = &c->v[c->n++];
			e->lab = xstrdup(rec->advert.lab);
			e->board = xstrdup(b->name);
			e->compatible = NULL;
		}
		e->ts_ms = (int64_t)rec->head.ts_ms;
		free(e->compatible);
		e->compatible = s_compatible_ok(b->machine) ?
					xstrdup(b->machine) : NULL;
	}
	record_destroy(&rec);
	return 0;
}

static bool s_no_skip(void *arg, const uint8_t *id)
{
	(void)arg, (void)id;
	return false;
}

const char *export_compatible(const export_compats_t *c, const char *lab,
			      const char *board)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].lab, lab) && !strcmp(c->v[i].board, board))
			return c->v[i].compatible;
	return NULL;
}

void export_compats_load(sqlite3 *db, export_compats_t *ret)
{
	memset(ret, 0, sizeof(*ret));
	store_db_records_of_kind(db, RECORD_ADVERT, s_no_skip, s_advert_compat,
				 ret);
}

void export_compats_free(export_compats_t *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].lab), free(c->v[i].board), free(c->v[i].compatible);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

