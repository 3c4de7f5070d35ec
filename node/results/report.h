/*
 * report: `labmesh report COMMIT|REQUEST`, a plain-text summary of one
 * commit's (or request's) results a maintainer can mail to a list:
 * builds, boots and tests per arch, the new regressions (tests that
 * failed where the board's previous run passed them) with their
 * confirmation verdict, the failures known marks cover, and the runs,
 * each with a link to the dashboard when one is known.
 */
#ifndef LABMESH_NODE_REPORT_H
#define LABMESH_NODE_REPORT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Write the report of arg (a commit hex prefix, else a request id
 * prefix; at least 4 hex digits) to out. dash: the dashboard's base URL
 * ("http://host:port") for links, or NULL. now_ms: for known marks'
 * expiry. Returns the number of new regressions not covered by a known
 * mark (0: none), or -EINVAL / -ENOENT / -EIO with err set.
 */
int report_write(sqlite3 *db, const char *arg, const char *dash,
		 int64_t now_ms, FILE *out, char *err, size_t errsz);

#endif
