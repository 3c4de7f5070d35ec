/*
 * bisectview: bisections as the store holds them (bisect records, the
 * latest of each bisection wins) and their JSON, the same for
 * `labmesh bisect --show/--list --json` and the dashboard's API.
 *
 * Layout: finding one; every one; JSON.
 */
#include "node/results/bisectview.h"

#include "node/store/store.h"
#include "node/store/wire.h"
#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- finding one ---- */

/* The latest record of one bisection (by stamp, then seq), or the one
 * bisection whose id or one of whose records' ids starts with prefix. */
typedef struct {
	const uint8_t *id;   /* a bisection's id, or NULL */
	const char *prefix;  /* else a hex prefix */
	uint8_t found[32];   /* the bisection the prefix names */
	int matches;	     /* bisections the prefix names */
	record_t *best;
} s_find_t;

static bool s_prefix_of(const char *prefix, const uint8_t *id)
{
	char hex[65];

	proto_hex(id, 32, hex);
	return strncmp(hex, prefix, strlen(prefix)) == 0;
}

static bool s_wanted(s_find_t *f, const record_t *r)
{
	const uint8_t *bid = r->bisect.bisection;

	if (f->id)
		return memcmp(bid, f->id, 32) == 0;
	if (!s_prefix_of(f->prefix, bid) && !s_prefix_of(f->prefix, r->head.id))
		return f->matches && memcmp(bid, f->found, 32) == 0;
	if (f->matches && memcmp(bid, f->found, 32) != 0) {
		f->matches++;
		return false;
	}
	if (!f->matches) {
		memcpy(f->found, bid, 32);
		f->matches = 1;
	}
	return true;
}

static int s_take(void *arg, uint64_t seq, const uint8_t *bytes, size_t len)
{
	s_find_t *f = arg;
	record_t *r = NULL;

	(void)seq;
	if (wire_record_decode(bytes, len, &r) < 0 ||
	    r->head.kind != RECORD_BISECT || !s_wanted(f, r)) {
		record_destroy(&r);
		return 0;
	}
	if (!f->best || r->head.ts_ms > f->best->head.ts_ms ||
	    (r->head.ts_ms == f->best->head.ts_ms &&
	     r->head.seq > f->best->head.seq)) {
		record_destroy(&f->best);
		f->best = r;
		return 0;
	}
	record_destroy(&r);
	return 0;
}

static bool s_skip_none(void *arg, const uint8_t *id)
{
	(void)arg, (void)id;
	return false;
}

int bisectview_find(sqlite3 *db, const uint8_t *id, const char *prefix,
		    record_t **ret)
{
	s_find_t f = { .id = id, .prefix = prefix };
	int rc = store_db_records_of_kind(db, RECORD_BISECT, s_skip_none,
					  s_take, &f);

	if (rc < 0 || f.matches > 1 || !f.best) {
		record_destroy(&f.best);
		return rc < 0 ? rc : f.matches > 1 ? -EINVAL : -ENOENT;
	}
	*ret = f.best;
	return 0;
}

bool bisectview_prefix_ok(const char *prefix)
{
	size_t n = strlen(prefix);

	for (size_t i = 0; i < n; i++)
		if (!((prefix[i] >= '0' && prefix[i] <= '9') ||
		      (prefix[i] >= 'a' && prefix[i] <= 'f')))
			return false;
	return n >= BISECTVIEW_MIN_PREFIX && n <= 64;
}


/* ---- every one ---- */

typedef struct {
	record_t **v;
	size_t n;
} s_all_t;

static int s_take_all(void *arg, uint64_t seq, const uint8_t *bytes,
		      size_t len)
{
	s_all_t *a = arg;
	record_t *r = NULL;
	size_t i;

	(void)seq;
	if (wire_record_decode(bytes, len, &r) < 0 ||
	    r->head.kind != RECORD_BISECT) {
		record_destroy(&r);
		return 0;
	}
	for (i = 0; i < a->n; i++)
		if (!memcmp(a->v[i]->bisect.bisection, r->bisect.bisection, 32))
			break;
	if (i == a->n) {
		a->v = xreallocarray(a->v, a->n + 1, sizeof(*a->v));
		a->v[a->n++] = r;
	} else if (r->head.ts_ms >= a->v[i]->head.ts_ms) {
		record_destroy(&a->v[i]);
		a->v[i] = r;
	} else {
		record_destroy(&r);
	}
	return 0;
}


int bisectview_all(sqlite3 *db, record_t ***ret, size_t *ret_n)
{
	s_all_t a = { 0 };
	int rc = store_db_records_of_kind(db, RECORD_BISECT, s_skip_none,
					  s_take_all, &a);

	if (rc < 0) {
		bisectview_free(a.v, a.n);
		return rc;
	}
	*ret = a.v;
	*ret_n = a.n;
	return 0;
}

void bisectview_free(record_t **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		record_destroy(&v[i]);
	free(v);
}

/* ---- JSON ---- */

static void s_json_id(json_t *j, const char *key, bool has,
		      const uint8_t *id)
{
	char hex[65];

	if (!has) {
		json_key_null(j, key);
		return;
	}
	proto_hex(id, 32, hex);
	json_key_str(j, key, hex);
}

void bisectview_json(json_t *j, const record_t *rec)
{
	const record_bisect_t *r = &rec->bisect;

	json_obj_open(j);
	s_json_id(j, "bisection", true, r->bisection);
	s_json_id(j, "record", true, rec->head.id);
	s_json_id(j, "node", true, rec->head.author);
	s_json_id(j, "submitter", true, r->submitter);
	json_key_str(j, "tree", r->tree_url);
	json_key_str(j, "good", r->good);
	json_key_str(j, "bad", r->bad);
	json_key_str(j, "test", r->test);
	json_key_str(j, "config", r->config);
	json_key_str(j, "arch", r->arch);
	json_key_uint(j, "commits", r->n_commits);
	json_key_str(j, "state", bisect_state_name(r->state));
	json_key_str(j, "first_bad", r->first_bad);
	json_key_str(j, "text", r->text);
	json_key(j, "steps");
	json_arr_open(j);
	for (size_t i = 0; i < r->n_steps; i++) {
		const bisect_step_t *st = &r->steps[i];

		json_obj_open(j);
		json_key_str(j, "commit", st->commit);
		json_key_str(j, "verdict", bisect_verdict_name(st->verdict));
		s_json_id(j, "request", st->has_request, st->request_id);
		json_key_str(j, "lab", st->lab);
		json_key_str(j, "board", st->board);
		s_json_id(j, "run", st->has_run, st->run_id);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
}

int bisectview_json_of(record_t *const *recs, size_t n, bool array,
		       buf_t *out)
{
	json_t j;

	json_init(&j, out, 0);
	if (array)
		json_arr_open(&j);
	for (size_t i = 0; i < n; i++)
		bisectview_json(&j, recs[i]);
	if (array)
		json_arr_close(&j);
	if (json_finish(&j) < 0)
		return -E2BIG;
	return buf_putc(out, '\n') < 0 ? -E2BIG : 0;
}

