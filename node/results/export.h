/*
 * export: results for other systems. KCIDB I/O schema v5.3 JSON for
 * KernelCI, JUnit XML for Jenkins and GitLab. Both take the same filters
 * as query and write deterministic output (same records, same bytes).
 *
 * KCIDB mapping (ids are ORIGIN:local, deterministic so re-exports merge):
 *   checkout  one per (tree URL, branch, commit), or without a commit per
 *             (kind of kernel, describe): local id = 32 hex of the BLAKE2b
 *             of those; tree_name from the URL (mainline, stable, next
 *             known), else "kernel-image" or "running-kernel";
 *             misc.kernel git/artifact/running; git_repository_url only
 *             when https (otherwise the URL goes to misc); patchset_hash "".
 *   build     one per run record: local id = the record id (64 hex);
 *             a kernel not built here is a PASS build saying so.
 *   test      one per suite (path = the suite), one per case (status as
 *             recorded) and one per metric (DONE, with number): local id
 *             = RECORD:s:SUITE, RECORD:c:PATH or RECORD:m:PATH.
 * Lab and board go in environment.misc and misc, with the record id and
 * the author node id, so provenance survives the round trip. A failure
 * has its message as comment and its failed log lines as log_excerpt.
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

/* What the KCIDB export is given. */
typedef struct {
	const char *origin;   /* [a-z0-9_]+ */
	const char *log_base; /* blob server prefix: log_url = BASE/HEX */
	const char *dash;     /* else the node's dashboard URL: log_url =
			       * DASH/api/log?run=RUN&suite=S (NULL: none) */
	const char *home;     /* the blobs for log excerpts (NULL: none) */
} export_kcidb_opts_t;

/*
 * The KCIDB v5.3 document of the runs f selects, as o says. Every
 * checkout says what is known of its kernel: the git fields, or for an
 * image or a board's own kernel a describe, with tree_name and
 * misc.kernel ("git", "artifact", "running") saying which. -ENOENT (err
 * says so) when f selects no run. Returns 0 or -errno.
 */
int export_kcidb_opts(sqlite3 *db, const query_filter_t *f,
		      const export_kcidb_opts_t *o, FILE *out, char *err,
		      size_t errsz);

/*
 * KCIDB v5.3 document of the runs f selects. log_base, when not NULL, is
 * an http(s) URL prefix under which blobs are served (log_url = log_base
 * "/" blob-hex); without it logs are named by blob id in misc only.
 * Returns 0 or -errno (err says why).
 */
int export_kcidb(sqlite3 *db, const query_filter_t *f, const char *origin,
		 const char *log_base, FILE *out, char *err, size_t errsz);

/* The number of runs f selects (run filters only). 0 or -errno. */
int export_count_runs(sqlite3 *db, const query_filter_t *f, size_t *ret_n);

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
