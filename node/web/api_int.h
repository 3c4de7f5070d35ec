/*
 * api_int: what api.c and api_list.c share: the api object, parameter
 * and filter helpers, and the listing endpoints of api_list.c.
 */
#ifndef LABMESH_NODE_API_INT_H
#define LABMESH_NODE_API_INT_H

#include "node/web/api.h"
#include "node/results/query.h"

#include <sqlite3.h>

struct api {
	const char *home; /* borrowed */
	sqlite3 *db;	  /* this thread's read-only connection, or NULL */
};

/* The value of key, or NULL (the first when repeated). */
const char *api_param(const api_param_t *p, size_t n, const char *key);
/* Filter from parameters; extra: NULL-ended list of other allowed keys.
 * 0, or -EINVAL with err set. */
int api_filter(const api_param_t *p, size_t n, const char *const *extra,
	       query_filter_t *ret, char *err, size_t errsz);
/* The thread's connection, index caught up. 0 or -errno. */
int api_db(api_t *a, sqlite3 **ret);

/*
 * Ask the running node's control socket (command [arg], as the commands
 * do, but without ctl_call's process-wide czmq settings). 0 with
 * *ret_ok and *ret_body (the caller frees), or -errno when no node
 * answers.
 */
int api_ctl(const char *home, const char *command, const char *arg,
	    bool *ret_ok, char **ret_body);

void api_commits(api_t *a, const api_param_t *p, size_t n, api_reply_t *ret);
void api_metrics(api_t *a, const api_param_t *p, size_t n, api_reply_t *ret);
void api_requests(api_t *a, const api_param_t *p, size_t n, api_reply_t *ret);
void api_request(api_t *a, const api_param_t *p, size_t n, api_reply_t *ret);
void api_log(api_t *a, const api_param_t *p, size_t n, api_reply_t *ret);
void api_bisections(api_t *a, const api_param_t *p, size_t n,
		    api_reply_t *ret);
void api_bisect(api_t *a, const api_param_t *p, size_t n, api_reply_t *ret);

#endif
