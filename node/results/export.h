/*
 * export: results for other systems. KCIDB I/O schema v5.3 JSON for
 * KernelCI, JUnit XML for Jenkins and GitLab. Both take the same filters
 * as query and write deterministic output (same records, same bytes).
 *
 * KCIDB mapping (ids are ORIGIN:local, deterministic so re-exports merge):
 *   checkout  one per (tree URL, branch, commit): local id = 32 hex of the
 *             BLAKE2b of those three; git_repository_url only when https
 *             (otherwise the URL goes to misc); patchset_hash "".
 *   build     one per run record: local id = the record id (64 hex).
 *   test      one per suite (path = the suite), one per case (status as
 *             recorded) and one per metric (DONE, with number): local id
 *             = RECORD:s:SUITE, RECORD:c:PATH or RECORD:m:PATH.
 * Lab and board go in environment.misc and misc, with the record id and
 * the author node id, so provenance survives the round trip.
 */
#ifndef LABMESH_NODE_EXPORT_H
#define LABMESH_NODE_EXPORT_H

#include "node/results/query.h"

#include "proto/buf.h"

#include <stdbool.h>
#include <stdio.h>

#define EXPORT_MAX_ORIGIN 64
#define EXPORT_DEFAULT_ORIGIN "labmesh"
#define EXPORT_MAX_EXCERPT 16384 /* KCIDB's cap on excerpts */

/* [a-z0-9_]+, 1..EXPORT_MAX_ORIGIN bytes. */
bool export_origin_ok(const char *origin);

/*
 * KCIDB v5.3 document of the runs f selects. log_base, when not NULL, is
 * an http(s) URL prefix under which blobs are served (log_url = log_base
 * "/" blob-hex); without it logs are named by blob id in misc only.
 * Returns 0 or -errno (err says why).
 */
int export_kcidb(sqlite3 *db, const query_filter_t *f, const char *origin,
		 const char *log_base, FILE *out, char *err, size_t errsz);

/* JUnit XML: one testsuite per run and suite. 0 or -errno. */
int export_junit(sqlite3 *db, const query_filter_t *f, FILE *out, char *err,
		 size_t errsz);

/* Append s to b escaped for XML text or attribute values: entities for
 * & < > " ', invalid UTF-8 and characters XML 1.0 forbids as U+FFFD,
 * tab/newline/CR as character references. 0 or -ENOSPC. */
int export_xml_escape(buf_t *b, const char *s);

/* Rewrite s in place into a KCIDB path: segments [A-Za-z0-9_-]+ joined
 * by single dots (other bytes become '_', empty segments dropped). */
void export_kcidb_path(char *s);

#endif
