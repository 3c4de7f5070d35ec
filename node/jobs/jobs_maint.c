/*
 * jobs_maint: boards the operator takes out of service. A board in
 * maintenance starts no new job (a running one finishes), keeps its
 * reason and end time in jobs.db's maintenance table across restarts,
 * and returns to service by itself when that time has passed. Also the
 * notes the advert carries for each board: its maintenance and who
 * holds it.
 */
#include "node/jobs/jobs_int.h"

#include "proto/log.h"
#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void s_slot_set(jobs_slot_t *s, const char *reason, int64_t until)
{
	free(s->maint_reason);
	s->maint_reason = reason ? xstrdup(reason) : NULL;
	s->maint_until = reason ? until : 0;
}

static ssize_t s_board_index(jobs_t *j, const char *board)
{
	for (size_t i = 0; i < j->ctx.cfg->n_boards; i++)
		if (strcmp(j->ctx.cfg->boards[i].name, board) == 0)
			return (ssize_t)i;
	return -1;
}

void jobs_maint_load(jobs_t *j)
{
	sqlite3_stmt *st = jobs_prep(j, "SELECT board, reason, until_ms FROM"
				     " maintenance");

	if (!st)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *board = (const char *)sqlite3_column_text(st, 0);
		const char *reason = (const char *)sqlite3_column_text(st, 1);
		ssize_t bi = board ? s_board_index(j, board) : -1;

		/* a board no longer in the lab file keeps its row, unused */
		if (bi >= 0)
			s_slot_set(&j->slots[bi], reason ? reason : "",
				   sqlite3_column_int64(st, 2));
	}
	sqlite3_finalize(st);
}

static int s_store(jobs_t *j, const char *board, const char *reason,
		   int64_t until)
{
	sqlite3_stmt *st = jobs_prep(j, reason ?
		"INSERT OR REPLACE INTO maintenance VALUES (?, ?, ?, ?)" :
		"DELETE FROM maintenance WHERE board=?");
	int rc;

	if (!st)
		return -EIO;
	sqlite3_bind_text(st, 1, board, -1, SQLITE_STATIC);
	if (reason) {
		sqlite3_bind_text(st, 2, reason, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, jobs_wall_ms());
		sqlite3_bind_int64(st, 4, until);
	}
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	return rc;
}

bool jobs_maint_active(jobs_t *j, size_t bi)
{
	jobs_slot_t *s = &j->slots[bi];
	const char *board = j->ctx.cfg->boards[bi].name;

	if (!s->maint_reason)
		return false;
	if (!s->maint_until || s->maint_until > jobs_wall_ms())
		return true;
	log_info("board %s: maintenance ended (its time is up), back online",
		 board);
	s_store(j, board, NULL, 0);
	s_slot_set(s, NULL, 0);
	return false;
}

void jobs_maint_tick(jobs_t *j)
{
	int64_t now = jobs_wall_ms();

	for (size_t i = 0; i < j->ctx.cfg->n_boards; i++) {
		const jobs_slot_t *s = &j->slots[i];

		if (s->maint_reason && s->maint_until && s->maint_until <= now &&
		    !jobs_maint_active(j, i))
			jobs_update_board(j, i);
	}
}

char *jobs_maint_note(jobs_t *j, size_t bi)
{
	const jobs_slot_t *s = &j->slots[bi];

	if (!s->maint_reason)
		return NULL;
	return xasprintf("%" PRId64 " %s", s->maint_until, s->maint_reason);
}

char *jobs_busy_note(jobs_t *j, size_t bi)
{
	const jobs_slot_t *s = &j->slots[bi];
	sqlite3_stmt *st;
	char rhex[2 * WIRE_ID_BYTES + 1], shex[2 * WIRE_KEY_BYTES + 1] = "?";
	const char *name;

	if (!s->job || !(st = jobs_prep(j, "SELECT submitter FROM jobs"
					    " WHERE id=?")))
		return NULL;
	sqlite3_bind_int64(st, 1, s->job);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_bytes(st, 0) == WIRE_KEY_BYTES)
		wire_hex(sqlite3_column_blob(st, 0), WIRE_KEY_BYTES, shex);
	sqlite3_finalize(st);
	wire_hex(s->request_id, WIRE_ID_BYTES, rhex);
	name = lab_submitter_name(j->ctx.cfg, shex);
	return xasprintf("%.12s %.12s %" PRId64 "%s%s", rhex, shex, s->since_ms,
			 name ? " " : "", name ? name : "");
}

/* args[i] as a string of at most max bytes without control characters. */
static char *s_arg(const uint8_t *const *args, const size_t *lens, size_t i,
		   size_t max)
{
	if (lens[i] > max || !proto_text_ok((const char *)args[i], lens[i]))
		return NULL;
	for (size_t k = 0; k < lens[i]; k++)
		if (args[i][k] < 0x20 || args[i][k] == 0x7f)
			return NULL;
	return xasprintf("%.*s", (int)lens[i], (const char *)args[i]);
}

/* The board the command names, in this node's lab; else the reason. */
static ssize_t s_ctl_board(jobs_t *j, const char *lab, const char *board,
			   buf_t *out)
{
	ssize_t bi;

	if (strcmp(lab, j->ctx.cfg->name) != 0) {
		buf_printf(out, "lab '%.64s' is not this node's lab (%s): run"
			   " the command on the node of lab '%.64s'", lab,
			   j->ctx.cfg->name, lab);
		return -1;
	}
	bi = s_board_index(j, board);
	if (bi < 0)
		buf_printf(out, "lab %s has no board '%.64s'", lab, board);
	return bi;
}

static int s_set(jobs_t *j, size_t bi, const char *reason, int64_t until)
{
	const char *board = j->ctx.cfg->boards[bi].name;
	int rc = s_store(j, board, reason, until);

	if (rc < 0)
		return rc;
	s_slot_set(&j->slots[bi], reason, until);
	if (reason && until)
		log_info("board %s: maintenance \"%s\" for %" PRId64 " s",
			 board, reason, (until - jobs_wall_ms()) / 1000);
	else if (reason)
		log_info("board %s: maintenance \"%s\"", board, reason);
	else
		log_info("board %s: back online", board);
	jobs_update_board(j, bi);
	if (!reason)
		jobs_schedule(j);
	return 0;
}

bool jobs_maint_ctl(jobs_t *j, const char *name, const uint8_t *const *args,
		    const size_t *lens, size_t n_args, buf_t *out,
		    bool *ret_failed)
{
	bool maint = strcmp(name, "maintenance") == 0;
	char *lab, *board, *reason = NULL, *until = NULL, *end = NULL;
	long long u = 0;
	ssize_t bi = -1;
	bool ok = false;

	if (!(maint && n_args == 4) && !(!strcmp(name, "online") && n_args == 2))
		return false;
	lab = s_arg(args, lens, 0, 64);
	board = s_arg(args, lens, 1, 64);
	if (maint) {
		reason = s_arg(args, lens, 2, JOBS_MAX_REASON);
		until = s_arg(args, lens, 3, 20);
		if (until)
			u = strtoll(until, &end, 10);
	}
	if (!lab || !board || (maint && (!reason || !reason[0] || !until ||
					 *end || u < 0))) {
		buf_printf(out, "%s: bad arguments (a reason is 1 to %d bytes"
			   " of text)", name, JOBS_MAX_REASON);
	} else if ((bi = s_ctl_board(j, lab, board, out)) >= 0) {
		ok = s_set(j, (size_t)bi, reason, (int64_t)u) == 0;
		buf_puts(out, ok ? "ok\n" : "cannot write jobs.db");
	}
	*ret_failed = !ok;
	free(lab);
	free(board);
	free(reason);
	free(until);
	return true;
}
