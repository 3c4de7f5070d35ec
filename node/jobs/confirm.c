/*
 * confirm: regressions confirmed by re-running them (see confirm.h).
 *
 * A confirmation is a row of jobs.db's `confirms` table:
 *   TODO     a run to look at (this lab's own run that regressed, or
 *            one asked for with `labmesh confirm`); started from the
 *            tick, never inside the code that published the run
 *   WAITING  its re-run requests are out (their ids in confirm_reqs);
 *            the tick checks their views until every lab answered and
 *            every accepted board has run (or CONFIRM_SILENT_MS passed
 *            and the silent labs are let go, or CONFIRM_MAX_MS passed)
 *   DONE     one signed verdict record published per regressed test
 *   NONE     nothing to confirm, or refused (the text says why)
 * The re-runs: policy.confirm.reruns requests for the run's own board
 * (its lab, its board, the failing suites, the same kernel), and one
 * request naming every other board of the same arch the adverts show
 * (any lab). The node signs
 * them with its own key; policy.confirm.per_day caps how many it starts.
 */
#include "node/jobs/confirm.h"
#include "node/jobs/jobs_int.h"

#include "node/results/reqview.h"
#include "node/results/rerun.h"
#include "node/store/wire.h"
#include "proto/json.h"
#include "proto/log.h"
#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <inttypes.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#define CONFIRM_TICK_MS 1000
#define CONFIRM_SILENT_MS (5 * 60 * 1000)
#define CONFIRM_MAX_MS (24 * 3600 * 1000)
#define CONFIRM_MAX_PATHS 32	/* tests judged per run */
#define CONFIRM_MAX_OTHERS 32	/* other boards asked */
#define CONFIRM_REQ_LIFETIME_MS (24 * 3600 * 1000)
#define CONFIRM_PRIORITY 60

enum { C_TODO = 0, C_WAITING, C_DONE, C_NONE };

static const char s_schema[] =
	"CREATE TABLE IF NOT EXISTS confirms("
	" id INTEGER PRIMARY KEY, run BLOB NOT NULL, asked INTEGER NOT NULL,"
	" state INTEGER NOT NULL, lab TEXT, board TEXT, paths TEXT,"
	" n_reqs INTEGER NOT NULL DEFAULT 0, created_ms INTEGER NOT NULL,"
	" started_ms INTEGER, text TEXT);"
	"CREATE TABLE IF NOT EXISTS confirm_reqs("
	" req BLOB PRIMARY KEY, confirm INTEGER NOT NULL);";

/* What one run under confirmation needs, loaded from the store. */
typedef struct {
	int64_t row;
	uint8_t run_id[32];
	record_t *run;	      /* the run record */
	request_t *req;	      /* its request, NULL for a local run */
	char **paths;	      /* regressed tests */
	size_t n_paths;
	char **suites;	      /* their suites, distinct */
	size_t n_suites;
	char *others[CONFIRM_MAX_OTHERS], *other_labs[CONFIRM_MAX_OTHERS];
	size_t n_others, n_other_labs;
} s_cf_t;

int confirm_init(jobs_t *j)
{
	return jobs_db_exec(j, s_schema);
}

static void s_cf_free(s_cf_t *c)
{
	record_destroy(&c->run);
	request_destroy(&c->req);
	for (size_t i = 0; i < c->n_paths; i++)
		free(c->paths[i]);
	for (size_t i = 0; i < c->n_suites; i++)
		free(c->suites[i]);
	for (size_t i = 0; i < c->n_others; i++)
		free(c->others[i]);
	for (size_t i = 0; i < c->n_other_labs; i++)
		free(c->other_labs[i]);
	free(c->paths);
	free(c->suites);
}

static bool s_has(char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

static int s_on_path(void *arg, const char *path)
{
	s_cf_t *c = arg;
	const char *dot = strchr(path, '.');
	char *suite;

	if (c->n_paths >= CONFIRM_MAX_PATHS || !dot)
		return c->n_paths >= CONFIRM_MAX_PATHS;
	c->paths = xreallocarray(c->paths, c->n_paths + 1, sizeof(char *));
	c->paths[c->n_paths++] = xstrdup(path);
	suite = xasprintf("%.*s", (int)(dot - path), path);
	if (s_has(c->suites, c->n_suites, suite) ||
	    c->n_suites >= PROTO_MAX_SUITES) {
		free(suite);
		return 0;
	}
	c->suites = xreallocarray(c->suites, c->n_suites + 1, sizeof(char *));
	c->suites[c->n_suites++] = suite;
	return 0;
}

static int s_on_run(void *arg, uint64_t seq, const uint8_t *bytes, size_t len)
{
	s_cf_t *c = arg;

	(void)seq;
	return wire_record_decode(bytes, len, &c->run) < 0 ? -EBADMSG : 0;
}

/* The run record and, when it had one, its request. */
static int s_load_run(jobs_t *j, s_cf_t *c)
{
	char hex[65];
	uint8_t *bytes = NULL;
	size_t len = 0;
	int rc;

	proto_hex(c->run_id, 32, hex);
	rc = store_db_find_record(j->store_db, RECORD_RUN, hex, s_on_run, c);
	if (rc < 0)
		return rc;
	if (!c->run->run.has_request)
		return 0;
	if (store_db_get_request(j->store_db, c->run->run.request_id, &bytes,
				 &len) == 0) {
		if (wire_request_decode(bytes, len, &c->req) < 0)
			c->req = NULL;
		free(bytes);
	}
	return 0;
}

/* Boards of the run's arch in the latest adverts, the run's own aside. */
static int s_on_advert(void *arg, uint64_t seq, const uint8_t *bytes,
		       size_t len)
{
	s_cf_t *c = arg;
	const record_run_t *r = &c->run->run;
	wire_advert_t ad;

	(void)seq;
	if (wire_advert_decode(bytes, len, &ad) < 0)
		return 0;
	for (size_t i = 0; i < ad.n_boards; i++) {
		const wire_board_t *b = &ad.boards[i];

		if (strcmp(b->arch, r->kernel.arch) ||
		    (!strcmp(ad.lab, r->lab) && !strcmp(b->name, r->board)) ||
		    c->n_others >= CONFIRM_MAX_OTHERS)
			continue;
		if (!s_has(c->others, c->n_others, b->name))
			c->others[c->n_others++] = xstrdup(b->name);
		if (!s_has(c->other_labs, c->n_other_labs, ad.lab))
			c->other_labs[c->n_other_labs++] = xstrdup(ad.lab);
	}
	wire_advert_free(&ad);
	return 0;
}

/* Re-run requests started in the last day (policy.confirm.per_day). */
static int64_t s_started_today(jobs_t *j)
{
	sqlite3_stmt *st = jobs_prep(j, "SELECT coalesce(sum(n_reqs), 0) FROM"
				     " confirms WHERE started_ms >= ?1");
	int64_t n = INT64_MAX;

	if (!st)
		return n;
	sqlite3_bind_int64(st, 1, jobs_wall_ms() - 24LL * 3600 * 1000);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Sign one re-run request on the run's kernel, submit it, note its id. */
static int s_submit(jobs_t *j, s_cf_t *c, const request_selector_t *sel)
{
	request_t q = { 0 };
	uint8_t *bytes = NULL, id[32];
	size_t len = 0;
	int64_t now = jobs_wall_ms();
	/* no longer than this lab lets any request live */
	int64_t life = (int64_t)j->ctx.cfg->max_request_hours * 3600 * 1000;
	sqlite3_stmt *st;
	int rc;

	if (life <= 0 || life > CONFIRM_REQ_LIFETIME_MS)
		life = CONFIRM_REQ_LIFETIME_MS;
	q.created_ms = (uint64_t)now;
	q.expires_ms = (uint64_t)(now + life);
	randombytes_buf(q.nonce, sizeof(q.nonce));
	q.priority = CONFIRM_PRIORITY;
	q.kernel.type = REQUEST_KERNEL_NONE;
	if (c->req)
		q.kernel = c->req->kernel;
	q.suites = (const char *const *)c->suites;
	q.n_suites = c->n_suites;
	q.select = *sel;
	rc = wire_request_sign(&q, j->ctx.key, &bytes, &len, id);
	if (rc < 0)
		return rc;
	rc = j->ctx.submit_request(j->ctx.arg, bytes, len);
	free(bytes);
	if (rc < 0)
		return rc;
	st = jobs_prep(j, "INSERT OR IGNORE INTO confirm_reqs(req, confirm)"
		       " VALUES(?1, ?2)");
	if (!st)
		return -EIO;
	sqlite3_bind_blob(st, 1, id, 32, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, c->row);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	return rc;
}

static int s_submit_all(jobs_t *j, s_cf_t *c, int reruns)
{
	const record_run_t *r = &c->run->run;
	const char *lab = r->lab, *board = r->board;
	request_selector_t here = { .arch = "", .labs = &lab, .n_labs = 1,
				    .boards = &board, .n_boards = 1 };
	request_selector_t others = {
		.arch = r->kernel.arch,
		.labs = (const char *const *)c->other_labs,
		.n_labs = c->n_other_labs,
		.boards = (const char *const *)c->others,
		.n_boards = c->n_others,
	};
	int rc = 0, n = 0;

	for (int i = 0; i < reruns && rc == 0; i++, n++)
		rc = s_submit(j, c, &here);
	if (rc == 0 && c->n_others) {
		rc = s_submit(j, c, &others);
		n++;
	}
	return rc < 0 ? rc : n;
}

static void s_set(jobs_t *j, int64_t row, int state, int n_reqs,
		  const s_cf_t *c, const char *text)
{
	sqlite3_stmt *st = jobs_prep(j, "UPDATE confirms SET state = ?2,"
				     " n_reqs = ?3, started_ms = ?4, lab = ?5,"
				     " board = ?6, paths = ?7, text = ?8"
				     " WHERE id = ?1");
	buf_t paths;

	if (!st)
		return;
	buf_init(&paths, 0);
	for (size_t i = 0; c && i < c->n_paths; i++)
		buf_printf(&paths, "%s\n", c->paths[i]);
	sqlite3_bind_int64(st, 1, row);
	sqlite3_bind_int(st, 2, state);
	sqlite3_bind_int(st, 3, n_reqs);
	sqlite3_bind_int64(st, 4, jobs_wall_ms());
	if (c && c->run) {
		sqlite3_bind_text(st, 5, c->run->run.lab, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 6, c->run->run.board, -1,
				  SQLITE_TRANSIENT);
	}
	sqlite3_bind_text(st, 7, buf_str(&paths), -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 8, text, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_DONE)
		log_warn("confirm: cannot write jobs.db");
	sqlite3_finalize(st);
	buf_free(&paths);
}

static void s_set_done(jobs_t *j, int64_t row, const char *text)
{
	sqlite3_stmt *st = jobs_prep(j, "UPDATE confirms SET state = ?2,"
				     " text = ?3 WHERE id = ?1");

	if (!st)
		return;
	sqlite3_bind_int64(st, 1, row);
	sqlite3_bind_int(st, 2, C_DONE);
	sqlite3_bind_text(st, 3, text, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_DONE)
		log_warn("confirm: cannot write jobs.db");
	sqlite3_finalize(st);
}

/* Start the re-runs of one TODO row. */
static void s_start(jobs_t *j, int64_t row, const uint8_t *run_id, bool asked)
{
	s_cf_t c = { .row = row };
	int reruns = j->ctx.cfg->confirm_reruns, n;
	char text[200];

	memcpy(c.run_id, run_id, 32);
	if (reruns == 0)
		reruns = LAB_DEFAULT_CONFIRM_RERUNS; /* asked for */
	if (s_load_run(j, &c) < 0 || !c.run ||
	    rerun_regressions(j->store_db, run_id, false, s_on_path, &c) < 0 ||
	    (asked && !c.n_paths &&
	     rerun_regressions(j->store_db, run_id, true, s_on_path, &c) < 0)) {
		s_set(j, row, C_NONE, 0, &c, "the run is not in the results");
		goto out;
	}
	if (!c.n_paths) {
		s_set(j, row, C_NONE, 0, &c, "no regression to confirm");
		goto out;
	}
	store_latest_of_kind(j->ctx.store, RECORD_ADVERT, s_on_advert, &c);
	n = reruns + (c.n_others ? 1 : 0);
	if (s_started_today(j) + n > j->ctx.cfg->confirm_per_day) {
		snprintf(text, sizeof(text), "refused: over policy.confirm."
			 "per_day (%d re-run requests a day)",
			 j->ctx.cfg->confirm_per_day);
		log_warn("confirm %s/%s: %s", c.run->run.lab, c.run->run.board,
			 text);
		s_set(j, row, C_NONE, 0, &c, text);
		goto out;
	}
	/* WAITING before the requests go out: the lab decides on them (and
	 * may finish them) inside submit */
	s_set(j, row, C_WAITING, n, &c, "");
	n = s_submit_all(j, &c, reruns);
	if (n < 0) {
		snprintf(text, sizeof(text), "a re-run request was refused: %s",
			 wire_strerror(n));
		s_set(j, row, C_NONE, 0, &c, text);
		goto out;
	}
	log_info("confirm %s/%s: %zu tests, %d re-run requests (%zu other"
		 " boards)", c.run->run.lab, c.run->run.board, c.n_paths, n,
		 c.n_others);
out:
	s_cf_free(&c);
}

int confirm_ask(jobs_t *j, const uint8_t *run_id, bool asked)
{
	sqlite3_stmt *st = jobs_prep(j, "INSERT INTO confirms(run, asked,"
				     " state, created_ms) VALUES(?1, ?2, ?3,"
				     " ?4)");
	int rc;

	if (!st)
		return -EIO;
	sqlite3_bind_blob(st, 1, run_id, 32, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, asked);
	sqlite3_bind_int(st, 3, C_TODO);
	sqlite3_bind_int64(st, 4, jobs_wall_ms());
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	return rc;
}

bool confirm_is_rerun(jobs_t *j, const uint8_t *request_id)
{
	sqlite3_stmt *st = jobs_prep(j, "SELECT 1 FROM confirm_reqs WHERE"
				     " req = ?1");
	bool yes;

	if (!st)
		return false;
	sqlite3_bind_blob(st, 1, request_id, 32, SQLITE_STATIC);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

static int s_any(void *arg, const char *path)
{
	(void)path;
	*(bool *)arg = true;
	return 1;
}

void confirm_on_own_run(jobs_t *j, const record_t *run)
{
	const record_run_t *r = &run->run;
	bool regressed = false;

	if (j->ctx.cfg->confirm_reruns <= 0 || !j->ctx.submit_request ||
	    (r->status != PROTO_FAIL && r->status != PROTO_ERROR) ||
	    (r->has_request && confirm_is_rerun(j, r->request_id)))
		return;
	/* only a regression is worth the re-runs: most failures are old */
	if (rerun_regressions(j->store_db, run->head.id, false, s_any,
			      &regressed) < 0 || !regressed)
		return;
	if (confirm_ask(j, run->head.id, false) < 0)
		log_warn("confirm: cannot note the run in jobs.db");
}

/* ---- waiting for the re-runs, then the verdicts ---- */

typedef struct {
	int64_t row, started_ms;
	uint8_t run_id[32];
	char *lab, *board, *paths;
	bool asked;
} s_row_t;

static void s_rows_free(s_row_t *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(rows[i].lab), free(rows[i].board), free(rows[i].paths);
	free(rows);
}

static char *s_col(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return xstrdup(t ? (const char *)t : "");
}

/* Up to max rows in state, oldest first (read before any is changed). */
static size_t s_rows(jobs_t *j, int state, size_t max, s_row_t **ret)
{
	sqlite3_stmt *st = jobs_prep(j, "SELECT id, run, asked, lab, board,"
				     " paths, started_ms FROM confirms WHERE"
				     " state = ?1 ORDER BY id LIMIT ?2");
	s_row_t *rows = NULL;
	size_t n = 0;

	*ret = NULL;
	if (!st)
		return 0;
	sqlite3_bind_int(st, 1, state);
	sqlite3_bind_int64(st, 2, (int64_t)max);
	while (sqlite3_step(st) == SQLITE_ROW) {
		s_row_t *r;

		if (sqlite3_column_bytes(st, 1) != 32)
			continue;
		rows = xreallocarray(rows, n + 1, sizeof(*rows));
		r = &rows[n++];
		r->row = sqlite3_column_int64(st, 0);
		memcpy(r->run_id, sqlite3_column_blob(st, 1), 32);
		r->asked = sqlite3_column_int(st, 2) != 0;
		r->lab = s_col(st, 3);
		r->board = s_col(st, 4);
		r->paths = s_col(st, 5);
		r->started_ms = sqlite3_column_int64(st, 6);
	}
	sqlite3_finalize(st);
	*ret = rows;
	return n;
}

static size_t s_reqs(jobs_t *j, int64_t row, uint8_t (**ret)[32])
{
	sqlite3_stmt *st = jobs_prep(j, "SELECT req FROM confirm_reqs WHERE"
				     " confirm = ?1");
	uint8_t (*ids)[32] = NULL;
	size_t n = 0;

	*ret = NULL;
	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, row);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_bytes(st, 0) != 32)
			continue;
		ids = xreallocarray(ids, n + 1, sizeof(*ids));
		memcpy(ids[n++], sqlite3_column_blob(st, 0), 32);
	}
	sqlite3_finalize(st);
	*ret = ids;
	return n;
}

/* Every lab answered (or, silent_ok, the silent ones are let go) and
 * every accepted board's job ended, a done one with its run. */
static bool s_settled(jobs_t *j, const uint8_t *id, bool silent_ok)
{
	reqview_t v = { 0 };
	bool done = reqview_collect(j->store_db, id, &v) == 0 &&
		    reqview_done(&v, silent_ok);

	for (size_t i = 0; done && i < v.n; i++)
		for (size_t k = 0; k < v.labs[i].n_boards; k++)
			if (v.labs[i].boards[k].state == JOB_DONE &&
			    !v.labs[i].boards[k].has_run)
				done = false;
	reqview_free(&v);
	return done;
}

static int s_publish(jobs_t *j, const s_row_t *r, const char *path,
		     const rerun_tally_t *t, int verdict)
{
	record_t rec = { .head.kind = RECORD_VERDICT };
	char text[200];

	rec.verdict = (record_verdict_t){
		.lab = r->lab, .board = r->board, .path = path,
		.verdict = verdict, .runs = t->runs, .passes = t->passes,
		.other_runs = t->other_runs, .other_passes = t->other_passes,
		.text = text,
	};
	memcpy(rec.verdict.run_id, r->run_id, 32);
	snprintf(text, sizeof(text), "%s: %u of %u re-runs on %s passed, %u"
		 " of %u on other boards of its arch",
		 verdict_kind_name(verdict), t->passes, t->runs, r->board,
		 t->other_passes, t->other_runs);
	log_info("verdict %s/%s %.80s: %s", r->lab, r->board, path, text);
	return j->ctx.append_record(j->ctx.arg, &rec);
}

/* The verdict of every test of a settled confirmation. */
static void s_judge(jobs_t *j, const s_row_t *r, uint8_t (*ids)[32],
		    size_t n_ids)
{
	char *save = NULL, *paths = xstrdup(r->paths), text[120];
	int n = 0, bad = 0;

	for (char *p = strtok_r(paths, "\n", &save); p;
	     p = strtok_r(NULL, "\n", &save)) {
		rerun_tally_t t = { 0 };
		int v;

		if (rerun_tally(j->store_db, (const uint8_t(*)[32])ids, n_ids,
				r->lab, r->board, p, &t) < 0 ||
		    !(v = rerun_judge(&t)))
			continue;
		if (s_publish(j, r, p, &t, v) < 0)
			bad++;
		else
			n++;
	}
	free(paths);
	snprintf(text, sizeof(text), "%d verdicts%s", n,
		 bad ? ", some could not be published" : "");
	s_set_done(j, r->row, text);
}

static void s_check(jobs_t *j, const s_row_t *r)
{
	int64_t age = jobs_wall_ms() - r->started_ms;
	uint8_t (*ids)[32] = NULL;
	size_t n = s_reqs(j, r->row, &ids);
	bool settled = true;

	for (size_t i = 0; i < n && settled; i++)
		settled = s_settled(j, ids[i], age > CONFIRM_SILENT_MS);
	if (settled || age > CONFIRM_MAX_MS)
		s_judge(j, r, ids, n);
	free(ids);
}

void confirm_tick(jobs_t *j)
{
	int64_t now = jobs_now();
	s_row_t *rows;
	size_t n;

	if (!j->store_db || !j->ctx.submit_request ||
	    now < j->confirm_next_ms)
		return;
	j->confirm_next_ms = now + CONFIRM_TICK_MS;
	n = s_rows(j, C_TODO, 4, &rows);
	for (size_t i = 0; i < n; i++)
		s_start(j, rows[i].row, rows[i].run_id, rows[i].asked);
	s_rows_free(rows, n);
	n = s_rows(j, C_WAITING, 64, &rows);
	for (size_t i = 0; i < n; i++)
		s_check(j, &rows[i]);
	s_rows_free(rows, n);
}

/* ---- control commands ---- */

static const char *s_state_name(int state)
{
	static const char *const names[] = { "waiting to start",
					     "re-running", "done", "none" };

	return state >= 0 && state <= C_NONE ? names[state] : "?";
}

static int s_on_found(void *arg, uint64_t seq, const uint8_t *bytes,
		      size_t len)
{
	uint8_t *id = arg;

	(void)seq;
	proto_id(bytes, len, id);
	return 0;
}

/* The failed runs of request id (from the index), each asked for. */
static int s_ask_request(jobs_t *j, const uint8_t *id, buf_t *out)
{
	sqlite3_stmt *st;
	int n = 0;

	if (sqlite3_prepare_v2(j->store_db, "SELECT rec, lab, board FROM"
			       " res_runs WHERE request = ?1 AND status IN"
			       " (?2, ?3) ORDER BY lab, board, rec", -1, &st,
			       NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_blob(st, 1, id, 32, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, PROTO_FAIL);
	sqlite3_bind_int(st, 3, PROTO_ERROR);
	while (sqlite3_step(st) == SQLITE_ROW) {
		char hex[65];

		if (sqlite3_column_bytes(st, 0) != 32 ||
		    confirm_ask(j, sqlite3_column_blob(st, 0), true) < 0)
			continue;
		proto_hex(sqlite3_column_blob(st, 0), 32, hex);
		buf_printf(out, "confirming run %.12s on %s/%s\n", hex,
			   sqlite3_column_text(st, 1),
			   sqlite3_column_text(st, 2));
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

static void s_ctl_confirm(jobs_t *j, const char *prefix, buf_t *out,
			  bool *failed)
{
	uint8_t id[32];
	char hex[65];
	int rc;

	*failed = true;
	if (!j->store_db || !j->ctx.submit_request) {
		buf_puts(out, "confirm: this node cannot start re-runs");
		return;
	}
	rc = store_db_find_record(j->store_db, RECORD_RUN, prefix, s_on_found,
				  id);
	if (rc == 0) {
		rc = confirm_ask(j, id, true);
		proto_hex(id, 32, hex);
		if (rc == 0)
			buf_printf(out, "confirming run %.12s\n", hex);
	} else if (rc == -ENOENT &&
		   store_db_find_request(j->store_db, prefix, id) == 0) {
		rc = s_ask_request(j, id, out);
		if (rc == 0) {
			buf_printf(out, "confirm: request %s has no failed"
				   " run", prefix);
			return;
		}
	}
	if (rc == -ENOENT)
		buf_printf(out, "confirm: no run or request %s here", prefix);
	else if (rc == -EINVAL)
		buf_printf(out, "confirm: %s names several runs", prefix);
	else if (rc < 0)
		buf_puts(out, "confirm: cannot read the store or jobs.db");
	*failed = rc < 0;
}

static void s_ctl_list(jobs_t *j, bool json, buf_t *out)
{
	sqlite3_stmt *st = jobs_prep(j, "SELECT run, state, lab, board, paths,"
				     " n_reqs, text FROM confirms ORDER BY"
				     " id");
	json_t js;

	if (!st)
		return;
	if (json) {
		json_init(&js, out, 0);
		json_arr_open(&js);
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		char hex[65] = "";
		const char *t[4];

		if (sqlite3_column_bytes(st, 0) == 32)
			proto_hex(sqlite3_column_blob(st, 0), 32, hex);
		for (int i = 0; i < 4; i++) {
			t[i] = (const char *)sqlite3_column_text(
				st, i == 3 ? 6 : i + 2);
			t[i] = t[i] ? t[i] : "";
		}
		if (!json) {
			buf_printf(out, "run %.12s %s/%s: %s, %d requests%s%s\n",
				   hex, t[0], t[1],
				   s_state_name(sqlite3_column_int(st, 1)),
				   sqlite3_column_int(st, 5), t[3][0] ? ": " : "",
				   t[3]);
			continue;
		}
		json_obj_open(&js);
		json_key_str(&js, "run", hex);
		json_key_str(&js, "state",
			     s_state_name(sqlite3_column_int(st, 1)));
		json_key_str(&js, "lab", t[0]);
		json_key_str(&js, "board", t[1]);
		json_key_str(&js, "tests", t[2]);
		json_key_int(&js, "requests", sqlite3_column_int(st, 5));
		json_key_str(&js, "text", t[3]);
		json_obj_close(&js);
	}
	sqlite3_finalize(st);
	if (json) {
		json_arr_close(&js);
		json_finish(&js);
	}
}

bool confirm_ctl(jobs_t *j, const char *name, const uint8_t *const *args,
		 const size_t *lens, size_t n_args, bool json, buf_t *out,
		 bool *ret_failed)
{
	char prefix[65];

	if (!strcmp(name, "confirms") && n_args == 0) {
		s_ctl_list(j, json, out);
		return true;
	}
	if (strcmp(name, "confirm") != 0 || n_args != 1)
		return false;
	if (lens[0] < 6 || lens[0] > 64) {
		*ret_failed = true;
		buf_puts(out, "confirm: give a run or request id (6 to 64 hex"
			 " digits)");
		return true;
	}
	memcpy(prefix, args[0], lens[0]);
	prefix[lens[0]] = '\0';
	for (size_t i = 0; i < lens[0]; i++) {
		if (!strchr("0123456789abcdefABCDEF", prefix[i])) {
			*ret_failed = true;
			buf_puts(out, "confirm: a run or request id is hex");
			return true;
		}
	}
	s_ctl_confirm(j, prefix, out, ret_failed);
	return true;
}
