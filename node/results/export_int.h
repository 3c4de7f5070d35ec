/*
 * export_int: the per-run suite table shared by the KCIDB and JUnit
 * exporters (suite times, status, version and log blob ids).
 */
#ifndef LABMESH_NODE_EXPORT_INT_H
#define LABMESH_NODE_EXPORT_INT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "node/results/triage.h"
#include "proto/caps.h"
#include "proto/json.h"

typedef struct {
	char name[PROTO_MAX_NAME + 1];
	int status;
	int64_t duration_ms, start_ms, end_ms;
	char *logs;    /* "name hex\n"..., "" when none; owned */
	char *version; /* "" when none; owned */
	char *reason;  /* why it ended as a whole, "" when none; owned */
} export_suite_t;

typedef struct {
	export_suite_t *s;
	size_t n, alloc;
} export_suites_t;

/* The statement to prepare for export_suites_load (one ?1: the run). */
const char *export_suites_sql(void);
/* The suites of run (sorted by name) into ret, replacing what it held
 * (call export_suites_clear first). 0 or -EIO. */
int export_suites_load(sqlite3_stmt *st, int64_t run, export_suites_t *ret);
void export_suites_clear(export_suites_t *ss);
const export_suite_t *export_suite_find(const export_suites_t *ss,
					const char *name);

/* Boards' DT compatibles from the adverts (export_env.c). */
typedef struct {
	int64_t ts_ms;
	char *lab, *board, *compatible; /* compatible NULL: none known */
} export_compat_t;

typedef struct {
	export_compat_t *v;
	size_t n;
} export_compats_t;

/* Every board's compatible from its lab's latest advert in db. */
void export_compats_load(sqlite3 *db, export_compats_t *ret);
/* The compatible strings (space-separated) of lab's board, or NULL;
 * borrowed from c. */
const char *export_compatible(const export_compats_t *c, const char *lab,
			      const char *board);
void export_compats_free(export_compats_t *c);

/* Where logs are for the KCIDB exporter (export_logs.c). */
typedef struct {
	const char *log_base; /* a blob server's prefix: BASE/HEX, or NULL */
	const char *dash;     /* the dashboard: DASH/api/log?run=..., or NULL */
	const char *home;     /* whose blobs give excerpts, or NULL */
} export_logs_t;

/* The log_url of blob hex, a log of run rec (suite: of that suite; name:
 * that log of the run), or NULL when there is no base to give one. The
 * caller frees. No '//' after a base that ends in '/'. */
char *export_log_url(const export_logs_t *l, const uint8_t rec[32],
		     const char *suite, const char *name, const char *hex);
/* The lines of log blob hex (NULL: none) that report the failure of
 * case path (relative to its suite; NULL: the whole suite or build, with
 * the log's tail when no line failed), each with the diagnostics after
 * it; else msg. At most EXPORT_MAX_EXCERPT bytes; NULL when there is
 * nothing to say. The caller frees. */
char *export_log_excerpt(const export_logs_t *l, const char *hex,
			 const char *path, const char *msg);

/* Known marks as KCIDB issues and incidents (export_issues.c). */
#define EXPORT_MAX_INCIDENTS 10000
typedef struct {
	char *test_id;		    /* the KCIDB test id; owned */
	const triage_known_t *mark; /* borrowed from the triage_t */
} export_incident_t;
typedef struct {
	export_incident_t *v;
	size_t n;
} export_incidents_t;
void export_incident_add(export_incidents_t *l, const char *test_id,
			 const triage_known_t *mark);
void export_incidents_free(export_incidents_t *l);
/* "issues" (one per mark) and "incidents" (one per test) keys. */
void export_issues_write(json_t *j, const char *origin,
			 const export_incidents_t *l);

#endif
