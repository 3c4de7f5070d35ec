/*
 * jobs_reload: the lab file read again while the node runs (SIGHUP or
 * `labmesh reload`). Boards keep their slot by name: a running job, a
 * lease and its session, a maintenance, the board's lock all move with
 * it to its new index. A board that is new gets an empty slot; one that
 * is gone must be idle (no job, no lease), and the jobs still queued for
 * it end in error. Policy, recipes and the rest are read from the new
 * config from then on: jobs_accept.c and jobs_lease.c look at ctx.cfg
 * for every decision.
 *
 * Two steps, as the node swaps its own per-board arrays in between:
 * jobs_reload (check, move the slots, take the new config; nothing is
 * published yet) then jobs_reload_done (the queued jobs of removed
 * boards end, every board's state goes to the advert).
 */
#include "node/jobs/jobs_int.h"

#include "proto/mem.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static ssize_t s_index(const lab_config_t *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->n_boards; i++)
		if (strcmp(cfg->boards[i].name, name) == 0)
			return (ssize_t)i;
	return -1;
}

static bool s_slot_busy(const jobs_slot_t *s)
{
	return s->job || s->pid || s->lease_on || s->sess_pid;
}

/* A removed board must be idle: its job or lease would lose its slot. */
static int s_check(jobs_t *j, const lab_config_t *cfg, char **ret_err)
{
	const lab_config_t *old = j->ctx.cfg;

	for (size_t i = 0; i < old->n_boards; i++) {
		if (s_index(cfg, old->boards[i].name) >= 0 ||
		    !s_slot_busy(&j->slots[i]))
			continue;
		*ret_err = xasprintf("%s: board %s is gone from the file but"
				     " a %s holds it; put it in maintenance"
				     " and reload once it is idle", cfg->path,
				     old->boards[i].name,
				     j->slots[i].lease_on ? "lease" : "job");
		return -EBUSY;
	}
	return 0;
}

static void s_slot_init(jobs_slot_t *s)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->lock_fd = -1;
	s->sess_fd = -1;
	s->health_fd = -1;
	buf_init(&s->line, JOBS_MAX_LINE);
}

static void s_slot_free(jobs_slot_t *s)
{
	buf_free(&s->line);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	free(s->maint_reason);
	free(s->error);
	free(s->run_path);
	jobs_health_stop(s);
}

int jobs_reload(jobs_t *j, const lab_config_t *cfg, char **ret_err)
{
	const lab_config_t *old = j->ctx.cfg;
	jobs_slot_t *slots;
	bool *moved;
	int rc = s_check(j, cfg, ret_err);

	if (rc < 0)
		return rc;
	slots = xcalloc(cfg->n_boards + 1, sizeof(*slots));
	moved = xcalloc(old->n_boards + 1, sizeof(*moved));
	for (size_t i = 0; i < cfg->n_boards; i++) {
		ssize_t o = s_index(old, cfg->boards[i].name);

		if (o >= 0) {
			slots[i] = j->slots[o];
			moved[o] = true;
		} else {
			s_slot_init(&slots[i]);
		}
	}
	for (size_t i = 0; i < old->n_boards; i++)
		if (!moved[i])
			s_slot_free(&j->slots[i]);
	free(moved);
	free(j->slots);
	j->slots = slots;
	j->ctx.cfg = cfg;
	/* a board added back keeps the maintenance it had */
	jobs_maint_load(j);
	return 0;
}

/* The jobs queued for a board no longer in the lab end in error. */
static void s_end_orphans(jobs_t *j)
{
	sqlite3_stmt *st = jobs_prep(j, "SELECT id, request_id, board FROM"
				     " jobs WHERE state=?");
	struct orphan {
		int64_t job;
		uint8_t rid[32];
		char board[LAB_MAX_NAME + 1];
	} *o = NULL;
	size_t n = 0;

	if (!st)
		return;
	sqlite3_bind_int(st, 1, JOB_QUEUED);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *board = (const char *)sqlite3_column_text(st, 2);

		if (!board || s_index(j->ctx.cfg, board) >= 0 ||
		    sqlite3_column_bytes(st, 1) != 32)
			continue;
		o = xreallocarray(o, n + 1, sizeof(*o));
		o[n].job = sqlite3_column_int64(st, 0);
		memcpy(o[n].rid, sqlite3_column_blob(st, 1), 32);
		snprintf(o[n].board, sizeof(o[n].board), "%s", board);
		n++;
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < n; i++) {
		static const char text[] = "the board left the lab";

		jobs_set_state(j, o[i].job, JOB_ERROR, text);
		jobs_publish_event(j, o[i].rid, o[i].board, JOB_ERROR, 0, 0,
				   NULL, text);
	}
	free(o);
}

void jobs_reload_done(jobs_t *j)
{
	s_end_orphans(j);
	for (size_t i = 0; i < j->ctx.cfg->n_boards; i++)
		jobs_update_board(j, i);
	jobs_schedule(j);
}
