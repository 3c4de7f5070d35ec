/*
 * store: SQLite persistence of records, feeds, evidence, requests and
 * learned peers. One connection, used by the node's loop thread only.
 *
 * Layout: schema and open/close first, then records and feeds (the feed
 * head cache, put, reads), then requests, then peers.
 */
#include "node/store/store.h"

#include "proto/keymap.h"
#include "proto/mem.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>


#define STORE_BUSY_MS 5000
/* feeds a store.db may say it holds that the cache makes room for at
 * once (beyond, it grows as they load) */
#define STORE_RESERVE_FEEDS (1 << 22)

enum {
	Q_INSERT_REC = 0,
	Q_FEED_UPSERT,
	Q_ID_AT,
	Q_INSERT_EVIDENCE,
	Q_FLAG,
	Q_RECORDS_FROM,
	Q_HAS_ID,
	Q_PUT_REQ,
	Q_HAS_REQ,
	Q_GET_REQ,
	Q_COUNT
};

static const char *const s_sql[Q_COUNT] = {
	[Q_INSERT_REC] = "INSERT INTO records(id, author, seq, kind, ts_ms, bytes)"
			 " VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
	[Q_FEED_UPSERT] = "INSERT INTO feeds(author, seq, head, flagged)"
			  " VALUES(?1, ?2, ?3, ?4) ON CONFLICT(author) DO UPDATE"
			  " SET seq = ?2, head = ?3, flagged = ?4",
	[Q_ID_AT] = "SELECT id FROM records WHERE author = ?1 AND seq = ?2",
	[Q_INSERT_EVIDENCE] = "INSERT OR IGNORE INTO evidence(id, author, seq,"
			      " bytes, seen_ms) VALUES(?1, ?2, ?3, ?4,"
			      " CAST(strftime('%s','now') AS INTEGER) * 1000)",
	[Q_FLAG] = "UPDATE feeds SET flagged = 1 WHERE author = ?1",
	[Q_RECORDS_FROM] = "SELECT seq, bytes FROM records WHERE author = ?1"
			   " AND seq >= ?2 ORDER BY seq LIMIT ?3",
	[Q_HAS_ID] = "SELECT 1 FROM records WHERE id = ?1",
	[Q_PUT_REQ] = "INSERT OR IGNORE INTO requests(id, bytes, expires_ms,"
		      " seen_ms) VALUES(?1, ?2, ?3,"
		      " CAST(strftime('%s','now') AS INTEGER) * 1000)",
	[Q_HAS_REQ] = "SELECT 1 FROM requests WHERE id = ?1",
	[Q_GET_REQ] = "SELECT bytes FROM requests WHERE id = ?1",
};

static const char s_schema[] =
	"CREATE TABLE IF NOT EXISTS records("
	" id BLOB PRIMARY KEY, author BLOB NOT NULL, seq INTEGER NOT NULL,"
	" kind INTEGER NOT NULL, ts_ms INTEGER NOT NULL, bytes BLOB NOT NULL,"
	" UNIQUE(author, seq));"
	"CREATE INDEX IF NOT EXISTS records_kind ON records(kind, author, seq);"
	"CREATE TABLE IF NOT EXISTS feeds("
	" author BLOB PRIMARY KEY, seq INTEGER NOT NULL, head BLOB NOT NULL,"
	" flagged INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE IF NOT EXISTS evidence("
	" id BLOB PRIMARY KEY, author BLOB NOT NULL, seq INTEGER NOT NULL,"
	" bytes BLOB NOT NULL, seen_ms INTEGER NOT NULL);"
	"CREATE TABLE IF NOT EXISTS requests("
	" id BLOB PRIMARY KEY, bytes BLOB NOT NULL, expires_ms INTEGER NOT NULL,"
	" seen_ms INTEGER NOT NULL);"
	/* covers the ids by age: listing them never reads the bytes */
	"CREATE INDEX IF NOT EXISTS requests_seen ON requests(seen_ms,"
	" expires_ms, id);"
	"CREATE INDEX IF NOT EXISTS requests_expires ON requests(expires_ms,"
	" id);"
	"CREATE TABLE IF NOT EXISTS peers("
	" id BLOB PRIMARY KEY, endpoint TEXT NOT NULL, descriptor BLOB NOT NULL,"
	" seen_ms INTEGER NOT NULL);";

struct store {
	sqlite3 *db;
	sqlite3_stmt *q[Q_COUNT];
	/* the feed head cache: author -> store_feed_t (which begins with
	 * its author), in order of first put; its index hashes under a
	 * per-process key, so authors a peer grinds keys for cannot crowd
	 * one probe run */
	keymap_t *feeds;
	bool in_tx;
	int64_t changes_seen; /* sqlite3_total_changes64 at the last shrink */
};

static int s_err(int rc)
{
	switch (rc) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return 0;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_CONSTRAINT:
		return -EEXIST;
	case SQLITE_CANTOPEN:
		return -ENOENT;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return -EBADMSG;
	default:
		return -EIO;
	}
}

static store_feed_t *s_feed_lookup(store_t *s, const uint8_t *author)
{
	return keymap_get(s->feeds, author);
}

/* A new feed entry of author: seq 0, no head, not flagged. */
static store_feed_t *s_feed_add(store_t *s, const uint8_t *author)
{
	return keymap_put(s->feeds, author, NULL);
}

static int s_load_feeds(store_t *s)
{
	sqlite3_stmt *st;
	int rc;

	/* room for exactly the feeds held (10,000 on a node of a network
	 * of that many labs), not the next power of two */
	rc = sqlite3_prepare_v2(s->db, "SELECT COUNT(*) FROM feeds", -1, &st,
				NULL);
	if (rc != SQLITE_OK)
		return s_err(rc);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_int64(st, 0) <= STORE_RESERVE_FEEDS)
		keymap_reserve(s->feeds,
			       (size_t)sqlite3_column_int64(st, 0));
	sqlite3_finalize(st);
	rc = sqlite3_prepare_v2(s->db, "SELECT author, seq, head, flagged"
				" FROM feeds", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return s_err(rc);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		store_feed_t *f;

		if (sqlite3_column_bytes(st, 0) != STORE_KEY_BYTES ||
		    sqlite3_column_bytes(st, 2) != STORE_ID_BYTES)
			continue;
		f = s_feed_add(s, sqlite3_column_blob(st, 0));
		f->seq = (uint64_t)sqlite3_column_int64(st, 1);
		memcpy(f->head, sqlite3_column_blob(st, 2), STORE_ID_BYTES);
		f->flagged = sqlite3_column_int(st, 3) != 0;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : s_err(rc);
}

static int s_setup(store_t *s)
{
	int rc;

	sqlite3_busy_timeout(s->db, STORE_BUSY_MS);
	/* FULL in WAL mode: every commit is on disk before we acknowledge
	 * it to a peer (by advertising the new head in our vector). */
	rc = sqlite3_exec(s->db, "PRAGMA journal_mode=WAL;"
			  "PRAGMA synchronous=FULL;"
			  "PRAGMA foreign_keys=ON;", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return s_err(rc);
	rc = sqlite3_exec(s->db, s_schema, NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return s_err(rc);
	for (int i = 0; i < Q_COUNT; i++) {
		rc = sqlite3_prepare_v3(s->db, s_sql[i], -1,
					SQLITE_PREPARE_PERSISTENT, &s->q[i],
					NULL);
		if (rc != SQLITE_OK)
			return s_err(rc);
	}
	return s_load_feeds(s);
}

int store_open(const char *path, store_t **ret_store)
{
	store_t *s = xzalloc(sizeof(*s));
	int rc;

	s->feeds = keymap_new(sizeof(store_feed_t));
	rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE |
			     SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		rc = s_err(rc);
		store_destroy(&s);
		return rc;
	}
	rc = s_setup(s);
	if (rc < 0) {
		store_destroy(&s);
		return rc;
	}
	*ret_store = s;
	return 0;
}

void store_destroy(store_t **p)
{
	store_t *s = *p;

	if (!s)
		return;
	if (s->in_tx)
		store_rollback(s);
	for (int i = 0; i < Q_COUNT; i++)
		sqlite3_finalize(s->q[i]);
	sqlite3_close(s->db);
	keymap_destroy(&s->feeds);
	free(s);
	*p = NULL;
}

int store_begin(store_t *s)
{
	int rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		return s_err(rc);
	s->in_tx = true;
	return 0;
}

int store_commit(store_t *s)
{
	int rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);

	if (rc != SQLITE_OK) {
		store_rollback(s);
		return s_err(rc);
	}
	s->in_tx = false;
	return 0;
}

static void s_reload_feeds(store_t *s)
{
	keymap_clear(s->feeds);
	s_load_feeds(s);
}

size_t store_mem_used(void)
{
	sqlite3_int64 n = sqlite3_memory_used();

	return n > 0 ? (size_t)n : 0;
}

size_t store_shrink_idle(store_t *s)
{
	int64_t changes = sqlite3_total_changes64(s->db);
	size_t before, after;

	if (s->in_tx || changes != s->changes_seen) {
		s->changes_seen = changes;
		return 0;
	}
	before = store_mem_used();
	sqlite3_db_release_memory(s->db);
	after = store_mem_used();
	return before > after ? before - after : 0;
}

void store_rollback(store_t *s)
{
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	s->in_tx = false;
	/* the cache may hold heads the rollback undid */
	s_reload_feeds(s);
}

static int s_step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : s_err(rc);
}

static int s_feed_save(store_t *s, const store_feed_t *f)
{
	sqlite3_stmt *st = s->q[Q_FEED_UPSERT];

	sqlite3_bind_blob(st, 1, f->author, STORE_KEY_BYTES, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)f->seq);
	sqlite3_bind_blob(st, 3, f->head, STORE_ID_BYTES, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, f->flagged);
	return s_step_done(st);
}

/* The id held at (author, seq) into id; 1 if found, 0 if not, -errno. */
static int s_id_at(store_t *s, const uint8_t *author, uint64_t seq, uint8_t *id)
{
	sqlite3_stmt *st = s->q[Q_ID_AT];
	int rc, found = 0;

	sqlite3_bind_blob(st, 1, author, STORE_KEY_BYTES, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)seq);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_bytes(st, 0) == STORE_ID_BYTES) {
		memcpy(id, sqlite3_column_blob(st, 0), STORE_ID_BYTES);
		found = 1;
	} else if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		found = s_err(rc);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return found;
}

static int s_put_evidence(store_t *s, store_feed_t *f, const store_rec_t *r)
{
	sqlite3_stmt *st = s->q[Q_INSERT_EVIDENCE];
	int rc;

	sqlite3_bind_blob(st, 1, r->id, STORE_ID_BYTES, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, r->author, STORE_KEY_BYTES, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)r->seq);
	sqlite3_bind_blob(st, 4, r->bytes, (int)r->len, SQLITE_STATIC);
	rc = s_step_done(st);
	if (rc < 0)
		return rc;
	f->flagged = true;
	rc = s_feed_save(s, f);
	return rc < 0 ? rc : STORE_EQUIVOCATION;
}

/* seq at or below the head: a duplicate or equivocation evidence. */
static int s_put_old(store_t *s, store_feed_t *f, const store_rec_t *r)
{
	uint8_t held[STORE_ID_BYTES];
	int rc;

	if (r->seq == f->seq) {
		memcpy(held, f->head, sizeof(held));
	} else {
		rc = s_id_at(s, r->author, r->seq, held);
		if (rc < 0)
			return rc;
		if (rc == 0)
			return -EIO; /* contiguous feed lost a row */
	}
	if (memcmp(held, r->id, STORE_ID_BYTES) == 0)
		return STORE_DUPLICATE;
	return s_put_evidence(s, f, r);
}

static int s_insert(store_t *s, const store_rec_t *r)
{
	sqlite3_stmt *st = s->q[Q_INSERT_REC];

	if (r->len > INT32_MAX)
		return -EMSGSIZE;
	sqlite3_bind_blob(st, 1, r->id, STORE_ID_BYTES, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, r->author, STORE_KEY_BYTES, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)r->seq);
	sqlite3_bind_int(st, 4, r->kind);
	sqlite3_bind_int64(st, 5, r->ts_ms);
	sqlite3_bind_blob(st, 6, r->bytes, (int)r->len, SQLITE_STATIC);
	return s_step_done(st);
}

int store_put_record(store_t *s, const store_rec_t *r)
{
	static const uint8_t zero[STORE_ID_BYTES];
	store_feed_t *f = s_feed_lookup(s, r->author);
	uint64_t head = f ? f->seq : 0;
	const uint8_t *want_prev = f ? f->head : zero;
	int rc;

	if (r->seq == 0 || r->seq > INT64_MAX)
		return -EINVAL;
	if (f && r->seq <= head)
		return s_put_old(s, f, r);
	if (f && f->flagged)
		return STORE_FLAGGED;
	if (r->seq > head + 1)
		return STORE_GAP;
	if (memcmp(r->prev_id, want_prev, STORE_ID_BYTES) != 0)
		return STORE_BROKEN_CHAIN;
	rc = s_insert(s, r);
	if (rc == -EEXIST)
		return STORE_DUPLICATE; /* same id under another (author, seq) */
	if (rc < 0)
		return rc;
	if (!f)
		f = s_feed_add(s, r->author);
	f->seq = r->seq;
	memcpy(f->head, r->id, STORE_ID_BYTES);
	rc = s_feed_save(s, f);
	return rc < 0 ? rc : STORE_ADDED;
}

const store_feed_t *store_feed(store_t *s, const uint8_t *author)
{
	return s_feed_lookup(s, author);
}

size_t store_feed_count(store_t *s)
{
	return keymap_size(s->feeds);
}

const store_feed_t *store_feed_at(store_t *s, size_t i)
{
	return i < keymap_size(s->feeds) ? keymap_at(s->feeds, i) : NULL;
}

int store_records(store_t *s, const uint8_t *author, uint64_t from,
		  size_t max, size_t max_bytes, store_rec_fn fn, void *arg)
{
	sqlite3_stmt *st = s->q[Q_RECORDS_FROM];
	size_t total = 0;
	int rc, n = 0;

	if (from > INT64_MAX || max > INT32_MAX)
		return -EINVAL;
	sqlite3_bind_blob(st, 1, author, STORE_KEY_BYTES, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)from);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)max);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		const uint8_t *b = sqlite3_column_blob(st, 1);

		if (n > 0 && total + len > max_bytes)
			break;
		total += len;
		n++;
		if (fn(arg, (uint64_t)sqlite3_column_int64(st, 0), b, len))
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		n = s_err(rc);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return n;
}

int store_latest_of_kind(store_t *s, int kind, store_rec_fn fn, void *arg)
{
	sqlite3_stmt *st;
	int rc, n = 0;

	rc = sqlite3_prepare_v2(s->db,
		"SELECT r.seq, r.bytes FROM records r JOIN"
		" (SELECT author, MAX(seq) AS seq FROM records WHERE kind = ?1"
		"  GROUP BY author) l ON r.author = l.author AND r.seq = l.seq"
		" ORDER BY r.ts_ms", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return s_err(rc);
	sqlite3_bind_int(st, 1, kind);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		n++;
		if (fn(arg, (uint64_t)sqlite3_column_int64(st, 0),
		       sqlite3_column_blob(st, 1),
		       (size_t)sqlite3_column_bytes(st, 1)))
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		n = s_err(rc);
	sqlite3_finalize(st);
	return n;
}

static int64_t s_count(store_t *s, const char *sql)
{
	sqlite3_stmt *st;
	int64_t n = -EIO;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

int64_t store_record_count(store_t *s)
{
	return s_count(s, "SELECT COUNT(*) FROM records");
}

/* One record of a pair: 1 if it went in as new evidence, 0 if it is the
 * record held at its seq or evidence already kept, or -errno. */
static int s_pair_one(store_t *s, const store_rec_t *r)
{
	sqlite3_stmt *st = s->q[Q_INSERT_EVIDENCE];
	uint8_t held[STORE_ID_BYTES];
	int rc = s_id_at(s, r->author, r->seq, held);

	if (rc < 0)
		return rc;
	if (rc == 1 && memcmp(held, r->id, STORE_ID_BYTES) == 0)
		return 0;
	if (r->len > INT32_MAX)
		return -EMSGSIZE;
	sqlite3_bind_blob(st, 1, r->id, STORE_ID_BYTES, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, r->author, STORE_KEY_BYTES, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)r->seq);
	sqlite3_bind_blob(st, 4, r->bytes, (int)r->len, SQLITE_STATIC);
	rc = s_step_done(st);
	if (rc < 0)
		return rc;
	return sqlite3_changes(s->db) > 0;
}

int store_put_evidence_pair(store_t *s, const store_rec_t *a,
			    const store_rec_t *b)
{
	store_feed_t *f;
	bool was;
	int ra, rb, rc;

	if (memcmp(a->author, b->author, STORE_KEY_BYTES) != 0 ||
	    a->seq != b->seq || a->seq == 0 || a->seq > INT64_MAX ||
	    memcmp(a->id, b->id, STORE_ID_BYTES) == 0)
		return -EINVAL;
	ra = s_pair_one(s, a);
	if (ra < 0)
		return ra;
	rb = s_pair_one(s, b);
	if (rb < 0)
		return rb;
	f = s_feed_lookup(s, a->author);
	if (!f)
		f = s_feed_add(s, a->author); /* seq 0: nothing of it held */
	was = f->flagged;
	f->flagged = true;
	rc = s_feed_save(s, f);
	if (rc < 0)
		return rc;
	return ra || rb || !was;
}

int store_evidence_pairs(store_t *s, size_t max, store_pair_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT e.bytes, COALESCE(r.bytes, (SELECT o.bytes FROM"
		" evidence o WHERE o.author = e.author AND o.seq = e.seq AND"
		" o.id <> e.id LIMIT 1)) FROM evidence e LEFT JOIN records r"
		" ON r.author = e.author AND r.seq = e.seq"
		" ORDER BY e.rowid DESC LIMIT ?1";
	sqlite3_stmt *st;
	int rc, n = 0;

	if (max > INT32_MAX)
		return -EINVAL;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)max);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 1) != SQLITE_BLOB)
			continue;
		n++;
		if (fn(arg, sqlite3_column_blob(st, 0),
		       (size_t)sqlite3_column_bytes(st, 0),
		       sqlite3_column_blob(st, 1),
		       (size_t)sqlite3_column_bytes(st, 1)))
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		n = s_err(rc);
	sqlite3_finalize(st);
	return n;
}

int64_t store_evidence_count(store_t *s)
{
	return s_count(s, "SELECT COUNT(*) FROM evidence");
}

int store_check(store_t *s)
{
	sqlite3_stmt *st;
	int rc = -EBADMSG;

	if (sqlite3_prepare_v2(s->db, "PRAGMA integrity_check", -1, &st,
			       NULL) != SQLITE_OK)
		return -EIO;
	if (sqlite3_step(st) == SQLITE_ROW &&
	    strcmp((const char *)sqlite3_column_text(st, 0), "ok") == 0)
		rc = 0;
	sqlite3_finalize(st);
	return rc;
}

int store_put_request(store_t *s, const uint8_t *id, const uint8_t *bytes,
		      size_t len, int64_t expires_ms)
{
	sqlite3_stmt *st = s->q[Q_PUT_REQ];
	int rc;

	if (len > INT32_MAX)
		return -EMSGSIZE;
	sqlite3_bind_blob(st, 1, id, STORE_ID_BYTES, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, bytes, (int)len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, expires_ms);
	rc = s_step_done(st);
	if (rc < 0)
		return rc;
	return sqlite3_changes(s->db) > 0 ? 1 : 0;
}

bool store_has_request(store_t *s, const uint8_t *id)
{
	sqlite3_stmt *st = s->q[Q_HAS_REQ];
	bool found;

	sqlite3_bind_blob(st, 1, id, STORE_ID_BYTES, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return found;
}

int store_get_request(store_t *s, const uint8_t *id, uint8_t **ret_bytes,
		      size_t *ret_len)
{
	sqlite3_stmt *st = s->q[Q_GET_REQ];
	int rc = -ENOENT;

	sqlite3_bind_blob(st, 1, id, STORE_ID_BYTES, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		size_t len = (size_t)sqlite3_column_bytes(st, 0);
		uint8_t *b = xmalloc(len ? len : 1);

		memcpy(b, sqlite3_column_blob(st, 0), len);
		*ret_bytes = b;
		*ret_len = len;
		rc = 0;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc;
}

int store_requests(store_t *s, int64_t now_ms, size_t max, store_req_fn fn,
		   void *arg)
{
	sqlite3_stmt *st;
	int rc, n = 0;

	rc = sqlite3_prepare_v2(s->db, "SELECT id, bytes, expires_ms FROM"
				" requests WHERE expires_ms > ?1 ORDER BY"
				" seen_ms DESC LIMIT ?2", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return s_err(rc);
	sqlite3_bind_int64(st, 1, now_ms);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_bytes(st, 0) != STORE_ID_BYTES)
			continue;
		n++;
		if (fn(arg, sqlite3_column_blob(st, 0),
		       sqlite3_column_blob(st, 1),
		       (size_t)sqlite3_column_bytes(st, 1),
		       sqlite3_column_int64(st, 2)))
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		n = s_err(rc);
	sqlite3_finalize(st);
	return n;
}

int store_request_ids(store_t *s, int64_t now_ms, size_t max,
		      store_req_id_fn fn, void *arg)
{
	sqlite3_stmt *st;
	int rc, n = 0;

	/* in an order of the requests' own (not when this node saw them):
	 * two nodes holding the same requests name the same max of them,
	 * so a peer's request-ids lack only what it lacks */
	rc = sqlite3_prepare_v2(s->db, "SELECT id, expires_ms FROM requests"
				" INDEXED BY requests_expires WHERE expires_ms"
				" > ?1 ORDER BY expires_ms DESC, id DESC"
				" LIMIT ?2", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return s_err(rc);
	sqlite3_bind_int64(st, 1, now_ms);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_bytes(st, 0) != STORE_ID_BYTES)
			continue;
		n++;
		if (fn(arg, sqlite3_column_blob(st, 0),
		       sqlite3_column_int64(st, 1)))
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		n = s_err(rc);
	sqlite3_finalize(st);
	return n;
}

int store_expire_requests(store_t *s, int64_t now_ms)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(s->db, "DELETE FROM requests WHERE"
				" expires_ms <= ?1", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return s_err(rc);
	sqlite3_bind_int64(st, 1, now_ms);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : s_err(rc);
}

int store_put_peer(store_t *s, const uint8_t *id, const char *endpoint,
		   const uint8_t *desc, size_t desc_len, int64_t seen_ms)
{
	sqlite3_stmt *st;
	int rc;

	if (desc_len > INT32_MAX)
		return -EMSGSIZE;
	rc = sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO peers(id,"
				" endpoint, descriptor, seen_ms) VALUES(?1, ?2,"
				" ?3, ?4)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return s_err(rc);
	sqlite3_bind_blob(st, 1, id, STORE_KEY_BYTES, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, endpoint, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, desc, (int)desc_len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, seen_ms);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return s_err(rc);
	/* remember a bounded number: the most recently seen */
	rc = sqlite3_exec(s->db, "DELETE FROM peers WHERE id NOT IN (SELECT id"
			  " FROM peers ORDER BY seen_ms DESC LIMIT "
			  STORE_MAX_PEERS_STR ")", NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : s_err(rc);
}

int store_peers(store_t *s, size_t max, store_peer_fn fn, void *arg)
{
	sqlite3_stmt *st;
	int rc, n = 0;

	rc = sqlite3_prepare_v2(s->db, "SELECT id, endpoint, descriptor FROM"
				" peers ORDER BY seen_ms DESC LIMIT ?1", -1,
				&st, NULL);
	if (rc != SQLITE_OK)
		return s_err(rc);
	sqlite3_bind_int64(st, 1, (sqlite3_int64)max);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_bytes(st, 0) != STORE_KEY_BYTES)
			continue;
		n++;
		if (fn(arg, sqlite3_column_blob(st, 0),
		       (const char *)sqlite3_column_text(st, 1),
		       sqlite3_column_blob(st, 2),
		       (size_t)sqlite3_column_bytes(st, 2)))
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		n = s_err(rc);
	sqlite3_finalize(st);
	return n;
}

int store_latest_own(store_t *s, const uint8_t *author, int kind,
		     uint8_t **ret_bytes, size_t *ret_len)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(s->db, "SELECT bytes FROM records WHERE"
				" kind = ?1 AND author = ?2 ORDER BY seq DESC"
				" LIMIT 1", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return s_err(rc);
	sqlite3_bind_int(st, 1, kind);
	sqlite3_bind_blob(st, 2, author, STORE_KEY_BYTES, SQLITE_STATIC);
	rc = -ENOENT;
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
