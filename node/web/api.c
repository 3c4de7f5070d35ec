/*
 * api: the dashboard's JSON answers. Laid out as: parameters -> filter,
 * the store connection (read-only, the index caught up like the commands
 * do), the endpoints that call the query functions into a memory stream,
 * the endpoints that ask the running node over its control socket, and
 * the few small listings of our own (commits, metrics, request, log).
 */
#include "node/web/api.h"
#include "node/web/api_int.h"
#include "node/jobs/jobs.h"
#include "node/net/ctl.h"
#include "node/results/reqview.h"
#include "node/results/query.h"
#include "node/results/results.h"

#include "proto/buf.h"
#include "proto/json.h"
#include "proto/mem.h"

#include <czmq.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int results_lag(sqlite3 *db); /* results.c */

#define API_JSON "application/json; charset=utf-8"
#define API_CTL_TIMEOUT_MS 5000

api_t *api_new(const char *home)
{
	api_t *a = xzalloc(sizeof(*a));

	a->home = home;
	return a;
}

void api_destroy(api_t **p)
{
	api_t *a = *p;

	if (!a)
		return;
	if (a->db)
		sqlite3_close(a->db);
	free(a);
	*p = NULL;
}

void api_error(api_reply_t *ret, int status, const char *msg)
{
	buf_t b;
	json_t j;

	buf_init(&b, 0);
	json_init(&j, &b, JSON_PRETTY);
	json_obj_open(&j);
	json_key_str(&j, "error", msg);
	json_obj_close(&j);
	json_finish(&j);
	ret->status = status;
	ret->type = API_JSON;
	ret->len = b.len;
	ret->body = buf_steal(&b);
}

/* ---- parameters ---- */

const char *api_param(const api_param_t *p, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(p[i].key, key))
			return p[i].value;
	return NULL;
}

static int64_t s_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char **s_filter_field(query_filter_t *f, const char *key)
{
	static const struct {
		const char *key;
		size_t off;
	} fields[] = {
		{"commit", offsetof(query_filter_t, commit)},
		{"branch", offsetof(query_filter_t, branch)},
		{"tree", offsetof(query_filter_t, tree)},
		{"board", offsetof(query_filter_t, board)},
		{"lab", offsetof(query_filter_t, lab)},
		{"arch", offsetof(query_filter_t, arch)},
		{"suite", offsetof(query_filter_t, suite)},
		{"path", offsetof(query_filter_t, path)},
		{"run", offsetof(query_filter_t, run)},
		{"request", offsetof(query_filter_t, request)},
	};

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strcmp(fields[i].key, key))
			return (const char **)((char *)f + fields[i].off);
	return NULL;
}

static bool s_filter_key(const char *key)
{
	query_filter_t f;

	return s_filter_field(&f, key) || !strcmp(key, "status") ||
	       !strcmp(key, "since");
}

/* Set one filter field (keys of s_filter_key; others are left alone). */
static int s_filter_set(query_filter_t *f, const char *key, const char *val)
{
	const char **field = s_filter_field(f, key);

	if (field) {
		*field = val;
		return 0;
	}
	if (!strcmp(key, "status"))
		return query_parse_status(val, &f->status_mask);
	if (!strcmp(key, "since")) {
		f->has_since = true;
		return query_parse_since(val, s_now_ms(), &f->since_ms);
	}
	return 0;
}

/*
 * The filter from the parameters; keys in extra are the endpoint's own.
 * Unknown or repeated keys and bad values are refused (err says which),
 * as the commands refuse unknown options.
 */
int api_filter(const api_param_t *p, size_t n, const char *const *extra,
	       query_filter_t *ret, char *err, size_t errsz)
{
	query_filter_t f = {0};

	for (size_t i = 0; i < n; i++) {
		bool known = s_filter_key(p[i].key);

		for (size_t k = 0; extra && extra[k] && !known; k++)
			known = !strcmp(extra[k], p[i].key);
		for (size_t k = 0; k < i && known; k++)
			if (!strcmp(p[k].key, p[i].key))
				known = false;
		if (!known) {
			snprintf(err, errsz,
				 "unknown or repeated parameter '%.64s'",
				 p[i].key);
			return -EINVAL;
		}
		if (strlen(p[i].value) > QUERY_MAX_ARG) {
			snprintf(err, errsz, "parameter '%.64s' too long",
				 p[i].key);
			return -EINVAL;
		}
		if (s_filter_set(&f, p[i].key, p[i].value) < 0) {
			snprintf(err, errsz, "bad %.64s", p[i].key);
			return -EINVAL;
		}
	}
	*ret = f;
	return 0;
}

/* ---- the store ---- */

/*
 * The read-only connection of this thread. Records that arrived since
 * the index was last brought up to date are indexed first, through a
 * short-lived read-write connection, exactly as `labmesh query` does:
 * the index is a cache of the records, so this writes nothing new.
 */
static void s_catch_up(const char *home)
{
	sqlite3 *rw;

	if (results_open(home, true, &rw) < 0)
		return;
	if (results_schema(rw) == 0)
		results_catch_up(rw);
	sqlite3_close(rw);
}

int api_db(api_t *a, sqlite3 **ret)
{
	int rc;

	if (!a->db) {
		rc = results_open(a->home, false, &a->db);
		if (rc < 0)
			return rc;
	}
	/* a node with no runs yet has no index tables either */
	if (!results_has_index(a->db) || results_lag(a->db) > 0)
		s_catch_up(a->home);
	*ret = a->db;
	return 0;
}

static int s_errno_status(int rc)
{
	switch (rc) {
	case -ENOENT:
		return 404;
	case -EINVAL:
		return 400;
	default:
		return 500;
	}
}

/* ---- the query functions, into memory ---- */

typedef enum { S_MATRIX, S_LIST, S_COMPARE, S_HISTORY, S_STATUS } s_view_t;

typedef struct {
	s_view_t view;
	const char *a, *b; /* compare base/new, history path */
	double threshold;
	uint8_t request[32]; /* S_STATUS */
	const char *home;    /* S_STATUS: whose jobs.db adds its own lab */
} s_call_t;

/* The request's view, with why this node's own lab kept silent on it. */
static int s_status(sqlite3 *db, const s_call_t *c, FILE *out)
{
	reqview_t v = { 0 };
	int rc = reqview_collect(db, c->request, &v);

	if (rc == 0) {
		jobs_silent_view(c->home, c->request, &v);
		reqview_json(&v, c->request, out);
	}
	reqview_free(&v);
	return rc;
}

static int s_call(sqlite3 *db, const s_call_t *c, const query_filter_t *f,
		  FILE *out, char *err, size_t errsz)
{
	switch (c->view) {
	case S_MATRIX:
		return query_matrix(db, f, true, out, err, errsz);
	case S_LIST:
		return query_list(db, f, true, out, err, errsz);
	case S_COMPARE:
		return query_compare(db, c->a, c->b, f, c->threshold, true, out,
				     err, errsz);
	case S_STATUS:
		return s_status(db, c, out);
	default:
		return query_history(db, c->a, f, true, out, err, errsz);
	}
}

/*
 * The answer is written into a buffer capped at API_MAX_REPLY: a write
 * past the cap fails, so the query stops early instead of building an
 * answer of any size in memory first.
 */
typedef struct {
	buf_t b;
	bool full;
} s_capped_t;

static ssize_t s_capped_write(void *cookie, const char *p, size_t n)
{
	s_capped_t *c = cookie;

	if (c->full || buf_append(&c->b, p, n) < 0) {
		c->full = true;
		errno = EFBIG;
		return -1;
	}
	return (ssize_t)n;
}

static void s_run_query(api_t *a, const s_call_t *c, const query_filter_t *f,
			api_reply_t *ret)
{
	char err[256] = "";
	s_capped_t cap = {.full = false};
	sqlite3 *db;
	FILE *out;
	int rc;

	rc = api_db(a, &db);
	if (rc < 0) {
		api_error(ret, rc == -ENOENT ? 404 : 503,
			  rc == -ENOENT ? "this node holds no results yet"
					: "cannot open the store");
		return;
	}
	buf_init(&cap.b, API_MAX_REPLY);
	out = fopencookie(&cap, "w",
			  (cookie_io_functions_t){.write = s_capped_write});
	if (!out) {
		buf_free(&cap.b);
		api_error(ret, 500, "out of memory");
		return;
	}
	rc = s_call(db, c, f, out, err, sizeof(err));
	if ((fclose(out) != 0 || cap.full) && rc >= 0)
		rc = -EFBIG;
	if (rc < 0) {
		buf_free(&cap.b);
		if (cap.full)
			api_error(ret, 413, "answer too large: narrow it");
		else
			api_error(ret, s_errno_status(rc),
				  *err ? err : strerror(-rc));
		return;
	}
	ret->status = 200;
	ret->type = API_JSON;
	ret->len = cap.b.len;
	ret->body = buf_steal(&cap.b);
}

static void s_query(api_t *a, const api_param_t *p, size_t n, api_reply_t *ret)
{
	static const char *const extra[] = {"view", NULL};
	const char *view = api_param(p, n, "view");
	s_call_t c = {0};
	query_filter_t f;
	char err[160];

	if (api_filter(p, n, extra, &f, err, sizeof(err)) < 0) {
		api_error(ret, 400, err);
		return;
	}
	if (!view)
		c.view = f.commit ? S_MATRIX : S_LIST;
	else if (!strcmp(view, "matrix"))
		c.view = S_MATRIX;
	else if (!strcmp(view, "list"))
		c.view = S_LIST;
	else
		c.view = (s_view_t)-1;
	if ((int)c.view < 0) {
		api_error(ret, 400, "view is matrix or list");
		return;
	}
	s_run_query(a, &c, &f, ret);
}

static void s_compare(api_t *a, const api_param_t *p, size_t n,
		      api_reply_t *ret)
{
	static const char *const extra[] = {"base", "new", "threshold", NULL};
	const char *thr = api_param(p, n, "threshold");
	s_call_t c = {.view = S_COMPARE, .threshold = 10.0};
	query_filter_t f;
	char err[160];

	if (api_filter(p, n, extra, &f, err, sizeof(err)) < 0) {
		api_error(ret, 400, err);
		return;
	}
	c.a = api_param(p, n, "base");
	c.b = api_param(p, n, "new");
	if (!c.a || !c.b || !*c.a || !*c.b) {
		api_error(ret, 400, "give base and new");
		return;
	}
	if (thr && query_parse_threshold(thr, &c.threshold) < 0) {
		api_error(ret, 400, "bad threshold");
		return;
	}
	s_run_query(a, &c, &f, ret);
}

static void s_history(api_t *a, const api_param_t *p, size_t n,
		      api_reply_t *ret)
{
	static const char *const extra[] = {"test", NULL};
	s_call_t c = {.view = S_HISTORY};
	query_filter_t f;
	char err[160];

	/* the test is "test" here, since "path" is the filter */
	if (api_filter(p, n, extra, &f, err, sizeof(err)) < 0) {
		api_error(ret, 400, err);
		return;
	}
	c.a = api_param(p, n, "test");
	if (!c.a || !*c.a) {
		api_error(ret, 400, "give test (a suite.path)");
		return;
	}
	s_run_query(a, &c, &f, ret);
}

/*
 * Where a request stands in every lab (answers, each board's latest
 * event, its run), from the records this node holds: what `labmesh
 * status REQUEST --json` prints, so a node that runs none of the jobs
 * still shows their progress.
 */
static void s_progress(api_t *a, const api_param_t *p, size_t n,
		       api_reply_t *ret)
{
	const char *id = api_param(p, n, "id");
	s_call_t c = {.view = S_STATUS, .home = a->home};
	query_filter_t f = {0};
	int rc;

	if (n != 1 || !id) {
		api_error(ret, 400, "give id, a request id (hex prefix)");
		return;
	}
	rc = reqview_find(a->home, id, c.request);
	if (rc < 0) {
		api_error(ret, rc == -ENOENT ? 404 : 400,
			  rc == -ENOENT ? "no such request in this node's store"
			  : rc == -EINVAL ? "several requests match: give more"
					    " of the id"
					  : "a request id is 6 to 64 hex digits");
		return;
	}
	s_run_query(a, &c, &f, ret);
}

/* ---- answers of the running node ---- */

/*
 * Ask the node's control socket, as `labmesh peers --json` does, but
 * with ctl_ask rather than ctl_call: ctl_call's process-wide czmq
 * settings turn off czmq's signal handling, which the node's loop relies
 * on to stop cleanly.
 */
int api_ctl(const char *home, const char *command, const char *arg,
	    bool *ret_ok, char **ret_body)
{
	return ctl_ask(home, command, true, arg ? 1 : 0, &arg, NULL,
		       API_CTL_TIMEOUT_MS, ret_ok, ret_body);
}

static void s_ctl(api_t *a, const char *command, const api_param_t *p, size_t n,
		  api_reply_t *ret)
{
	char *body = NULL;
	bool ok = false;

	if (n) {
		api_error(ret, 400, "no parameters here");
		return;
	}
	if (!ctl_running(a->home) ||
	    api_ctl(a->home, command, NULL, &ok, &body) < 0) {
		api_error(ret, 503, "the node does not answer");
		return;
	}
	if (!ok) {
		api_error(ret, 500, body);
		free(body);
		return;
	}
	ret->status = 200;
	ret->type = API_JSON;
	ret->body = body;
	ret->len = strlen(body);
}

/* ---- routing ---- */

int api_handle(api_t *a, const char *path, const api_param_t *params,
	       size_t n_params, api_reply_t *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (n_params > API_MAX_PARAMS) {
		api_error(ret, 400, "too many parameters");
		return 0;
	}
	if (!strcmp(path, "/api/query"))
		s_query(a, params, n_params, ret);
	else if (!strcmp(path, "/api/compare"))
		s_compare(a, params, n_params, ret);
	else if (!strcmp(path, "/api/history"))
		s_history(a, params, n_params, ret);
	else if (!strcmp(path, "/api/boards"))
		s_ctl(a, "boards", params, n_params, ret);
	else if (!strcmp(path, "/api/peers"))
		s_ctl(a, "peers", params, n_params, ret);
	else if (!strcmp(path, "/api/status"))
		s_ctl(a, "status", params, n_params, ret);
	else if (!strcmp(path, "/api/commits"))
		api_commits(a, params, n_params, ret);
	else if (!strcmp(path, "/api/metrics"))
		api_metrics(a, params, n_params, ret);
	else if (!strcmp(path, "/api/request"))
		api_request(a, params, n_params, ret);
	else if (!strcmp(path, "/api/requests"))
		api_requests(a, params, n_params, ret);
	else if (!strcmp(path, "/api/progress"))
		s_progress(a, params, n_params, ret);
	else if (!strcmp(path, "/api/log"))
		api_log(a, params, n_params, ret);
	else if (!strcmp(path, "/api/bisections"))
		api_bisections(a, params, n_params, ret);
	else if (!strcmp(path, "/api/bisect"))
		api_bisect(a, params, n_params, ret);
	else
		return -ENOENT;
	return 0;
}
