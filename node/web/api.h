/*
 * api: the dashboard's read-only JSON API, independent of the HTTP
 * library (node/web/http.c parses requests, applies the caps and calls
 * api_handle; tests and fuzzers can call it directly).
 *
 * Endpoints (GET only; parameters are the `labmesh` options without the
 * dashes: commit branch tree board lab arch suite path status since run
 * request):
 *   /api/query     FILTERS [view=matrix|list]   = labmesh query --json
 *   /api/compare   base new FILTERS [threshold] = labmesh compare --json
 *   /api/history   path FILTERS                 = labmesh history --json
 *   /api/boards    /api/peers    /api/status    the running node's answers
 *                                               (control socket)
 *   /api/commits   commits with runs, latest first
 *   /api/metrics   metric paths with their units
 *   /api/request   id     this lab's jobs of a request, from HOME/jobs.db
 *                         (404 when this node keeps no jobs)
 *   /api/requests  the requests in this node's store, newest first
 *   /api/progress  id     every lab's answer and progress of a request
 *                         = labmesh status ID --json
 *   /api/log       run [suite] [name]   a log blob, as text/plain; one
 *                         this node lacks is fetched from its peers
 *                         through the running node: 202 with
 *                         {"fetching": text, "lab", "blob"} meanwhile
 * The query, compare and history answers are produced by the same
 * functions as the commands, so they are byte-identical to their --json
 * output. Errors are {"error": "one line"} with a 4xx/5xx status.
 *
 * One api_t belongs to one thread: it owns that thread's read-only
 * SQLite connection to HOME/store.db (opened on first use).
 */
#ifndef LABMESH_NODE_API_H
#define LABMESH_NODE_API_H

#include <stdbool.h>
#include <stddef.h>

#define API_MAX_PARAMS 24		 /* query parameters per request */
#define API_MAX_REPLY (64 * 1024 * 1024) /* larger answers: 413 */
#define API_MAX_LOG (16 * 1024 * 1024)	 /* log blobs served up to this */

typedef struct api api_t;

typedef struct {
	const char *key, *value; /* borrowed, NUL-terminated */
} api_param_t;

typedef struct {
	int status;	  /* HTTP status */
	const char *type; /* Content-Type (static string) */
	char *body;	  /* caller frees */
	size_t len;
} api_reply_t;

/* An API for the store in home (borrowed; must outlive the api). */
api_t *api_new(const char *home);
void api_destroy(api_t **p);

/*
 * Answer GET path (starting "/api/") with the given parameters. Always
 * fills *ret (status 200 with JSON, or an error object). Returns 0, or
 * -ENOENT when path is not an API endpoint at all.
 */
int api_handle(api_t *a, const char *path, const api_param_t *params,
	       size_t n_params, api_reply_t *ret);

/* {"error": msg} with status; for the HTTP layer's own refusals. */
void api_error(api_reply_t *ret, int status, const char *msg);

#endif
