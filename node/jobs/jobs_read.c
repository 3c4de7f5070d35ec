/*
 * jobs_read: read-only queries of HOME/jobs.db for the code above the jobs
 * side (the blob gc's pins, the dashboard's jobs of a request, why the
 * lab kept silent on a request for `status`), each over
 * its own read-only connection, so the readers need no jobs_t and never
 * write. See jobs.h.
 */
#include "node/jobs/jobs.h"
#include "node/store/wire.h"

#include "proto/mem.h"
#include "proto/request.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- read-only queries of jobs.db ------------------------------------- */

#define JOBS_MAX_PINS 65536  /* blobs pinned by unfinished jobs */
#define JOBS_RO_BUSY_MS 2000 /* a reader waits this long for the node */

static void s_pin(uint8_t (**pins)[32], size_t *n, const uint8_t *id)
{
	if (*n >= JOBS_MAX_PINS)
		return;
	if (*n % 64 == 0)
		*pins = xreallocarray(*pins, *n + 64, 32);
	memcpy((*pins)[(*n)++], id, 32);
}

/* The kernel blobs of each unfinished job's request, into pins. */
static int s_pins_read(sqlite3 *db, uint8_t (**pins)[32], size_t *n)
{
	sqlite3_stmt *q = NULL;
	int s;

	if (sqlite3_prepare_v2(db, "SELECT DISTINCT r.bytes FROM jobs j"
			       " JOIN requests r ON r.id = j.request_id"
			       " WHERE j.state < ?", -1, &q, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int(q, 1, JOB_DONE);
	while ((s = sqlite3_step(q)) == SQLITE_ROW) {
		const void *b = sqlite3_column_blob(q, 0);
		int len = sqlite3_column_bytes(q, 0);
		request_t *req = NULL;

		if (!b || len <= 0 ||
		    wire_request_open(b, (size_t)len, &req) != 0)
			continue; /* never queued: the decision refuses it */
		if (req->kernel.type == REQUEST_KERNEL_ARTIFACT) {
			s_pin(pins, n, req->kernel.kernel_blob);
			if (req->kernel.has_initrd_blob)
				s_pin(pins, n, req->kernel.initrd_blob);
		}
		request_destroy(&req);
	}
	sqlite3_finalize(q);
	/* busy or broken: the caller keeps everything this round */
	return s == SQLITE_DONE ? 0 : -EIO;
}

int jobs_pinned_blobs(const char *home, uint8_t (**ret)[32], size_t *ret_n)
{
	char *path = xasprintf("%s/jobs.db", home);
	uint8_t (*pins)[32] = NULL;
	sqlite3 *db = NULL;
	size_t n = 0;
	int rc = 0;

	*ret = NULL;
	*ret_n = 0;
	if (access(path, F_OK) < 0) {
		rc = errno == ENOENT ? 0 : -errno; /* no jobs ever */
		free(path);
		return rc;
	}
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) ==
	    SQLITE_OK) {
		sqlite3_busy_timeout(db, JOBS_RO_BUSY_MS);
		rc = s_pins_read(db, &pins, &n);
	} else {
		rc = -EIO;
	}
	sqlite3_close(db);
	free(path);
	if (rc < 0) {
		free(pins);
		return rc;
	}
	*ret = pins;
	*ret_n = n;
	return 0;
}

static const char s_list_sql[] =
	"SELECT lower(hex(request_id)), board, state, priority, attempts,"
	" created_ms, updated_ms, text FROM jobs"
	" WHERE lower(hex(request_id)) LIKE ?1 || '%'"
	" ORDER BY lower(hex(request_id)), board LIMIT ?2";

static const char *s_col_text(sqlite3_stmt *st, int i)
{
	const char *t = (const char *)sqlite3_column_text(st, i);

	return t ? t : "";
}

/* HOME's jobs.db opened read-only, with the readers' busy timeout:
 * 0, -ENOENT when there is none (no jobs ever), -EIO. */
static int s_open_ro(const char *home, sqlite3 **ret_db)
{
	char *path = xasprintf("%s/jobs.db", home);
	int rc = 0;

	*ret_db = NULL;
	if (access(path, R_OK) < 0)
		rc = -ENOENT;
	else if (sqlite3_open_v2(path, ret_db, SQLITE_OPEN_READONLY, NULL) !=
		 SQLITE_OK)
		rc = -EIO;
	else
		sqlite3_busy_timeout(*ret_db, JOBS_RO_BUSY_MS);
	free(path);
	return rc;
}

int jobs_list_request(const char *home, const char *hex_prefix, size_t max,
		      int (*cb)(void *arg, const jobs_row_t *row), void *arg)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int rc, s;

	rc = s_open_ro(home, &db);
	if (rc == -ENOENT)
		return rc;
	rc = -EIO;
	if (!db || sqlite3_prepare_v2(db, s_list_sql, -1, &st, NULL) != SQLITE_OK)
		goto out_close;
	sqlite3_bind_text(st, 1, hex_prefix, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		jobs_row_t row = {
			.request = s_col_text(st, 0), .board = s_col_text(st, 1),
			.state = sqlite3_column_int(st, 2),
			.priority = sqlite3_column_int64(st, 3),
			.attempts = sqlite3_column_int64(st, 4),
			.created_ms = sqlite3_column_int64(st, 5),
			.updated_ms = sqlite3_column_int64(st, 6),
			.text = s_col_text(st, 7),
		};
		if (cb(arg, &row) != 0)
			break;
	}
	rc = (s == SQLITE_ROW || s == SQLITE_DONE) ? 0 : -EIO;
out_close:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

static int s_silent_row(sqlite3_stmt *st, uint8_t ret_author[32], char *lab,
			size_t lsz, int *ret_reason, char *text, size_t tsz)
{
	if (sqlite3_column_bytes(st, 0) != 32)
		return -EIO;
	memcpy(ret_author, sqlite3_column_blob(st, 0), 32);
	snprintf(lab, lsz, "%s", s_col_text(st, 1));
	*ret_reason = sqlite3_column_int(st, 2);
	snprintf(text, tsz, "%s", s_col_text(st, 3));
	return 0;
}

int jobs_silent_reason(const char *home, const uint8_t id[32],
		       uint8_t ret_author[32], char *lab, size_t lsz,
		       int *ret_reason, char *text, size_t tsz)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int rc, s;

	rc = s_open_ro(home, &db);
	if (rc == -ENOENT)
		return rc;
	rc = -EIO;
	if (!db)
		goto out_close;
	/* a jobs.db of an older node has no table silent: nothing kept */
	if (sqlite3_prepare_v2(db, "SELECT author, lab, reason, text FROM"
			       " silent WHERE request_id=?", -1, &st,
			       NULL) != SQLITE_OK) {
		rc = -ENOENT;
		goto out_close;
	}
	sqlite3_bind_blob(st, 1, id, 32, SQLITE_STATIC);
	s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		rc = s_silent_row(st, ret_author, lab, lsz, ret_reason, text,
				  tsz);
	else if (s == SQLITE_DONE)
		rc = -ENOENT;
out_close:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

void jobs_silent_view(const char *home, const uint8_t id[32], reqview_t *v)
{
	char lab[PROTO_MAX_NAME + 1], text[400];
	uint8_t author[32];
	reqview_lab_t *l;
	int reason;

	if (jobs_silent_reason(home, id, author, lab, sizeof(lab), &reason,
			       text, sizeof(text)) < 0 ||
	    !(l = reqview_lab(v, author)) || l->answer)
		return;
	snprintf(l->name, sizeof(l->name), "%s", lab);
	l->answer = REQVIEW_DECLINED;
	l->n_said++;
	snprintf(l->decline, sizeof(l->decline), "%s: %s",
		 decline_reason_name(reason), text);
}
