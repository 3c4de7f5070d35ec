/*
 * bisect_step: one step of `labmesh bisect`: where to test a commit (the
 * boards of the latest adverts), the signed git request for it, and
 * following that request to a verdict read from its run.
 *
 * Layout: boards; submit; the verdict of a run; waiting.
 */
#include "node/cli/bisect_cli.h"

#include "node/net/ctl.h"
#include "node/results/reqview.h"
#include "node/store/store.h"
#include "node/store/wire.h"
#include "proto/mem.h"
#include "proto/record.h"
#include "proto/request.h"
#include "proto/types.h"

#include <errno.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BISECT_POLL_MS 500

static int64_t s_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- boards ---- */

typedef struct {
	char lab[PROTO_MAX_NAME + 1];
	char board[PROTO_MAX_NAME + 1];
} s_spot_t;

/* The boards of the latest advert of each lab that fit --board/--arch,
 * boot a kernel and are not offline or in maintenance. */
typedef struct {
	const bisect_t *b;
	s_spot_t *v;
	size_t n, from; /* from: where the current author's boards start */
	uint8_t author[32];
} s_spots_t;

static int s_spot_advert(void *arg, uint64_t seq, const uint8_t *bytes,
			 size_t len)
{
	s_spots_t *s = arg;
	record_t *r = NULL;

	(void)seq;
	if (wire_record_decode(bytes, len, &r) < 0 ||
	    r->head.kind != RECORD_ADVERT) {
		record_destroy(&r);
		return 0;
	}
	if (s->n && !memcmp(s->author, r->head.author, 32))
		s->n = s->from; /* a newer advert of the same lab */
	else
		s->from = s->n;
	memcpy(s->author, r->head.author, 32);
	for (size_t i = 0; i < r->advert.n_boards; i++) {
		const record_board_t *bd = &r->advert.boards[i];

		if ((s->b->board && strcmp(bd->name, s->b->board)) ||
		    (s->b->arch && strcmp(bd->arch, s->b->arch)) ||
		    !strcmp(bd->boot, "none") || bd->state == BOARD_OFFLINE ||
		    bd->state == BOARD_MAINTENANCE)
			continue;
		s->v = xreallocarray(s->v, s->n + 1, sizeof(*s->v));
		snprintf(s->v[s->n].lab, sizeof(s->v->lab), "%s",
			 r->advert.lab);
		snprintf(s->v[s->n].board, sizeof(s->v->board), "%s",
			 bd->name);
		s->n++;
	}
	record_destroy(&r);
	return 0;
}

static bool s_skip_none(void *arg, const uint8_t *id)
{
	(void)arg, (void)id;
	return false;
}

static int s_spot_cmp(const void *x, const void *y)
{
	const s_spot_t *a = x, *b = y;
	int c = strcmp(a->lab, b->lab);

	return c ? c : strcmp(a->board, b->board);
}

/* How many answers lab (any, if NULL) lost in this bisection (for
 * commit, if given). */
size_t bisect_lost(const bisect_t *b, const char *lab, const char *commit)
{
	size_t n = 0;

	for (size_t i = 0; i < b->n_steps; i++)
		n += b->steps[i].verdict == BISECT_LOST &&
		     (!lab || !strcmp(b->steps[i].lab, lab)) &&
		     (!commit || !strcmp(b->steps[i].commit, commit));
	return n;
}

/* The board where the bad end failed, if any. */
static const bisect_step_state_t *s_failing(const bisect_t *b)
{
	for (size_t i = 0; i < b->n_steps; i++)
		if (b->steps[i].verdict == BISECT_BAD &&
		    !strcmp(b->steps[i].commit, b->bad))
			return &b->steps[i];
	return NULL;
}

/* Where to test commit: the board that showed the failure while its lab
 * answers; else the first board (by lab, board) of a lab that lost
 * nothing in this bisection; else of one that lost nothing of commit. */
static int s_pick(const cli_t *cli, const bisect_t *b, const char *commit,
		  s_spot_t *ret)
{
	const bisect_step_state_t *f = s_failing(b);
	s_spots_t s = { .b = b };
	sqlite3 *db;
	int rc = -ENOENT;

	if (store_open_readonly(cli->home, &db) == 0) {
		store_db_records_of_kind(db, RECORD_ADVERT, s_skip_none,
					 s_spot_advert, &s);
		sqlite3_close(db);
	}
	qsort(s.v, s.n, sizeof(*s.v), s_spot_cmp);
	for (size_t i = 0; f && i < s.n && rc < 0; i++)
		if (!strcmp(s.v[i].lab, f->lab) &&
		    !strcmp(s.v[i].board, f->board) && !bisect_lost(b, f->lab, NULL))
			*ret = s.v[i], rc = 0;
	for (size_t i = 0; i < s.n && rc < 0; i++)
		if (!bisect_lost(b, s.v[i].lab, NULL))
			*ret = s.v[i], rc = 0;
	for (size_t i = 0; i < s.n && rc < 0; i++)
		if (!bisect_lost(b, s.v[i].lab, commit))
			*ret = s.v[i], rc = 0;
	free(s.v);
	return rc;
}

/* ---- one step ---- */

static int s_send(const cli_t *cli, bisect_t *b, const char *commit,
		  const s_spot_t *at, uint8_t ret_id[32])
{
	const char *suites[1] = { b->suite }, *labs[1] = { at->lab };
	const char *boards[1] = { at->board }, *args[1];
	request_t req = { 0 };
	uint8_t *bytes = NULL;
	size_t len = 0;
	char *body = NULL;
	bool ok = false;
	int rc;

	req.kernel = (request_kernel_t){ .type = REQUEST_KERNEL_GIT,
		.url = b->url, .branch = b->branch, .commit = commit,
		.config = b->config ? b->config : "", .describe = "",
		.arch = "" };
	req.created_ms = (uint64_t)s_now_ms();
	req.expires_ms = req.created_ms + (uint64_t)b->step_ms;
	randombytes_buf(req.nonce, sizeof(req.nonce));
	req.priority = 50;
	req.suites = suites;
	req.n_suites = 1;
	req.select = (request_selector_t){ .arch = b->arch ? b->arch : "",
		.labs = labs, .n_labs = 1, .boards = boards, .n_boards = 1,
		.max_per_lab = 1 };
	rc = wire_request_sign(&req, &b->kp, &bytes, &len, ret_id);
	if (rc < 0)
		return cli_fail("bisect", "the request is not valid: %s",
				wire_strerror(rc)), -EINVAL;
	args[0] = (const char *)bytes;
	rc = ctl_call(cli->home, "submit-raw", false, 1, args, &len,
		      CTL_TIMEOUT_MS, &ok, &body);
	free(bytes);
	if (rc < 0 || !ok)
		cli_fail("bisect", "the node did not take the request: %s",
			 rc < 0 ? strerror(-rc) : body ? body : "refused");
	free(body);
	return rc < 0 || !ok ? -EIO : 0;
}

/* Send commit to a board and publish the step as pending. */
int bisect_submit(const cli_t *cli, bisect_t *b, const char *commit)
{
	bisect_step_state_t *st = &b->steps[b->n_steps];
	char hex[65];
	s_spot_t at;

	if (s_pick(cli, b, commit, &at) < 0) {
		snprintf(b->text, sizeof(b->text), "no board%s%s to test"
			 " %.12s on (labmesh boards)", b->board ? " " :
			 b->arch ? " of arch " : "", b->board ? b->board :
			 b->arch ? b->arch : "", commit);
		return -ENOENT;
	}
	memset(st, 0, sizeof(*st));
	if (s_send(cli, b, commit, &at, st->request) < 0)
		return -EIO;
	snprintf(st->commit, sizeof(st->commit), "%s", commit);
	st->verdict = BISECT_PENDING;
	st->has_request = true;
	memcpy(st->lab, at.lab, sizeof(at.lab));
	memcpy(st->board, at.board, sizeof(at.board));
	b->n_steps++;
	if (bisect_publish(cli, b) < 0)
		return -EIO;
	proto_hex(st->request, 32, hex);
	printf("step %zu: testing %.12s on %s/%s (request %.12s)\n",
	       b->n_steps, commit, at.lab, at.board, hex);
	fflush(stdout);
	return 0;
}

/*
 * The verdict of one run for the test: GOOD (it passed), BAD (it
 * failed) or LOST (no verdict: the build failed, the suite or case is
 * missing, or it could not run), with why into why.
 *
 * This is where a step's result is read and the one place to confirm it
 * before the bisection moves on (run it again, on another board, and
 * tell a flaky or board-specific failure from the regression).
 */
static int s_run_verdict(const bisect_t *b, const record_run_t *run,
			 char *why, size_t n)
{
	const run_suite_t *s = NULL;
	int status = 0;

	if (run->kernel.build == BUILD_FAIL || run->kernel.build == BUILD_ERROR)
		return snprintf(why, n, "the build failed"), BISECT_LOST;
	for (size_t i = 0; i < run->n_suites && !s; i++)
		if (!strcmp(run->suites[i].name, b->suite))
			s = &run->suites[i];
	if (!s)
		return snprintf(why, n, "the run has no suite %s", b->suite),
		       BISECT_LOST;
	status = b->path ? 0 : s->status;
	for (size_t i = 0; b->path && i < s->n_cases && !status; i++)
		if (!strcmp(s->cases[i].path, b->path))
			status = s->cases[i].status;
	if (!status)
		return snprintf(why, n, "the run has no case %s", b->path),
		       BISECT_LOST;
	snprintf(why, n, "%s", proto_status_name(status));
	if (status == PROTO_PASS)
		return BISECT_GOOD;
	return status == PROTO_FAIL ? BISECT_BAD : BISECT_LOST;
}

static int s_take_run(void *arg, uint64_t seq, const uint8_t *bytes,
		      size_t len)
{
	(void)seq;
	return wire_record_decode(bytes, len, arg) < 0 ? -EBADMSG : 0;
}

/* The verdict of the run named by hex (from the store db). */
static int s_verdict_of(sqlite3 *db, const bisect_t *b, const char *hex,
			char *why, size_t n)
{
	record_t *r = NULL;
	int v;

	if (store_db_find_record(db, RECORD_RUN, hex, s_take_run, &r) < 0 ||
	    !r)
		return snprintf(why, n, "its run record cannot be read"),
		       BISECT_LOST;
	v = s_run_verdict(b, &r->run, why, n);
	record_destroy(&r);
	return v;
}

/* Follow a pending step through the view of its request. */
typedef struct {
	int64_t start, change;
	unsigned said;
	size_t printed;
	char why[256];
} s_follow_t;

static const reqview_lab_t *s_lab_of(const reqview_t *v, const char *lab)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->labs[i].name, lab))
			return &v->labs[i];
	return NULL;
}

/* One look: a verdict, or 0 to look again. */
static int s_look(sqlite3 *db, const bisect_t *b, bisect_step_state_t *st,
		  s_follow_t *f)
{
	const reqview_lab_t *l;
	reqview_t v = { 0 };
	int verdict = 0;

	if (reqview_collect(db, st->request, &v) < 0)
		return 0;
	for (; f->printed < v.n_events; f->printed++)
		printf("  %s\n", v.events[f->printed].line);
	fflush(stdout);
	l = s_lab_of(&v, st->lab);
	if (l && l->n_said != f->said)
		f->said = l->n_said, f->change = s_now_ms();
	if (l && l->answer == REQVIEW_DECLINED) {
		snprintf(f->why, sizeof(f->why), "declined: %s", l->decline);
		verdict = BISECT_LOST;
	}
	for (size_t i = 0; l && !verdict && i < l->n_boards; i++) {
		const reqview_board_t *bd = &l->boards[i];

		if (strcmp(bd->name, st->board))
			continue;
		if (bd->has_run) {
			proto_unhex(bd->run, st->run, 32);
			st->has_run = true;
			verdict = s_verdict_of(db, b, bd->run, f->why,
					       sizeof(f->why));
		} else if (reqview_final(bd) && bd->state != JOB_DONE) {
			snprintf(f->why, sizeof(f->why), "%s: %s",
				 job_state_name(bd->state), bd->text);
			verdict = BISECT_LOST;
		}
	}
	reqview_free(&v);
	return verdict;
}

/* Wait for the verdict of the last (pending) step: 0 with it set, or
 * -ENOTCONN when the node stopped. */
/* A step given up on is withdrawn (a signed cancel of its request), so
 * a lab that comes back does not spend a board on it. */
static void s_withdraw(const cli_t *cli, const bisect_t *b,
		       const bisect_step_state_t *st)
{
	uint8_t *bytes = NULL, cid[32];
	const char *args[1];
	size_t len = 0;
	char *body = NULL;
	bool ok = false;

	if (wire_cancel_sign(st->request, (uint64_t)s_now_ms(), &b->kp, &bytes,
			     &len, cid) < 0)
		return;
	args[0] = (const char *)bytes;
	if (ctl_call(cli->home, "cancel", false, 1, args, &len,
		     CTL_TIMEOUT_MS, &ok, &body) == 0 && ok)
		printf("  withdrew the step's request\n");
	free(bytes);
	free(body);
}

int bisect_wait(const cli_t *cli, bisect_t *b)
{
	bisect_step_state_t *st = &b->steps[b->n_steps - 1];
	s_follow_t f = { .start = s_now_ms(), .change = s_now_ms() };
	sqlite3 *db = NULL;
	int verdict = 0;

	for (unsigned i = 0; !verdict; i++) {
		int64_t now = s_now_ms();

		if (!db && store_open_readonly(cli->home, &db) < 0)
			db = NULL;
		if (db)
			verdict = s_look(db, b, st, &f);
		if (verdict)
			break;
		if (now - f.start > b->step_ms) {
			snprintf(f.why, sizeof(f.why), "no verdict within"
				 " --step-timeout");
			verdict = BISECT_LOST;
			s_withdraw(cli, b, st);
			break;
		}
		if (now - f.change > b->silence_ms) {
			snprintf(f.why, sizeof(f.why), "%s said nothing for"
				 " %llds", st->lab, (long long)((now - f.change)
								/ 1000));
			verdict = BISECT_LOST;
			s_withdraw(cli, b, st);
			break;
		}
		if (i % 20 == 19 && !ctl_running(cli->home)) {
			sqlite3_close(db);
			return cli_fail("bisect", "the node in %s stopped; start"
					" it and run the same command again to"
					" resume", cli->home), -ENOTCONN;
		}
		usleep(BISECT_POLL_MS * 1000);
	}
	sqlite3_close(db);
	st->verdict = verdict;
	printf("step %zu: %.12s is %s on %s/%s (%s)\n", b->n_steps, st->commit,
	       bisect_verdict_name(verdict), st->lab, st->board, f.why);
	fflush(stdout);
	return 0;
}
