/*
 * cmd_submit_wait: a request as the network answers it, read from the
 * local store: which labs accepted or declined it (every lab that has an
 * advert is expected to answer), and per accepted board its latest event
 * and its run record. `status` shows it once; `submit --wait` follows it
 * (a redrawn table on a terminal, one line per change otherwise) until
 * every board finished, then prints the result matrix of the results
 * index.
 */
#include "node/cli/jobs_cli.h"

#include "node/results/query.h"
#include "node/results/results.h"
#include "proto/json.h"
#include "proto/mem.h"
#include "proto/record.h"
#include "proto/request.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WAIT_MAX_LABS 1024
#define WAIT_MAX_BOARDS 256

typedef struct {
	char name[PROTO_MAX_NAME + 1];
	int state; /* enum job_state; 0: nothing yet */
	unsigned idx, count;
	char suite[PROTO_MAX_NAME + 1];
	char text[256];
	bool has_run;
	int status; /* enum proto_status of the run */
	char run[65];
} s_board_t;

typedef struct {
	uint8_t author[32];
	char name[PROTO_MAX_NAME + 1];
	int answer; /* 0 none, 1 accepted, 2 declined */
	char decline[512];
	s_board_t *boards;
	size_t n_boards;
	bool printed_answer;
} s_lab_t;

typedef struct {
	uint8_t id[32];
	char line[600];
} s_event_t;

typedef struct {
	s_lab_t *labs;
	size_t n;
	s_event_t *events; /* every event of the request, store order */
	size_t n_events;
} s_view_t;

#define WAIT_MAX_EVENTS 100000

static int64_t s_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static sqlite3 *s_open(const char *home)
{
	char *path = xasprintf("%s/store.db", home);
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		db = NULL;
	}
	free(path);
	if (db)
		sqlite3_busy_timeout(db, 2000);
	return db;
}

int submit_find_request(const char *home, const char *prefix,
			uint8_t ret_id[32])
{
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	char like[80];
	int n = 0;

	if (strlen(prefix) < 8 || strlen(prefix) > 64 ||
	    strspn(prefix, "0123456789abcdefABCDEF") != strlen(prefix))
		return -EINVAL;
	db = s_open(home);
	if (!db)
		return -ENOENT;
	snprintf(like, sizeof(like), "%s%%", prefix);
	if (sqlite3_prepare_v2(db, "SELECT id FROM requests WHERE"
			       " lower(hex(id)) LIKE lower(?)", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, like, -1, SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW)
			if (n++ == 0 && sqlite3_column_bytes(st, 0) == 32)
				memcpy(ret_id, sqlite3_column_blob(st, 0), 32);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n == 1 ? 0 : n == 0 ? -ENOENT : -EINVAL;
}

static s_lab_t *s_lab(s_view_t *v, const uint8_t *author)
{
	for (size_t i = 0; i < v->n; i++)
		if (memcmp(v->labs[i].author, author, 32) == 0)
			return &v->labs[i];
	if (v->n >= WAIT_MAX_LABS)
		return NULL;
	v->labs = xreallocarray(v->labs, v->n + 1, sizeof(*v->labs));
	memset(&v->labs[v->n], 0, sizeof(v->labs[0]));
	memcpy(v->labs[v->n].author, author, 32);
	proto_hex(author, 6, v->labs[v->n].name); /* until an advert names it */
	return &v->labs[v->n++];
}

static s_board_t *s_board(s_lab_t *l, const char *name)
{
	for (size_t i = 0; i < l->n_boards; i++)
		if (strcmp(l->boards[i].name, name) == 0)
			return &l->boards[i];
	if (l->n_boards >= WAIT_MAX_BOARDS)
		return NULL;
	l->boards = xreallocarray(l->boards, l->n_boards + 1,
				  sizeof(*l->boards));
	memset(&l->boards[l->n_boards], 0, sizeof(l->boards[0]));
	snprintf(l->boards[l->n_boards].name, PROTO_MAX_NAME + 1, "%s", name);
	return &l->boards[l->n_boards++];
}

static void s_apply(s_view_t *v, const record_t *r, const uint8_t *req_id)
{
	s_lab_t *l = s_lab(v, r->head.author);
	s_board_t *b;

	if (!l)
		return;
	switch (r->head.kind) {
	case RECORD_ADVERT:
		snprintf(l->name, sizeof(l->name), "%s", r->advert.lab);
		return;
	case RECORD_ACCEPT:
		if (memcmp(r->accept.request_id, req_id, 32) != 0)
			return;
		l->answer = 1;
		for (size_t i = 0; i < r->accept.n_boards; i++)
			s_board(l, r->accept.boards[i]);
		return;
	case RECORD_DECLINE:
		if (memcmp(r->decline.request_id, req_id, 32) != 0)
			return;
		l->answer = 2;
		snprintf(l->decline, sizeof(l->decline), "%s: %s",
			 decline_reason_name(r->decline.reason), r->decline.text);
		return;
	case RECORD_EVENT:
		if (!r->event.has_request ||
		    memcmp(r->event.request_id, req_id, 32) != 0 ||
		    !(b = s_board(l, r->event.board)))
			return;
		if (v->n_events < WAIT_MAX_EVENTS) {
			s_event_t *e;

			v->events = xreallocarray(v->events, v->n_events + 1,
						  sizeof(*v->events));
			e = &v->events[v->n_events++];
			memcpy(e->id, r->head.id, 32);
			if (r->event.state == JOB_RUNNING)
				snprintf(e->line, sizeof(e->line), "%s/%s: %s:"
					 " suite %u of %u: %s", l->name, b->name,
					 job_state_name(r->event.state),
					 r->event.suite_index,
					 r->event.suite_count, r->event.suite);
			else
				snprintf(e->line, sizeof(e->line), "%s/%s: %s:"
					 " %s", l->name, b->name,
					 job_state_name(r->event.state),
					 r->event.text);
		}
		b->state = r->event.state;
		b->idx = r->event.suite_index;
		b->count = r->event.suite_count;
		snprintf(b->suite, sizeof(b->suite), "%s", r->event.suite);
		snprintf(b->text, sizeof(b->text), "%s", r->event.text);
		return;
	case RECORD_RUN:
		if (!r->run.has_request ||
		    memcmp(r->run.request_id, req_id, 32) != 0 ||
		    !(b = s_board(l, r->run.board)))
			return;
		b->has_run = true;
		b->status = r->run.status;
		proto_hex(r->head.id, 32, b->run);
		return;
	}
}

static void s_view_free(s_view_t *v)
{
	free(v->events);
	for (size_t i = 0; i < v->n; i++)
		free(v->labs[i].boards);
	free(v->labs);
	memset(v, 0, sizeof(*v));
}

/* When the request was made (ms), or 0 when the store lacks it. */
static int64_t s_created(sqlite3 *db, const uint8_t *req_id)
{
	sqlite3_stmt *st = NULL;
	request_t *r = NULL;
	int64_t ms = 0;

	if (sqlite3_prepare_v2(db, "SELECT bytes FROM requests WHERE id=?",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_blob(st, 1, req_id, 32, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    request_decode(sqlite3_column_blob(st, 0),
			   (size_t)sqlite3_column_bytes(st, 0), &r) == 0)
		ms = (int64_t)r->created_ms;
	request_destroy(&r);
	sqlite3_finalize(st);
	return ms;
}

/* One reading of the store into v: adverts, then the answers, events and
 * runs stamped at or after since, and, whatever their stamps, those of
 * the authors named in also (concatenated upper-case hex ids). */
static int s_collect_pass(sqlite3 *db, const uint8_t *req_id, s_view_t *v,
			  int64_t since, const char *also)
{
	sqlite3_stmt *st = NULL;

	/* the latest advert of each lab (names it), then the answers */
	if (sqlite3_prepare_v2(db, "SELECT bytes FROM records r WHERE kind=?"
			       " AND seq=(SELECT max(seq) FROM records WHERE"
			       " author=r.author AND kind=?) UNION ALL SELECT"
			       " bytes FROM (SELECT bytes FROM records WHERE"
			       " kind BETWEEN ? AND ? AND (ts_ms >= ? OR"
			       " instr(?, hex(author)) > 0) ORDER BY"
			       " author, seq)", -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int(st, 1, RECORD_ADVERT);
	sqlite3_bind_int(st, 2, RECORD_ADVERT);
	sqlite3_bind_int(st, 3, RECORD_ACCEPT);
	sqlite3_bind_int(st, 4, RECORD_RUN);
	sqlite3_bind_int64(st, 5, since);
	sqlite3_bind_text(st, 6, also, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		record_t *r = NULL;

		if (record_decode(sqlite3_column_blob(st, 0),
				  (size_t)sqlite3_column_bytes(st, 0), &r) == 0)
			s_apply(v, r, req_id);
		record_destroy(&r);
	}
	sqlite3_finalize(st);
	return 0;
}

/* Rebuild the view from the store. Records stamped since the request was
 * made (less an hour) are read first: the common case, and cheap. A lab
 * with no answer among them may only have a clock hours behind the
 * submitter's (timestamps are the signer's word, never an order), so the
 * view is read again with every record of those labs. 0 or -errno. */
static int s_collect(sqlite3 *db, const uint8_t *req_id, s_view_t *v)
{
	int64_t since = s_created(db, req_id);
	char *also;
	size_t n = 0;
	int rc;

	since = since > 3600000 ? since - 3600000 : 0;
	rc = s_collect_pass(db, req_id, v, since, "");
	if (rc < 0 || since == 0)
		return rc;
	also = xcalloc(v->n ? v->n : 1, 64 + 1);
	for (size_t i = 0; i < v->n; i++) {
		if (v->labs[i].answer)
			continue;
		for (size_t k = 0; k < 32; k++)
			snprintf(also + n + 2 * k, 3, "%02X",
				 v->labs[i].author[k]);
		n += 64;
	}
	if (n) {
		s_view_free(v);
		rc = s_collect_pass(db, req_id, v, since, also);
	}
	free(also);
	return rc;
}

static bool s_final(const s_board_t *b)
{
	return b->state == JOB_DONE || b->state == JOB_CANCELLED ||
	       (b->state == JOB_ERROR && strstr(b->text, "queued again") == NULL);
}

/* Every lab answered (or silent_ok: the silent ones are let go) and
 * every accepted board finished. */
static bool s_done_ex(const s_view_t *v, bool silent_ok)
{
	size_t answered = 0;

	for (size_t i = 0; i < v->n; i++) {
		if (!v->labs[i].answer && !silent_ok)
			return false;
		answered += v->labs[i].answer != 0;
		for (size_t k = 0; k < v->labs[i].n_boards; k++)
			if (!s_final(&v->labs[i].boards[k]))
				return false;
	}
	return answered > 0;
}

static bool s_done(const s_view_t *v)
{
	return s_done_ex(v, false);
}

static void s_detail(const s_board_t *b, char *out, size_t n)
{
	if (b->state == JOB_RUNNING)
		snprintf(out, n, "suite %u of %u: %s", b->idx, b->count,
			 b->suite);
	else if (b->has_run && b->state == JOB_DONE)
		snprintf(out, n, "%s, run %.12s", proto_status_name(b->status),
			 b->run);
	else
		snprintf(out, n, "%s", b->text);
}

static void s_table(const s_view_t *v, FILE *f)
{
	fprintf(f, "%-16s  %-16s  %-10s  %s\n", "LAB", "BOARD", "STATE",
		"DETAIL");
	for (size_t i = 0; i < v->n; i++) {
		const s_lab_t *l = &v->labs[i];
		char d[512];

		if (l->answer != 1) {
			fprintf(f, "%-16s  %-16s  %-10s  %s\n", l->name, "-",
				l->answer ? "declined" : "waiting",
				l->answer ? l->decline : "");
			continue;
		}
		for (size_t k = 0; k < l->n_boards; k++) {
			s_detail(&l->boards[k], d, sizeof(d));
			fprintf(f, "%-16s  %-16s  %-10s  %s\n", l->name,
				l->boards[k].name, l->boards[k].state ?
				job_state_name(l->boards[k].state) : "accepted",
				d);
		}
	}
}

static void s_json(const s_view_t *v, const uint8_t *id, FILE *f)
{
	buf_t out;
	json_t j;
	char hex[65];

	buf_init(&out, 0);
	json_init(&j, &out, JSON_PRETTY);
	json_obj_open(&j);
	proto_hex(id, 32, hex);
	json_key_str(&j, "request", hex);
	json_key(&j, "labs");
	json_arr_open(&j);
	for (size_t i = 0; i < v->n; i++) {
		const s_lab_t *l = &v->labs[i];

		json_obj_open(&j);
		json_key_str(&j, "lab", l->name);
		json_key_str(&j, "answer", l->answer == 1 ? "accepted" :
			     l->answer == 2 ? "declined" : "waiting");
		json_key_str(&j, "reason", l->decline);
		json_key(&j, "boards");
		json_arr_open(&j);
		for (size_t k = 0; k < l->n_boards; k++) {
			const s_board_t *b = &l->boards[k];

			json_obj_open(&j);
			json_key_str(&j, "board", b->name);
			json_key_str(&j, "state", b->state ?
				     job_state_name(b->state) : "accepted");
			json_key_str(&j, "text", b->text);
			json_key_uint(&j, "suite_index", b->idx);
			json_key_uint(&j, "suite_count", b->count);
			json_key_str(&j, "status", b->has_run ?
				     proto_status_name(b->status) : NULL);
			json_key_str(&j, "run", b->has_run ? b->run : NULL);
			json_key_bool(&j, "final", s_final(b));
			json_obj_close(&j);
		}
		json_arr_close(&j);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_key_bool(&j, "done", s_done(v));
	json_obj_close(&j);
	json_finish(&j);
	fputs(buf_str(&out), f);
	buf_free(&out);
}

int submit_status_json(sqlite3 *db, const uint8_t id[32], FILE *out)
{
	s_view_t v = { 0 };
	int rc = s_collect(db, id, &v);

	if (rc == 0)
		s_json(&v, id, out);
	s_view_free(&v);
	return rc;
}

/* One line per answer and per event, for logs and pipes. */
typedef struct {
	uint8_t (*ids)[32];
	size_t n;
} s_printed_t;

static bool s_was_printed(const s_printed_t *p, const uint8_t *id)
{
	for (size_t i = 0; i < p->n; i++)
		if (memcmp(p->ids[i], id, 32) == 0)
			return true;
	return false;
}

static void s_lines(s_view_t *v, s_printed_t *pr, FILE *f)
{
	for (size_t i = 0; i < v->n; i++) {
		s_lab_t *l = &v->labs[i];

		if (l->answer == 2 && !l->printed_answer)
			fprintf(f, "%s: declined: %s\n", l->name, l->decline);
		if (l->answer == 1 && !l->printed_answer)
			fprintf(f, "%s: accepted on %zu board(s)\n", l->name,
				l->n_boards);
		l->printed_answer |= l->answer != 0;
	}
	for (size_t i = 0; i < v->n_events; i++) {
		if (s_was_printed(pr, v->events[i].id))
			continue;
		fprintf(f, "%s\n", v->events[i].line);
		pr->ids = xreallocarray(pr->ids, pr->n + 1, sizeof(*pr->ids));
		memcpy(pr->ids[pr->n++], v->events[i].id, 32);
	}
	fflush(f);
}

/* Carry what was printed over to the fresh view. */
static void s_carry(const s_view_t *old, s_view_t *v)
{
	for (size_t i = 0; i < old->n; i++) {
		s_lab_t *l = s_lab(v, old->labs[i].author);

		if (!l)
			continue;
		l->printed_answer = old->labs[i].printed_answer;
	}
}

static void s_matrix(const char *home, const uint8_t *id, bool json)
{
	query_filter_t f = { 0 };
	sqlite3 *db = NULL;
	char hex[65], err[512] = "";

	proto_hex(id, 32, hex);
	f.request = hex;
	if (results_open(home, true, &db) < 0)
		return;
	results_catch_up(db);
	printf("\n");
	fflush(stdout);
	if (query_matrix(db, &f, json, stdout, err, sizeof(err)) < 0)
		query_list(db, &f, json, stdout, err, sizeof(err));
	fflush(stdout);
	sqlite3_close(db);
}

static int s_verdict(const s_view_t *v)
{
	size_t boards = 0;

	for (size_t i = 0; i < v->n; i++) {
		for (size_t k = 0; k < v->labs[i].n_boards; k++) {
			const s_board_t *b = &v->labs[i].boards[k];

			boards++;
			if (!b->has_run || b->status != PROTO_PASS)
				return CLI_EXIT_FAIL;
		}
	}
	return boards ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

int submit_follow(const cli_t *cli, const uint8_t id[32], bool follow,
		  int64_t timeout_ms)
{
	int64_t start = s_now_ms(), until = start + timeout_ms;
	bool tty = isatty(STDOUT_FILENO) && !cli->json;
	s_view_t v = { 0 }, fresh;
	s_printed_t printed = { 0 };
	sqlite3 *db = s_open(cli->home);
	int rc;

	if (!db)
		return cli_fail(follow ? "submit" : "status", "cannot read the"
				" store in %s", cli->home);
	for (;;) {
		memset(&fresh, 0, sizeof(fresh));
		s_collect(db, id, &fresh);
		s_carry(&v, &fresh);
		s_view_free(&v);
		v = fresh;
		if (!follow)
			break;
		if (tty) {
			printf("\033[H\033[J");
			s_table(&v, stdout);
			fflush(stdout);
		} else if (!cli->json) {
			s_lines(&v, &printed, stdout);
		}
		if (s_done(&v) || s_now_ms() >= until)
			break;
		if (s_now_ms() - start >= SUBMIT_ANSWER_GRACE_MS &&
		    s_done_ex(&v, true)) {
			fprintf(stderr, "labmesh submit: some labs never"
				" answered (gone?); not waiting for them\n");
			break;
		}
		usleep(SUBMIT_POLL_MS * 1000);
	}
	sqlite3_close(db);
	free(printed.ids);
	if (cli->json)
		s_json(&v, id, stdout);
	else if (!follow)
		s_table(&v, stdout);
	if (follow && !s_done_ex(&v, true))
		fprintf(stderr, "labmesh submit: gave up waiting; 'labmesh"
			" status' shows where it stands\n");
	if (follow && !cli->json)
		s_matrix(cli->home, id, false);
	rc = follow ? s_verdict(&v) : CLI_EXIT_OK;
	if (follow && !s_done_ex(&v, true))
		rc = CLI_EXIT_FAIL;
	s_view_free(&v);
	return rc;
}
