/*
 * export_int: the per-run suite table shared by the KCIDB and JUnit
 * exporters (suite times, status, version and log blob ids).
 */
#ifndef LABMESH_NODE_EXPORT_INT_H
#define LABMESH_NODE_EXPORT_INT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/caps.h"

typedef struct {
	char name[PROTO_MAX_NAME + 1];
	int status;
	int64_t duration_ms, start_ms, end_ms;
	char *logs;    /* "name hex\n"..., "" when none; owned */
	char *version; /* "" when none; owned */
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

#endif
