/*
 * store_read: the record tables read over a connection of the caller's
 * own (the results index, the command line, the dashboard: each opens
 * HOME/store.db itself, often read-only, while the node writes through
 * its store_t). The SQL on records, feeds and requests outside store.c
 * is here; see store.h "Readers over another connection".
 *
 * Layout: opening, records by kind and id prefix, a request's view,
 * requests, then the raw rows that `store check` judges.
 */
#include "node/store/store.h"

#include "proto/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STORE_READ_BUSY_MS 2000

int store_open_readonly(const char *home, sqlite3 **ret_db)
{
	char *path = xasprintf("%s/store.db", home);
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);

	free(path);
	if (rc != SQLITE_OK) {
		sqlite3_close(db);
		return -ENOENT;
	}
	sqlite3_busy_timeout(db, STORE_READ_BUSY_MS);
	*ret_db = db;
	return 0;
}

bool store_db_exists(sqlite3 *db)
{
	sqlite3_stmt *st;
	bool found;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE"
			       " type = 'table' AND name = 'records'", -1, &st,
			       NULL) != SQLITE_OK)
		return false;
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* ---- records ------------------------------------------------------------ */

int64_t store_db_count_kind(sqlite3 *db, int kind)
{
	sqlite3_stmt *st;
	int64_t n = -EIO;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM records WHERE"
			       " kind = ?1", -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int(st, 1, kind);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

int store_db_records_of_kind(sqlite3 *db, int kind, store_skip_fn skip,
			     store_rec_fn fn, void *arg)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT id, seq, bytes FROM records"
			       " WHERE kind = ?1 ORDER BY author, seq", -1,
			       &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int(st, 1, kind);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		/* the id first: a skipped record's bytes are never read */
		if (sqlite3_column_bytes(st, 0) == STORE_ID_BYTES &&
		    skip(arg, sqlite3_column_blob(st, 0)))
			continue;
		if (fn(arg, (uint64_t)sqlite3_column_int64(st, 1),
		       sqlite3_column_blob(st, 2),
		       (size_t)sqlite3_column_bytes(st, 2)) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

int store_db_find_record(sqlite3 *db, int kind, const char *prefix,
			 store_rec_fn fn, void *arg)
{
	sqlite3_stmt *st = NULL;
	char like[80];
	int n = 0, rc = 0;

	snprintf(like, sizeof(like), "%s%%", prefix);
	if (sqlite3_prepare_v2(db, "SELECT seq, bytes FROM records WHERE"
			       " kind=? AND lower(hex(id)) LIKE lower(?)", -1,
			       &st, NULL) != SQLITE_OK)
		return -ENOENT;
	sqlite3_bind_int(st, 1, kind);
	sqlite3_bind_text(st, 2, like, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW && n++ == 0)
		rc = fn(arg, (uint64_t)sqlite3_column_int64(st, 0),
			sqlite3_column_blob(st, 1),
			(size_t)sqlite3_column_bytes(st, 1));
	sqlite3_finalize(st);
	if (n > 1)
		return -EINVAL;
	return n == 0 ? -ENOENT : rc < 0 ? rc : 0;
}

/* ---- a request's view --------------------------------------------------- */

int store_db_view_records(sqlite3 *db, const store_view_q_t *q,
			  store_rec_fn fn, void *arg)
{
	sqlite3_stmt *st = NULL;

	/* the latest record of kind q->latest of each author, then the
	 * rest in author, seq order */
	if (sqlite3_prepare_v2(db, "SELECT seq, bytes FROM records r WHERE"
			       " kind=? AND seq=(SELECT max(seq) FROM records"
			       " WHERE author=r.author AND kind=?) UNION ALL"
			       " SELECT seq, bytes FROM (SELECT seq, bytes FROM"
			       " records WHERE kind BETWEEN ? AND ? AND (ts_ms"
			       " >= ? OR instr(?, hex(author)) > 0) ORDER BY"
			       " author, seq)", -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int(st, 1, q->latest_kind);
	sqlite3_bind_int(st, 2, q->latest_kind);
	sqlite3_bind_int(st, 3, q->kind_lo);
	sqlite3_bind_int(st, 4, q->kind_hi);
	sqlite3_bind_int64(st, 5, q->since_ms);
	sqlite3_bind_text(st, 6, q->also, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW)
		if (fn(arg, (uint64_t)sqlite3_column_int64(st, 0),
		       sqlite3_column_blob(st, 1),
		       (size_t)sqlite3_column_bytes(st, 1)) != 0)
			break;
	sqlite3_finalize(st);
	return 0;
}

/* ---- requests ----------------------------------------------------------- */

int store_db_find_request(sqlite3 *db, const char *prefix,
			  uint8_t ret_id[STORE_ID_BYTES])
{
	sqlite3_stmt *st = NULL;
	char like[80];
	int n = 0;

	snprintf(like, sizeof(like), "%s%%", prefix);
	if (sqlite3_prepare_v2(db, "SELECT id FROM requests WHERE"
			       " lower(hex(id)) LIKE lower(?)", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, like, -1, SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW)
			if (n++ == 0 && sqlite3_column_bytes(st, 0) ==
						STORE_ID_BYTES)
				memcpy(ret_id, sqlite3_column_blob(st, 0),
				       STORE_ID_BYTES);
	}
	sqlite3_finalize(st);
	return n == 1 ? 0 : n == 0 ? -ENOENT : -EINVAL;
}

int store_db_get_request(sqlite3 *db, const uint8_t *id,
			 uint8_t **ret_bytes, size_t *ret_len)
{
	sqlite3_stmt *st = NULL;
	int rc = -ENOENT;

	if (sqlite3_prepare_v2(db, "SELECT bytes FROM requests WHERE id=?",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_blob(st, 1, id, STORE_ID_BYTES, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		size_t len = (size_t)sqlite3_column_bytes(st, 0);

		*ret_bytes = xmalloc(len ? len : 1);
		memcpy(*ret_bytes, sqlite3_column_blob(st, 0), len);
		*ret_len = len;
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

int store_db_requests(sqlite3 *db, size_t max, store_req_fn fn, void *arg)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT id, bytes, expires_ms FROM requests"
			       " ORDER BY seen_ms DESC, id LIMIT ?1", -1, &st,
			       NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, (int64_t)max);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_bytes(st, 0) != STORE_ID_BYTES)
			continue;
		if (fn(arg, sqlite3_column_blob(st, 0),
		       sqlite3_column_blob(st, 1),
		       (size_t)sqlite3_column_bytes(st, 1),
		       sqlite3_column_int64(st, 2)) != 0)
			break;
	}
	sqlite3_finalize(st);
	return 0;
}

/* ---- raw rows, for store check ------------------------------------------ */

int store_db_rows(sqlite3 *db, store_row_fn fn, void *arg)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT id, author, seq, bytes FROM records"
			       " ORDER BY author, seq", -1, &st,
			       NULL) != SQLITE_OK)
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		store_row_t r = {
			.id = sqlite3_column_blob(st, 0),
			.id_len = (size_t)sqlite3_column_bytes(st, 0),
			.author = sqlite3_column_blob(st, 1),
			.author_len = (size_t)sqlite3_column_bytes(st, 1),
			.seq = sqlite3_column_int64(st, 2),
			.bytes = sqlite3_column_blob(st, 3),
			.len = (size_t)sqlite3_column_bytes(st, 3),
		};

		if (fn(arg, &r) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

int store_db_feed_rows(sqlite3 *db, store_feed_row_fn fn, void *arg)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT f.author, f.seq, f.head, r.id,"
			       " f.flagged FROM feeds f LEFT JOIN records r ON"
			       " r.author = f.author AND r.seq = f.seq ORDER BY"
			       " f.author", -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	while (sqlite3_step(st) == SQLITE_ROW) {
		store_feed_row_t r = {
			.author = sqlite3_column_blob(st, 0),
			.author_len = (size_t)sqlite3_column_bytes(st, 0),
			.seq = sqlite3_column_int64(st, 1),
			.head = sqlite3_column_blob(st, 2),
			.head_len = (size_t)sqlite3_column_bytes(st, 2),
			.held = sqlite3_column_blob(st, 3),
			.held_len = (size_t)sqlite3_column_bytes(st, 3),
			.flagged = sqlite3_column_int(st, 4) != 0,
		};

		if (fn(arg, &r) != 0)
			break;
	}
	sqlite3_finalize(st);
	return 0;
}
