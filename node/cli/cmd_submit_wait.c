/*
 * cmd_submit_wait: a request as the network answers it (the view of
 * node/results/reqview: which labs accepted or declined it, per accepted
 * board its latest event and its run record; with why this node's own
 * lab kept silent, from its jobs.db). `status` shows it once; `submit
 * --wait` follows it (a redrawn table on a terminal, one line per change
 * otherwise) until every board finished, then prints the result matrix
 * of the results index.
 */
#include "node/cli/jobs_cli.h"

#include "node/jobs/jobs.h"
#include "node/results/query.h"
#include "node/results/reqview.h"
#include "node/results/results.h"
#include "node/store/store.h"
#include "node/store/wire.h"
#include "proto/buf.h"
#include "proto/mem.h"
#include "proto/record.h"
#include "proto/request.h"
#include "proto/types.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t s_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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

static void s_lines(reqview_t *v, s_printed_t *pr, FILE *f)
{
	for (size_t i = 0; i < v->n; i++) {
		reqview_lab_t *l = &v->labs[i];

		if (l->answer == 2 && !l->printed_answer)
			fprintf(f, "%s: declined: %s\n", l->name, l->decline);
		if (l->answer == 1 && !l->printed_answer) {
			fprintf(f, "%s: accepted on %zu board(s)\n", l->name,
				l->n_boards);
			for (size_t k = 0; k < l->n_refused; k++)
				fprintf(f, "%s/%s: refused: %s\n", l->name,
					l->refused[k].name,
					l->refused[k].text);
		}
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
static void s_carry(const reqview_t *old, reqview_t *v)
{
	for (size_t i = 0; i < old->n; i++) {
		reqview_lab_t *l = reqview_lab(v, old->labs[i].author);

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

static int s_verdict(const reqview_t *v)
{
	size_t boards = 0;

	for (size_t i = 0; i < v->n; i++) {
		for (size_t k = 0; k < v->labs[i].n_boards; k++) {
			const reqview_board_t *b = &v->labs[i].boards[k];

			boards++;
			if (!b->has_run || b->status != PROTO_PASS)
				return CLI_EXIT_FAIL;
		}
	}
	return boards ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

/* When each lab last said something new about the request, by our own
 * clock (a lab's stamps are its word, and its clock may be off). */
typedef struct {
	uint8_t author[32];
	unsigned n_said;
	int64_t at_ms;
} s_heard_t;

typedef struct {
	s_heard_t *h;
	size_t n;
} s_ears_t;

static s_heard_t *s_heard(s_ears_t *e, const uint8_t *author)
{
	for (size_t i = 0; i < e->n; i++)
		if (memcmp(e->h[i].author, author, 32) == 0)
			return &e->h[i];
	return NULL;
}

static void s_listen(s_ears_t *e, const reqview_t *v, int64_t now)
{
	for (size_t i = 0; i < v->n; i++) {
		const reqview_lab_t *l = &v->labs[i];
		s_heard_t *h = s_heard(e, l->author);

		if (!h) {
			e->h = xreallocarray(e->h, e->n + 1, sizeof(*e->h));
			h = &e->h[e->n++];
			memcpy(h->author, l->author, 32);
			h->n_said = l->n_said;
			h->at_ms = now;
		} else if (h->n_said != l->n_said) {
			h->n_said = l->n_said;
			h->at_ms = now;
		}
	}
}

/* Labs that accepted, and their boards. */
static size_t s_accepted(const reqview_t *v, size_t *ret_boards)
{
	size_t labs = 0, boards = 0;

	for (size_t i = 0; i < v->n; i++) {
		labs += v->labs[i].answer == REQVIEW_ACCEPTED;
		boards += v->labs[i].n_boards;
	}
	*ret_boards = boards;
	return labs;
}

/*
 * Whether to stop following: every lab the request names answered (or,
 * past the answer grace, is let go) and every lab that accepted finished
 * or said nothing for silence_ms. A request that names no lab is followed
 * the accept window at least (no answer says that all came), and given
 * up past the answer grace when no lab accepted. The labs let go are
 * named in gone.
 */
static bool s_settled(const reqview_t *v, s_ears_t *e, int64_t now,
		      int64_t start, int64_t silence_ms, buf_t *gone)
{
	size_t answered = 0, boards;

	buf_reset(gone);
	if (!v->names && now - start < SUBMIT_ACCEPT_WINDOW_MS)
		return false;
	for (size_t i = 0; i < v->n; i++) {
		const reqview_lab_t *l = &v->labs[i];
		const s_heard_t *h = s_heard(e, l->author);
		int64_t quiet = h ? now - h->at_ms : 0;
		bool final = true;

		if (!l->answer) {
			if (now - start < SUBMIT_ANSWER_GRACE_MS)
				return false;
			buf_printf(gone, "%s%s (never answered)", gone->len ?
				   ", " : "", l->name);
			continue;
		}
		answered++;
		for (size_t k = 0; k < l->n_boards; k++)
			final &= reqview_final(&l->boards[k]);
		if (final)
			continue;
		if (silence_ms <= 0 || quiet < silence_ms)
			return false;
		buf_printf(gone, "%s%s (accepted, then silent for %lld s)",
			   gone->len ? ", " : "", l->name,
			   (long long)(quiet / 1000));
	}
	if (!v->names && !s_accepted(v, &boards))
		return now - start >= SUBMIT_ANSWER_GRACE_MS;
	return answered > 0;
}

/* Done: every named lab answered, every accepted board finished, and for
 * a request that names no lab, the accept window is over. */
static bool s_done(const reqview_t *v, int64_t now, int64_t start)
{
	if (!v->names && now - start < SUBMIT_ACCEPT_WINDOW_MS)
		return false;
	return reqview_done(v, false);
}

/* How it ended: how many labs took it; when none did, why none may have. */
static void s_summary(const reqview_t *v, FILE *f)
{
	size_t boards, labs = s_accepted(v, &boards);

	if (labs)
		fprintf(f, "accepted by %zu lab%s, on %zu board%s\n", labs,
			labs == 1 ? "" : "s", boards, boards == 1 ? "" : "s");
	else if (!v->names)
		fprintf(f, "no lab accepted it (a lab whose boards cannot"
			" serve a request says nothing; --lab or --board get"
			" a named lab's reason)\n");
	else
		fprintf(f, "no lab accepted it\n");
	fflush(f);
}

static void s_view(const cli_t *cli, const uint8_t id[32], sqlite3 *db,
		   reqview_t *v)
{
	reqview_t fresh = { 0 };

	reqview_collect(db, id, &fresh);
	jobs_silent_view(cli->home, id, &fresh);
	s_carry(v, &fresh);
	reqview_free(v);
	*v = fresh;
}

static void s_show(const cli_t *cli, reqview_t *v, s_printed_t *printed,
		   bool tty)
{
	if (tty) {
		printf("\033[H\033[J");
		reqview_table(v, stdout);
		fflush(stdout);
	} else if (!cli->json) {
		s_lines(v, printed, stdout);
	}
}

static int s_end(const cli_t *cli, const uint8_t id[32], bool follow,
		 bool let_go, reqview_t *v)
{
	int rc;

	if (cli->json)
		reqview_json(v, id, stdout);
	else if (!follow)
		reqview_table(v, stdout);
	if (follow && !let_go && !reqview_done(v, true))
		fprintf(stderr, "labmesh submit: gave up waiting; 'labmesh"
			" status' shows where it stands\n");
	if (follow && !cli->json)
		s_summary(v, stdout);
	if (follow && !cli->json)
		s_matrix(cli->home, id, false);
	rc = follow ? s_verdict(v) : CLI_EXIT_OK;
	if (follow && !reqview_done(v, true))
		rc = CLI_EXIT_FAIL;
	return rc;
}

int submit_follow(const cli_t *cli, const uint8_t id[32], bool follow,
		  int64_t timeout_ms, int64_t silence_ms)
{
	s_ears_t ears = { 0 };
	buf_t gone;
	bool let_go = false;
	int64_t start = s_now_ms(), until = start + timeout_ms;
	bool tty = isatty(STDOUT_FILENO) && !cli->json;
	reqview_t v = { 0 };
	s_printed_t printed = { 0 };
	sqlite3 *db = NULL;
	int rc;

	if (store_open_readonly(cli->home, &db) < 0)
		return cli_fail(follow ? "submit" : "status", "cannot read the"
				" store in %s", cli->home);
	buf_init(&gone, 4096);
	for (;;) {
		s_view(cli, id, db, &v);
		if (!follow)
			break;
		s_show(cli, &v, &printed, tty);
		s_listen(&ears, &v, s_now_ms());
		if (s_done(&v, s_now_ms(), start) || s_now_ms() >= until)
			break;
		if (s_settled(&v, &ears, s_now_ms(), start, silence_ms,
			      &gone)) {
			if (gone.len)
				fprintf(stderr, "labmesh submit: stopped waiting"
					" for %s (--silence %lld s)\n",
					buf_str(&gone),
					(long long)(silence_ms / 1000));
			let_go = true;
			break;
		}
		usleep(SUBMIT_POLL_MS * 1000);
	}
	sqlite3_close(db);
	free(printed.ids);
	free(ears.h);
	buf_free(&gone);
	rc = s_end(cli, id, follow, let_go, &v);
	reqview_free(&v);
	return rc;
}

/* ---- the latest requests ---- */

#define SUBMIT_LIST_MAX 20 /* requests `status` lists */

typedef struct {
	sqlite3 *db;
	const uint8_t *mine;
	const cli_t *cli;
	size_t n;
} s_list_t;

/* "2026-01-31 12:00" (UTC), as the other lists show times. */
static void s_when(int64_t ms, char out[64])
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(out, 64, "%04d-%02d-%02d %02d:%02d", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min);
}

static void s_kernel_text(const request_t *r, char *out, size_t n)
{
	if (r->kernel.type == REQUEST_KERNEL_GIT)
		snprintf(out, n, "git %.12s", r->kernel.commit);
	else if (r->kernel.type == REQUEST_KERNEL_ARTIFACT)
		snprintf(out, n, "image %.40s", *r->kernel.describe ?
			 r->kernel.describe : "-");
	else
		snprintf(out, n, "none (as the boards run)");
}

/* "finished 3/3", "running 1/3", "waiting": the view's boards. */
static void s_state_text(const reqview_t *v, char *out, size_t n)
{
	size_t boards = 0, done = 0, declined = 0;

	for (size_t i = 0; i < v->n; i++) {
		declined += v->labs[i].answer == REQVIEW_DECLINED;
		for (size_t k = 0; k < v->labs[i].n_boards; k++) {
			boards++;
			done += reqview_final(&v->labs[i].boards[k]);
		}
	}
	if (!boards)
		snprintf(out, n, declined ? "declined by %zu lab%s" : "waiting",
			 declined, declined == 1 ? "" : "s");
	else
		snprintf(out, n, "%s %zu/%zu", done == boards ? "finished" :
			 "running", done, boards);
}

static int s_list_one(void *arg, const uint8_t *id, const uint8_t *bytes,
		      size_t len, int64_t expires_ms)
{
	s_list_t *l = arg;
	request_t *r = NULL;
	reqview_t v = { 0 };
	char hex[65], when[64], kern[64], state[64], suites[80] = "";

	(void)expires_ms;
	if (wire_request_decode(bytes, len, &r) < 0)
		return 0;
	if (l->mine && memcmp(r->submitter, l->mine, 32)) {
		request_destroy(&r);
		return 0;
	}
	for (size_t i = 0; i < r->n_suites; i++)
		snprintf(suites + strlen(suites), sizeof(suites) - strlen(suites),
			 "%s%s", i ? "," : "", r->suites[i]);
	proto_hex(id, 32, hex);
	s_when((int64_t)r->created_ms, when);
	s_kernel_text(r, kern, sizeof(kern));
	if (reqview_collect(l->db, id, &v) == 0) {
		jobs_silent_view(l->cli->home, id, &v);
		s_state_text(&v, state, sizeof(state));
	} else {
		snprintf(state, sizeof(state), "?");
	}
	reqview_free(&v);
	if (l->n++ == 0)
		printf("%-12s  %-16s  %-16s  %-28s  %s\n", "REQUEST", "SUBMITTED",
		       "STATE", "KERNEL", "SUITES");
	printf("%.12s  %-16s  %-16s  %-28s  %s\n", hex, when, state, kern,
	       suites);
	request_destroy(&r);
	return l->n >= SUBMIT_LIST_MAX;
}

int submit_list_requests(const cli_t *cli, const uint8_t *mine)
{
	s_list_t l = { .mine = mine, .cli = cli };
	int rc;

	if (store_open_readonly(cli->home, &l.db) < 0) {
		fprintf(stderr, "labmesh status: no store in %s yet: nothing"
			" was submitted through it\n", cli->home);
		return CLI_EXIT_FAIL;
	}
	rc = store_db_requests(l.db, mine ? 1000 : SUBMIT_LIST_MAX,
			       s_list_one, &l);
	sqlite3_close(l.db);
	if (rc < 0)
		return cli_fail("status", "cannot read the store: %s",
				strerror(-rc));
	if (!l.n)
		printf("no request%s in %s\n", mine ? " of your key" : "",
		       cli->home);
	else
		printf("(the latest %zu%s; 'labmesh status ID' for one, by 6 or"
		       " more hex digits)\n", l.n, mine ? " of your key" : "");
	return CLI_EXIT_OK;
}

int submit_request_done(const char *home, const uint8_t id[32],
			bool *ret_done, size_t *ret_boards)
{
	reqview_t v = { 0 };
	sqlite3 *db;
	size_t boards = 0;
	int rc;

	if (store_open_readonly(home, &db) < 0)
		return -ENOENT;
	rc = reqview_collect(db, id, &v);
	sqlite3_close(db);
	if (rc == 0) {
		for (size_t i = 0; i < v.n; i++)
			boards += v.labs[i].n_boards;
		*ret_done = boards && reqview_done(&v, true);
		*ret_boards = boards;
	}
	reqview_free(&v);
	return rc;
}
