/*
 * jobs_accept: the lab's decision on each new request (jobs_on_request):
 * expiry, a replayed nonce, a cancel seen first, the lab's policy
 * (submitters, whose git source it builds, the suites of its catalog,
 * the selected labs), the board selector (each board's fitness: arch,
 * tags, per-board submitters, boot method, recipe, offline) and the
 * per-key quota; then the signed `accept` with the jobs queued
 * (jobs_queue, jobs.c), or the `decline` naming the rule when the
 * request names this lab or its boards fit but a limit stopped them;
 * else silence network-wide, the reason kept in jobs.db for the local
 * `status` (s_decline).
 *
 * Tables read or written here (jobs.c holds the schema): nonces (replay),
 * jobs (the quota's count), silent (the reasons not sent).
 */
#include "node/jobs/builds.h"
#include "node/jobs/jobs_int.h"

#include "proto/mem.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ---- the answer --------------------------------------------------------- */

int jobs_decline(jobs_t *j, const uint8_t id[32], int reason,
		 const char *text, const char *what, const char *verb)
{
	record_t t = { .head.kind = RECORD_DECLINE };
	char hex[65];

	memcpy(t.decline.request_id, id, 32);
	t.decline.reason = reason;
	t.decline.text = text;
	wire_hex(id, 32, hex);
	if (j->ctx.log_budget(j->ctx.arg))
		log_info("%s %.12s %s: %s", what, hex, verb, text);
	return j->ctx.append_record(j->ctx.arg, &t);
}

/* Whether req names this lab: in its labs or, when it lists no lab, one
 * of this lab's boards in its boards (the submitter then waits for this
 * lab's answer; see reqview.c, which reads the same from the advert). */
static bool s_named(const lab_config_t *cfg, const request_t *req)
{
	const request_selector_t *s = &req->select;

	for (size_t i = 0; i < s->n_labs; i++)
		if (strcmp(s->labs[i], cfg->name) == 0)
			return true;
	if (s->n_labs)
		return false;
	for (size_t i = 0; i < s->n_boards; i++)
		for (size_t b = 0; b < cfg->n_boards; b++)
			if (strcmp(s->boards[i], cfg->boards[b].name) == 0)
				return true;
	return false;
}

/* Keep why the lab said nothing on req, for the local `status` (the
 * latest JOBS_MAX_SILENT: a flood of requests cannot grow the table). */
static void s_keep_silent(jobs_t *j, const request_t *req, int reason,
			  const char *text)
{
	sqlite3_stmt *st = jobs_prep(j, "INSERT OR REPLACE INTO silent"
				     " VALUES (?, ?, ?, ?, ?, ?)");
	char sql[160];

	if (!st)
		return;
	sqlite3_bind_blob(st, 1, req->id, 32, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, j->ctx.node_id, 32, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, j->ctx.cfg->name, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, reason);
	sqlite3_bind_text(st, 5, text, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, jobs_wall_ms());
	if (sqlite3_step(st) != SQLITE_DONE)
		log_error("jobs.db: %s", sqlite3_errmsg(j->db));
	sqlite3_finalize(st);
	snprintf(sql, sizeof(sql), "DELETE FROM silent WHERE rowid <="
		 " (SELECT max(rowid) FROM silent) - %d;", JOBS_MAX_SILENT);
	jobs_db_exec(j, sql);
}

/*
 * A lab that will not take req signs a decline only when req names it
 * (its submitter waits for that answer) or when its boards fit and a
 * limit stopped them (quota, queue): then its word costs no more than an
 * accept would. Any other lab keeps silent: at N labs, a signed answer
 * from each would bring N records to every node for every request.
 */
static int s_decline(jobs_t *j, const request_t *req, int reason,
		     const char *text)
{
	char hex[65];

	if (s_named(j->ctx.cfg, req) || reason == DECLINE_QUOTA ||
	    reason == DECLINE_BUSY)
		return jobs_decline(j, req->id, reason, text, "request",
				    "declined");
	wire_hex(req->id, 32, hex);
	if (j->ctx.log_budget(j->ctx.arg))
		log_info("request %.12s not taken (no answer sent): %s", hex,
			 text);
	s_keep_silent(j, req, reason, text);
	return 0;
}

/* ---- the decision ------------------------------------------------------- */

static bool s_in(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

static bool s_key_in(const uint8_t *pk, char *const *list, size_t n)
{
	char hex[65];

	wire_hex(pk, 32, hex);
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(list[i], hex) == 0)
			return true;
	return false;
}

static const lab_recipe_t *s_recipe(const lab_config_t *cfg, const char *arch)
{
	for (size_t i = 0; i < cfg->n_recipes; i++)
		if (strcmp(cfg->recipes[i].arch, arch) == 0)
			return &cfg->recipes[i];
	return NULL;
}

/* Why a board is unselected when the request names other boards. */
static const char s_unnamed[] = "not a selected board";

/* Why board b is not one the request's selector names (boards, arch,
 * tags), or NULL when it is. */
static const char *s_board_unselected(const lab_board_t *b,
				      const request_t *req, char *why,
				      size_t wsz)
{
	const request_selector_t *s = &req->select;
	const request_kernel_t *k = &req->kernel;

	if (s->n_boards && !s_in(b->name, s->boards, s->n_boards))
		return s_unnamed;
	if (*s->arch && strcmp(s->arch, b->arch) != 0) {
		snprintf(why, wsz, "arch %s, not %s", b->arch, s->arch);
		return why;
	}
	if (k->type == REQUEST_KERNEL_ARTIFACT && *k->arch &&
	    strcmp(k->arch, b->arch) != 0) {
		snprintf(why, wsz, "arch %s, kernel is %s", b->arch, k->arch);
		return why;
	}
	for (size_t i = 0; i < s->n_tags; i++) {
		bool has = false;

		for (size_t t = 0; t < b->n_tags; t++)
			has |= strcmp(b->tags[t], s->tags[i]) == 0;
		if (!has) {
			snprintf(why, wsz, "no tag %s", s->tags[i]);
			return why;
		}
	}
	return NULL;
}

/* Why this lab will not give board b, which the selector names, to req
 * (its submitters, what it boots, what it builds, maintenance, offline),
 * or NULL when it will. */
static const char *s_board_refused(jobs_t *j, const lab_board_t *b,
				   const request_t *req, char *why, size_t wsz)
{
	const request_kernel_t *k = &req->kernel;

	if (b->submitters &&
	    !s_key_in(req->submitter, b->submitters, b->n_submitters))
		return "policy: boards.submitters of this board does not list"
		       " the submitter";
	if (k->type != REQUEST_KERNEL_NONE && b->boot.method == LAB_BOOT_NONE)
		return "boot method none cannot boot a kernel";
	if (k->type == REQUEST_KERNEL_GIT &&
	    builds_config_check(s_recipe(j->ctx.cfg, b->arch), b->arch,
				k->config, why, wsz) < 0)
		return why;
	if (jobs_maint_active(j, (size_t)(b - j->ctx.cfg->boards))) {
		snprintf(why, wsz, "board in maintenance: %s",
			 j->slots[b - j->ctx.cfg->boards].maint_reason);
		return why;
	}
	if (j->slots[b - j->ctx.cfg->boards].health_down) {
		snprintf(why, wsz, "board offline: %s",
			 j->slots[b - j->ctx.cfg->boards].health_down);
		return why;
	}
	if (j->ctx.board_state(j->ctx.arg, (size_t)(b - j->ctx.cfg->boards)) >=
	    BOARD_OFFLINE)
		return "board offline";
	return NULL;
}

/* Jobs of submitter in the quota window. */
static int64_t s_recent_jobs(jobs_t *j, const uint8_t *submitter)
{
	sqlite3_stmt *st = jobs_prep(j, "SELECT count(*) FROM jobs WHERE"
				  " submitter=? AND created_ms>=?");
	int64_t n = 0;

	if (!st)
		return 0;
	sqlite3_bind_blob(st, 1, submitter, 32, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, jobs_wall_ms() - JOBS_QUOTA_WINDOW_MS);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Record the nonce; false when this submitter used it before. */
static bool s_nonce_fresh(jobs_t *j, const request_t *req)
{
	sqlite3_stmt *st = jobs_prep(j, "INSERT OR IGNORE INTO nonces VALUES"
				  " (?, ?, ?)");
	bool fresh;

	if (!st)
		return false;
	sqlite3_bind_blob(st, 1, req->submitter, 32, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, req->nonce, PROTO_NONCE_LEN, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, jobs_time_ms(req->expires_ms));
	fresh = sqlite3_step(st) == SQLITE_DONE &&
		sqlite3_changes(j->db) == 1;
	sqlite3_finalize(st);
	return fresh;
}

/* Policy and suites: 0 when the lab takes requests like this at all,
 * else a decline reason with text in why. */
static int s_check_policy(jobs_t *j, const request_t *req, char *why,
			  size_t wsz)
{
	const lab_config_t *cfg = j->ctx.cfg;
	char hex[65];

	wire_hex(req->submitter, 32, hex);
	if (!cfg->submitters_any &&
	    !s_key_in(req->submitter, cfg->submitters, cfg->n_submitters)) {
		snprintf(why, wsz, "lab %s's policy.submitters does not list"
			 " submitter %.12s", cfg->name, hex);
		return DECLINE_POLICY;
	}
	if (req->kernel.type == REQUEST_KERNEL_GIT && !cfg->build_any) {
		snprintf(why, wsz, "lab %s's policy.build is none: it builds"
			 " no git source", cfg->name);
		return DECLINE_POLICY;
	}
	for (size_t i = 0; i < req->n_suites; i++) {
		if (!j->catalog || !catalog_find(j->catalog, req->suites[i])) {
			snprintf(why, wsz, "suite %s is not in lab %s's catalog",
				 req->suites[i], cfg->name);
			return DECLINE_UNSUPPORTED;
		}
	}
	if (req->select.n_labs &&
	    !s_in(cfg->name, req->select.labs, req->select.n_labs)) {
		snprintf(why, wsz, "lab %s is not among the selected labs",
			 cfg->name);
		return DECLINE_NO_BOARD;
	}
	return 0;
}

/* A text cut at a byte limit may end inside a UTF-8 character: drop the
 * part (a record's text must be valid UTF-8). */
static void s_cut_utf8(char *s)
{
	size_t n = strlen(s), lead = n, need;

	while (lead > 0 && ((unsigned char)s[lead - 1] & 0xc0) == 0x80)
		lead--;
	if (lead == 0 || (unsigned char)s[lead - 1] < 0xc0)
		return;
	lead--; /* the lead byte of the last character */
	need = (unsigned char)s[lead] >= 0xf0 ? 4 :
	       (unsigned char)s[lead] >= 0xe0 ? 3 : 2;
	if (n - lead < need)
		s[lead] = '\0';
}

/* The boards picked for a request and those it selected but was refused. */
typedef struct {
	const char *chosen[PROTO_MAX_BOARDS];
	size_t n;
	record_refusal_t refused[PROTO_MAX_BOARDS];
	char texts[PROTO_MAX_BOARDS][JOBS_MAX_REFUSAL];
	size_t n_refused;
} s_pick_t;

/* Pick the boards into p; returns how many, or 0 with why. */
static size_t s_select(jobs_t *j, const request_t *req, s_pick_t *p,
		       char *why, size_t wsz)
{
	const lab_config_t *cfg = j->ctx.cfg;
	uint32_t max = req->select.max_per_lab;
	buf_t b;

	buf_init(&b, wsz - 1);
	buf_puts(&b, "no board matches:");
	for (size_t i = 0; i < cfg->n_boards && i < PROTO_MAX_BOARDS; i++) {
		const lab_board_t *bd = &cfg->boards[i];
		char *w = p->texts[p->n_refused];
		const char *no = s_board_unselected(bd, req, w,
						    JOBS_MAX_REFUSAL);
		bool refused = !no;

		if (!no)
			no = s_board_refused(j, bd, req, w, JOBS_MAX_REFUSAL);
		if (no) {
			/* the boards the request did not name are no news
			 * to its submitter, and a lab may have many */
			if (no != s_unnamed)
				buf_printf(&b, " %s (%s);", bd->name, no);
			if (refused) {
				if (no != w)
					snprintf(w, JOBS_MAX_REFUSAL, "%s", no);
				s_cut_utf8(w);
				p->refused[p->n_refused].board = bd->name;
				p->refused[p->n_refused++].text = w;
			}
			continue;
		}
		if (max && p->n >= max)
			break;
		p->chosen[p->n++] = bd->name;
	}
	if (!p->n && b.len == strlen("no board matches:"))
		buf_puts(&b, " the request names none of this lab's boards");
	if (!p->n)
		snprintf(why, wsz, "%s", buf_str(&b));
	buf_free(&b);
	return p->n;
}

static void s_decide(jobs_t *j, const request_t *req, const uint8_t *bytes,
		     size_t len)
{
	s_pick_t *p;
	char why[1024];
	record_t t = { .head.kind = RECORD_ACCEPT };
	int64_t quota = j->ctx.cfg->quota_per_key;
	size_t n;
	int reason;

	if (jobs_time_ms(req->expires_ms) <= jobs_wall_ms()) {
		s_decline(j, req, DECLINE_EXPIRED, "request expired");
		return;
	}
	if (!s_nonce_fresh(j, req)) {
		s_decline(j, req, DECLINE_OTHER, "replayed request: this"
			  " submitter already used its nonce");
		return;
	}
	if (jobs_cancelled(j, req)) {
		s_decline(j, req, DECLINE_OTHER, "cancelled by the"
			  " submitter");
		return;
	}
	reason = s_check_policy(j, req, why, sizeof(why));
	if (reason) {
		s_decline(j, req, reason, why);
		return;
	}
	p = xzalloc(sizeof(*p));
	n = s_select(j, req, p, why, sizeof(why));
	if (!n) {
		s_decline(j, req, DECLINE_NO_BOARD, why);
		goto free_pick;
	}
	if (quota > 0 && s_recent_jobs(j, req->submitter) + (int64_t)n > quota) {
		snprintf(why, sizeof(why), "policy: quota_per_key %" PRId64
			 " jobs a day reached for this submitter", quota);
		s_decline(j, req, DECLINE_QUOTA, why);
		goto free_pick;
	}
	if (jobs_queue(j, req, bytes, len, p->chosen, n) < 0) {
		s_decline(j, req, DECLINE_BUSY, "cannot queue the jobs");
		goto free_pick;
	}
	memcpy(t.accept.request_id, req->id, 32);
	t.accept.boards = p->chosen;
	t.accept.n_boards = n;
	t.accept.refused = p->refused;
	t.accept.n_refused = p->n_refused;
	if (j->ctx.append_record(j->ctx.arg, &t) < 0)
		log_error("accept record failed");
	for (size_t i = 0; i < n; i++)
		jobs_publish_event(j, req->id, p->chosen[i], JOB_QUEUED, 0,
				   (uint32_t)req->n_suites, NULL, "queued");
	log_info("request accepted on %zu board(s), refused on %zu", n,
		 p->n_refused);
	jobs_schedule(j); /* idle boards start at once, not on the tick */
	for (size_t i = 0; i < j->ctx.cfg->n_boards; i++)
		jobs_update_board(j, i);
free_pick:
	free(p);
}

void jobs_on_request(jobs_t *j, const uint8_t *id, const uint8_t *bytes,
		     size_t len)
{
	request_t *req = NULL;
	int rc;

	if (!j)
		return;
	rc = wire_request_open(bytes, len, &req);
	if (rc < 0) {
		log_warn("request does not decode: %s", wire_strerror(rc));
		return;
	}
	s_decide(j, req, bytes, len);
	request_destroy(&req);
}

