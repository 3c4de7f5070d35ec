/*
 * triage: known marks and verdicts from the store (see triage.h). Both
 * are read with the store's reader of records by kind (author, seq
 * order), each decoded strictly; a later mark of the same author and key
 * replaces the earlier one in place.
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

typedef struct {
	triage_t *t;
	int64_t now_ms;
	bool all;
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

/* The index of author's mark on the same key, or n_known. */
static size_t s_known_slot(const triage_t *t, const char *author,
			   const record_known_t *k)
{
	size_t i;

	for (i = 0; i < t->n_known; i++) {
		const triage_known_t *x = &t->known[i];

		if (!strcmp(x->author, author) && !strcmp(x->path, k->path) &&
		    !strcmp(x->board, k->board) && !strcmp(x->arch, k->arch))
			break;
	}
	return i;
}

static int s_on_known(void *arg, uint64_t seq, const uint8_t *bytes,
		      size_t len)
{
	s_load_t *l = arg;
	triage_t *t = l->t;
	record_t *rec = NULL;
	char author[65];
	size_t i;

	if (wire_record_decode(bytes, len, &rec) < 0)
		return 0;
	proto_hex(rec->head.author, 32, author);
	i = s_known_slot(t, author, &rec->known);
	if (i == t->n_known) {
		t->known = xreallocarray(t->known, t->n_known + 1,
					 sizeof(*t->known));
		t->n_known++;
	} else {
		s_known_free(&t->known[i]);
	}
	triage_known_t *k = &t->known[i];
	memcpy(k->author, author, sizeof(author));
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

static int s_cmp_known(const void *pa, const void *pb)
{
	const triage_known_t *a = pa, *b = pb;
	int d = strcmp(a->path, b->path);

	if (!d)
		d = strcmp(a->board, b->board);
	if (!d)
		d = strcmp(a->arch, b->arch);
	return d ? d : strcmp(a->author, b->author);
}

/* Leave out expired marks (unless all), then sort for stable output. */
static void s_known_finish(triage_t *t, int64_t now_ms, bool all)
{
	size_t k = 0;

	for (size_t i = 0; i < t->n_known; i++) {
		if (!all && t->known[i].expires_ms <= now_ms) {
			s_known_free(&t->known[i]);
			continue;
		}
		t->known[k++] = t->known[i];
	}
	t->n_known = k;
	if (k)
		qsort(t->known, k, sizeof(*t->known), s_cmp_known);
}

int triage_load(sqlite3 *db, int64_t now_ms, bool all, triage_t *ret)
{
	s_load_t l = { .t = ret, .now_ms = now_ms, .all = all };
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
	const triage_verdict_t *best = NULL;

	for (size_t i = 0; i < t->n_verdicts; i++) {
		const triage_verdict_t *v = &t->verdicts[i];

		if (memcmp(v->run_id, run_id, 32) || strcmp(v->path, path))
			continue;
		if (!best || v->ts_ms > best->ts_ms ||
		    (v->ts_ms == best->ts_ms && strcmp(v->id, best->id) > 0))
			best = v;
	}
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
