/*
 * store: the node's SQLite store (store.db in the home).
 *
 * Records are kept as their exact signed bytes, keyed by id and unique by
 * (author, seq). Each author's feed is stored only contiguously from seq 1:
 * a record is accepted when it extends the feed head (seq = head + 1 and
 * prev_id = the head's id). A second, different record for a (author, seq)
 * we already hold is equivocation: it goes to the evidence table and the
 * author is flagged. Requests are kept by id with their expiry.
 *
 * The store does not verify signatures: callers hand it records that the
 * proto decoder has already verified. Feed heads are cached in memory so the
 * version vector is computed without a query.
 *
 * Tables:
 *   records(id PK, author, seq, kind, ts_ms, bytes)  UNIQUE(author, seq)
 *   feeds(author PK, seq, head, flagged)   max contiguous seq and its id
 *   evidence(id PK, author, seq, bytes, seen_ms)
 *   requests(id PK, bytes, expires_ms, seen_ms)
 *   peers(id PK, endpoint, descriptor, seen_ms)  learned peers, for restarts
 */
#ifndef LABMESH_NODE_STORE_H
#define LABMESH_NODE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#define STORE_KEY_BYTES 32
#define STORE_ID_BYTES 32
#define STORE_MAX_PEERS 256 /* learned peers remembered */
#define STORE_MAX_PEERS_STR "256"

typedef struct store store_t;

/* A verified record as the store needs it; all pointers borrowed. */
typedef struct {
	const uint8_t *id;      /* STORE_ID_BYTES */
	const uint8_t *author;  /* STORE_KEY_BYTES */
	const uint8_t *prev_id; /* STORE_ID_BYTES; all zero for seq 1 */
	uint64_t seq;
	int kind;
	int64_t ts_ms;
	const uint8_t *bytes;
	size_t len;
} store_rec_t;

/* Results of store_put_record (besides negative errors). */
enum store_put {
	STORE_ADDED = 0,       /* extended the feed */
	STORE_DUPLICATE,       /* same id already held */
	STORE_EQUIVOCATION,    /* different id for a held (author, seq) */
	STORE_GAP,             /* seq beyond head + 1: not stored */
	STORE_BROKEN_CHAIN,    /* seq = head + 1 but prev_id is not the head */
	STORE_FLAGGED,         /* author flagged: no further records taken */
};

typedef struct {
	uint8_t author[STORE_KEY_BYTES];
	uint64_t seq;
	uint8_t head[STORE_ID_BYTES];
	bool flagged;
} store_feed_t;

/* Open (creating) the store at path. Returns 0 and *ret_store, or -errno. */
int store_open(const char *path, store_t **ret_store);
void store_destroy(store_t **p);

/* Group several puts in one transaction (one fsync). */
int store_begin(store_t *s);
int store_commit(store_t *s);
void store_rollback(store_t *s);

/* Put a verified record; returns an enum store_put value or -errno. */
int store_put_record(store_t *s, const store_rec_t *r);

/* The feed of author, or NULL if we hold none; borrowed until next put. */
const store_feed_t *store_feed(store_t *s, const uint8_t *author);
/* Number of feeds and the i-th (0 <= i < count); borrowed. Order is stable
 * between puts. */
size_t store_feed_count(store_t *s);
const store_feed_t *store_feed_at(store_t *s, size_t i);

/*
 * Call fn for records of author with seq >= from, in seq order, at most
 * max records and until the total bytes would pass max_bytes (at least one
 * record is always given). fn returns 0 to go on, non-zero to stop.
 * Returns the number of records given or -errno.
 */
typedef int (*store_rec_fn)(void *arg, uint64_t seq, const uint8_t *bytes,
			    size_t len);
int store_records(store_t *s, const uint8_t *author, uint64_t from,
		  size_t max, size_t max_bytes, store_rec_fn fn, void *arg);

/* The bytes of the latest record of each author of this kind. */
int store_latest_of_kind(store_t *s, int kind, store_rec_fn fn, void *arg);

/* The bytes of author's latest record of kind (caller frees); -ENOENT. */
int store_latest_own(store_t *s, const uint8_t *author, int kind,
		     uint8_t **ret_bytes, size_t *ret_len);

/* Equivocation proven by two records of one author at one seq, both
 * signed (the caller verified them), whether or not this store holds that
 * author's feed up to there: both go to the evidence table (the one held
 * in the feed, if any, stays there) and the author is flagged. Returns 1
 * when that is news (a new evidence row or a newly flagged author), 0
 * when already known, or -errno. */
int store_put_evidence_pair(store_t *s, const store_rec_t *a,
			    const store_rec_t *b);
/* Evidence pairs, newest first, at most max: fn gets two records of one
 * author at one seq (an evidence row and the record held there, or a
 * second evidence row). */
typedef int (*store_pair_fn)(void *arg, const uint8_t *a, size_t a_len,
			     const uint8_t *b, size_t b_len);
int store_evidence_pairs(store_t *s, size_t max, store_pair_fn fn, void *arg);

/* Count of records held; of evidence rows. */
int64_t store_record_count(store_t *s);
int64_t store_evidence_count(store_t *s);

/* Requests: put returns 1 when new, 0 when already held, or -errno. */
int store_put_request(store_t *s, const uint8_t *id, const uint8_t *bytes,
		      size_t len, int64_t expires_ms);
bool store_has_request(store_t *s, const uint8_t *id);
/* Unexpired requests at now_ms, newest first, at most max. */
typedef int (*store_req_fn)(void *arg, const uint8_t *id, const uint8_t *bytes,
			    size_t len, int64_t expires_ms);
int store_requests(store_t *s, int64_t now_ms, size_t max, store_req_fn fn,
		   void *arg);
/* Ids only (reads no request's bytes), latest to expire first: an order
 * of the requests' own, the same on every node. The count or -errno. */
typedef int (*store_req_id_fn)(void *arg, const uint8_t *id,
			       int64_t expires_ms);
int store_request_ids(store_t *s, int64_t now_ms, size_t max,
		      store_req_id_fn fn, void *arg);
int store_get_request(store_t *s, const uint8_t *id, uint8_t **ret_bytes,
		      size_t *ret_len);
/* Drop expired requests. */
int store_expire_requests(store_t *s, int64_t now_ms);

/* Learned peers, so a restarted node rejoins: id, endpoint, descriptor. */
int store_put_peer(store_t *s, const uint8_t *id, const char *endpoint,
		   const uint8_t *desc, size_t desc_len, int64_t seen_ms);
typedef int (*store_peer_fn)(void *arg, const uint8_t *id, const char *endpoint,
			     const uint8_t *desc, size_t desc_len);
int store_peers(store_t *s, size_t max, store_peer_fn fn, void *arg);

/*
 * Readers over another connection (store_read.c). The results index, the
 * command line and the dashboard open HOME/store.db themselves (often
 * read-only) while the node writes it through a store_t; they read the
 * record tables only through these. db is such a connection; records
 * given to a callback are the stored bytes, not verified here. A callback
 * returns 0 to go on, non-zero to stop.
 */

/* Open HOME/store.db read-only (busy timeout 2 s): 0 or -ENOENT. */
int store_open_readonly(const char *home, sqlite3 **ret_db);
/* Whether db has the record tables at all (a store written once). */
bool store_db_exists(sqlite3 *db);
/* Number of records of kind, or -EIO. */
int64_t store_db_count_kind(sqlite3 *db, int kind);

/* Records of kind in author, seq order; those whose id skip answers true
 * for are passed over without reading their bytes. 0 or -EIO. */
typedef bool (*store_skip_fn)(void *arg, const uint8_t *id);
int store_db_records_of_kind(sqlite3 *db, int kind, store_skip_fn skip,
			     store_rec_fn fn, void *arg);
/* The one record of kind whose id starts with the hex prefix, given to fn
 * (fn's negative return is returned). -ENOENT when none, -EINVAL when
 * several match. */
int store_db_find_record(sqlite3 *db, int kind, const char *prefix,
			 store_rec_fn fn, void *arg);

/* What a request's view reads: the latest record of latest_kind of each
 * author (in no set order), then the records of kinds kind_lo..kind_hi
 * stamped at or after since_ms or written by an author named in also
 * (concatenated upper-case hex ids; "" for none), in author, seq order.
 * 0 or -EIO. */
typedef struct {
	int latest_kind;
	int kind_lo, kind_hi;
	int64_t since_ms;
	const char *also;
} store_view_q_t;
int store_db_view_records(sqlite3 *db, const store_view_q_t *q,
			  store_rec_fn fn, void *arg);

/* The full id of the one request whose id starts with the hex prefix:
 * 0, -ENOENT, or -EINVAL when several match. */
int store_db_find_request(sqlite3 *db, const char *prefix,
			  uint8_t ret_id[STORE_ID_BYTES]);
/* The bytes of request id (caller frees): 0, -ENOENT or -EIO. */
int store_db_get_request(sqlite3 *db, const uint8_t *id,
			 uint8_t **ret_bytes, size_t *ret_len);
/* Requests held, expired or not, last seen first, at most max. 0 or
 * -EIO. */
int store_db_requests(sqlite3 *db, size_t max, store_req_fn fn, void *arg);

/* Rows as stored, unchecked, for `store check`: pointers borrowed for the
 * callback's duration; a length that is not 32 is damage to report. */
typedef struct {
	const uint8_t *id, *author, *bytes;
	size_t id_len, author_len, len;
	int64_t seq;
} store_row_t;
typedef int (*store_row_fn)(void *arg, const store_row_t *row);
/* Every records row in author, seq order: 0, or -EIO when reading stopped
 * on an error (sqlite3_errcode(db) says which). */
int store_db_rows(sqlite3 *db, store_row_fn fn, void *arg);

/* A feeds row with the id of the record held at its head's seq (held:
 * NULL when none). */
typedef struct {
	const uint8_t *author, *head, *held;
	size_t author_len, head_len, held_len;
	int64_t seq;
	bool flagged;
} store_feed_row_t;
typedef int (*store_feed_row_fn)(void *arg, const store_feed_row_t *row);
/* Every feeds row in author order. 0 or -EIO. */
int store_db_feed_rows(sqlite3 *db, store_feed_row_fn fn, void *arg);

/* PRAGMA integrity_check: 0 when "ok". */
int store_check(store_t *s);

/* Give SQLite's page cache back when nothing was written since the last
 * call (an idle store); returns the bytes freed. Caches refill from the
 * OS's file cache on the next reads. */
size_t store_shrink_idle(store_t *s);

/* Bytes SQLite holds in this process (its page caches, statements). */
size_t store_mem_used(void);

#endif
