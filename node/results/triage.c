/*
 * triage: known marks and verdicts from the store (see triage.h). Both
 * are read with the store's reader of records by kind, each decoded
 * strictly, at most TRIAGE_MAX_READ of each; marks are then sorted by key
 * and seq, so an author's latest mark on a key replaces the earlier ones
 * in one pass, and verdicts by run, so a lookup is a binary search.
 */
#include "node/results/triage.h"
#include "node/results/query_int.h"
#include "node/store/store.h"
#include "node/store/wire.h"

#include "proto/mem.h"
#include "proto/record.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* Records of each kind read at most: a bound on what a flood of marks
 * or verdicts from some node costs every query. */
#define TRIAGE_MAX_READ 100000

typedef struct {
	triage_t *t;
} s_load_t;

static bool s_noskip(void *arg, const uint8_t *id)
{
	(void)arg, (void)id;
	return false;
}

static void s_known_free(triage_known_t *k)
{
	free(k->path), free(k->board), free(k->arch), free(k->link);
	free(k->text);
}

static int s_on_known(void *arg, uint64_t seq, const uint8_t *bytes,
		      size_t len)
{
	s_load_t *l = arg;
	triage_t *t = l->t;
	record_t *rec = NULL;
	triage_known_t *k;

	if (t->n_known >= TRIAGE_MAX_READ)
		return 1;
	if (wire_record_decode(bytes, len, &rec) < 0)
		return 0;
	t->known = xreallocarray(t->known, t->n_known + 1, sizeof(*t->known));
	k = &t->known[t->n_known++];
	proto_hex(rec->head.author, 32, k->author);
	proto_hex(rec->head.id, 32, k->id);
	k->path = xstrdup(rec->known.path);
	k->board = xstrdup(rec->known.board);
	k->arch = xstrdup(rec->known.arch);
	k->link = xstrdup(rec->known.link);
	k->text = xstrdup(rec->known.text);
	k->ts_ms = (int64_t)rec->head.ts_ms;
	k->expires_ms = (int64_t)rec->known.expires_ms;
	k->seq = seq;
	record_destroy(&rec);
	return 0;
}

static int s_on_verdict(void *arg, uint64_t seq, const uint8_t *bytes,
			size_t len)
{
	s_load_t *l = arg;
	triage_t *t = l->t;
	record_t *rec = NULL;
	triage_verdict_t *v;

	(void)seq;
	if (t->n_verdicts >= TRIAGE_MAX_READ)
		return 1;
	if (wire_record_decode(bytes, len, &rec) < 0)
		return 0;
	t->verdicts = xreallocarray(t->verdicts, t->n_verdicts + 1,
				    sizeof(*t->verdicts));
	v = &t->verdicts[t->n_verdicts++];
	memcpy(v->run_id, rec->verdict.run_id, 32);
	proto_hex(rec->head.id, 32, v->id);
	v->lab = xstrdup(rec->verdict.lab);
	v->board = xstrdup(rec->verdict.board);
	v->path = xstrdup(rec->verdict.path);
	v->text = xstrdup(rec->verdict.text);
	v->verdict = rec->verdict.verdict;
	v->runs = rec->verdict.runs;
	v->passes = rec->verdict.passes;
	v->other_runs = rec->verdict.other_runs;
	v->other_passes = rec->verdict.other_passes;
	v->ts_ms = (int64_t)rec->head.ts_ms;
	record_destroy(&rec);
	return 0;
}

/* By key (path, board, arch, author), then seq. */
static int s_cmp_known(const void *pa, const void *pb)
{
	const triage_known_t *a = pa, *b = pb;
	int d = strcmp(a->path, b->path);

	if (!d)
		d = strcmp(a->board, b->board);
	if (!d)
		d = strcmp(a->arch, b->arch);
	if (!d)
		d = strcmp(a->author, b->author);
	return d ? d : a->seq < b->seq ? -1 : a->seq > b->seq;
}

static bool s_same_key(const triage_known_t *a, const triage_known_t *b)
{
	return !strcmp(a->path, b->path) && !strcmp(a->board, b->board) &&
	       !strcmp(a->arch, b->arch) && !strcmp(a->author, b->author);
}

/* Keep each author's latest mark per key, then (unless all) only those
 * not expired; sorted, so output is stable. */
static void s_known_finish(triage_t *t, int64_t now_ms, bool all)
{
	size_t k = 0;

	if (t->n_known)
		qsort(t->known, t->n_known, sizeof(*t->known), s_cmp_known);
	for (size_t i = 0; i < t->n_known; i++) {
		bool replaced = i + 1 < t->n_known &&
				s_same_key(&t->known[i], &t->known[i + 1]);

		if (replaced || (!all && t->known[i].expires_ms <= now_ms)) {
			s_known_free(&t->known[i]);
			continue;
		}
		t->known[k++] = t->known[i];
	}
	t->n_known = k;
}

/* Verdicts by run, path, then time and id: the latest last. */
static int s_cmp_verdict(const void *pa, const void *pb)
{
	const triage_verdict_t *a = pa, *b = pb;
	int d = memcmp(a->run_id, b->run_id, 32);

	if (!d)
		d = strcmp(a->path, b->path);
	if (!d)
		d = a->ts_ms < b->ts_ms ? -1 : a->ts_ms > b->ts_ms;
	return d ? d : strcmp(a->id, b->id);
}

int triage_load(sqlite3 *db, int64_t now_ms, bool all, triage_t *ret)
{
	s_load_t l = { .t = ret };
	int rc;

	memset(ret, 0, sizeof(*ret));
	if (!store_db_exists(db))
		return 0;
	rc = store_db_records_of_kind(db, RECORD_KNOWN, s_noskip, s_on_known,
				      &l);
	if (rc == 0)
		rc = store_db_records_of_kind(db, RECORD_VERDICT, s_noskip,
					      s_on_verdict, &l);
	s_known_finish(ret, now_ms, all);
	if (ret->n_verdicts)
		qsort(ret->verdicts, ret->n_verdicts, sizeof(*ret->verdicts),
		      s_cmp_verdict);
	return rc;
}

void triage_free(triage_t *t)
{
	for (size_t i = 0; i < t->n_known; i++)
		s_known_free(&t->known[i]);
	for (size_t i = 0; i < t->n_verdicts; i++) {
		triage_verdict_t *v = &t->verdicts[i];
		free(v->lab), free(v->board), free(v->path), free(v->text);
	}
	free(t->known);
	free(t->verdicts);
	memset(t, 0, sizeof(*t));
}

const triage_known_t *triage_known_find(const triage_t *t, const char *path,
					const char *board, const char *arch,
					int64_t now_ms)
{
	for (size_t i = 0; i < t->n_known; i++) {
		const triage_known_t *k = &t->known[i];

		if (k->expires_ms <= now_ms ||
		    !query_path_match(k->path, path) ||
		    (k->board[0] && fnmatch(k->board, board, 0) != 0) ||
		    (k->arch[0] && strcmp(k->arch, arch ? arch : "")))
			continue;
		return k;
	}
	return NULL;
}

const triage_verdict_t *triage_verdict_find(const triage_t *t,
					    const uint8_t *run_id,
					    const char *path)
{
	size_t lo = 0, hi = t->n_verdicts;
	const triage_verdict_t *best = NULL;

	/* the first verdict of the run, then its verdicts in path order */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (memcmp(t->verdicts[mid].run_id, run_id, 32) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < t->n_verdicts &&
	     !memcmp(t->verdicts[i].run_id, run_id, 32); i++)
		if (!strcmp(t->verdicts[i].path, path))
			best = &t->verdicts[i]; /* the latest comes last */
	return best;
}

void triage_verdict_line(const triage_verdict_t *v, char *out, size_t n)
{
	switch (v->verdict) {
	case VERDICT_FLAKY:
		snprintf(out, n, "flaky (%u of %u re-runs passed here, %u of"
			 " %u on other boards)", v->passes, v->runs,
			 v->other_passes, v->other_runs);
		return;
	case VERDICT_BOARD_SPECIFIC:
		snprintf(out, n, "board-specific (failed %u of %u here, passed"
			 " %u of %u on other boards)", v->runs - v->passes,
			 v->runs, v->other_passes, v->other_runs);
		return;
	default:
		snprintf(out, n, "confirmed (failed %u of %u re-runs)",
			 v->runs + v->other_runs - v->passes - v->other_passes,
			 v->runs + v->other_runs);
		return;
	}
}

static void s_known_json(json_t *j, const triage_known_t *k, int64_t now_ms)
{
	char when[64];

	json_obj_open(j);
	json_key_str(j, "id", k->id);
	json_key_str(j, "author", k->author);
	json_key_str(j, "test", k->path);
	json_key_str(j, "board", k->board);
	json_key_str(j, "arch", k->arch);
	json_key_str(j, "link", k->link);
	json_key_str(j, "text", k->text);
	query_time_rfc3339(k->ts_ms, when);
	json_key_str(j, "marked", when);
	query_time_rfc3339(k->expires_ms, when);
	json_key_str(j, "expires", when);
	json_key_bool(j, "expired", k->expires_ms <= now_ms);
	json_obj_close(j);
}

int triage_known_print(const triage_t *t, int64_t now_ms, bool json,
		       FILE *out)
{
	buf_t b;
	json_t j;
	char until[64];
	int rc = 0;

	buf_init(&b, 0);
	if (json) {
		json_init(&j, &b, JSON_PRETTY);
		json_arr_open(&j);
		for (size_t i = 0; i < t->n_known; i++)
			s_known_json(&j, &t->known[i], now_ms);
		json_arr_close(&j);
		rc = json_finish(&j) < 0 ? -EIO : 0;
	} else if (!t->n_known) {
		buf_puts(&b, "no known failures\n");
	}
	for (size_t i = 0; !json && i < t->n_known; i++) {
		const triage_known_t *k = &t->known[i];

		query_time_short(k->expires_ms, until);
		buf_printf(&b, "%s  board %s  arch %s  %s %s  by %.16s%s%s%s%s\n",
			   k->path, k->board[0] ? k->board : "*",
			   k->arch[0] ? k->arch : "*",
			   k->expires_ms <= now_ms ? "expired" : "until",
			   until, k->author, k->link[0] ? "  " : "", k->link,
			   k->text[0] ? "  " : "", k->text);
	}
	if (rc == 0)
		rc = query_flush(&b, out, true);
	buf_free(&b);
	return rc;
}
