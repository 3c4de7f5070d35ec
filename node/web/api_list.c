/*
 * api_list: the dashboard's own small listings over the results index
 * and the store: commits with runs (the landing page's navigation),
 * metric paths (benchmark trends), a request's jobs (when this node has
 * the jobs tables) and a log blob this node holds.
 */
#include "node/web/api_int.h"
#include "node/jobs/jobs.h"
#include "node/net/ctl.h"
#include "node/results/bisectview.h"
#include "node/results/results.h"
#include "node/store/blob.h"
#include "node/store/store.h"
#include "node/store/wire.h"

#include "proto/buf.h"
#include "proto/json.h"
#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define API_JSON "application/json; charset=utf-8"
#define API_MAX_COMMITS 500  /* rows of /api/commits */
#define API_MAX_METRICS 2000 /* rows of /api/metrics */
#define API_MAX_JOBS 4096    /* rows of /api/request */
#define API_MAX_REQUESTS 200 /* rows of /api/requests */
#define API_MIN_PREFIX 4     /* hex digits of a run/request prefix */

static void s_reply_json(api_reply_t *ret, buf_t *b, json_t *j)
{
	if (json_finish(j) < 0) {
		buf_free(b);
		api_error(ret, 500, "answer too large");
		return;
	}
	ret->status = 200;
	ret->type = API_JSON;
	ret->len = b->len;
	ret->body = buf_steal(b);
}

static bool s_open(api_t *a, const api_param_t *p, size_t n, size_t allowed,
		   sqlite3 **db, api_reply_t *ret)
{
	int rc;

	if (n > allowed) {
		api_error(ret, 400, "unknown parameter");
		return false;
	}
	rc = api_db(a, db);
	if (rc < 0) {
		api_error(ret, rc == -ENOENT ? 404 : 503,
			  rc == -ENOENT ? "this node holds no results yet"
					: "cannot open the store");
		return false;
	}
	return true;
}

/*
 * The shape of every list answer: {"KEY": [rows...]} from one reader of
 * the store or the results index. Begin checks the parameters, opens the
 * connection and the array; the caller reads and writes the rows; end
 * closes it all and replies (500 when the reader failed, rc < 0).
 */
static bool s_list_begin(api_t *a, const api_param_t *p, size_t n,
			 const char *key, sqlite3 **db, buf_t *b, json_t *j,
			 api_reply_t *ret)
{
	if (!s_open(a, p, n, 0, db, ret))
		return false;
	buf_init(b, API_MAX_REPLY);
	json_init(j, b, JSON_PRETTY);
	json_obj_open(j);
	json_key(j, key);
	json_arr_open(j);
	return true;
}

static void s_list_end(int rc, buf_t *b, json_t *j, api_reply_t *ret)
{
	if (rc < 0) {
		buf_free(b);
		api_error(ret, 500, "reading the store failed");
		return;
	}
	json_arr_close(j);
	json_obj_close(j);
	s_reply_json(ret, b, j);
}

static bool s_hex_prefix(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n < API_MIN_PREFIX || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return false;
	return true;
}

/* ---- commits ---- */

static int s_commit_json(void *arg, const results_commit_t *c)
{
	json_t *j = arg;

	json_obj_open(j);
	json_key_str(j, "commit", c->commit);
	json_key_str(j, "branch", c->branch);
	json_key_str(j, "tree", c->tree);
	json_key_int(j, "end_ms", c->end_ms);
	json_key_int(j, "runs", c->runs);
	json_key_int(j, "boards", c->boards);
	json_key_int(j, "failed_runs", c->failed_runs);
	json_obj_close(j);
	return 0;
}

void api_commits(api_t *a, const api_param_t *p, size_t n, api_reply_t *ret)
{
	sqlite3 *db;
	buf_t b;
	json_t j;

	if (!s_list_begin(a, p, n, "commits", &db, &b, &j, ret))
		return;
	s_list_end(results_commits(db, API_MAX_COMMITS, s_commit_json, &j), &b,
		   &j, ret);
}

/* ---- metrics ---- */

static int s_metric_json(void *arg, const results_metric_t *m)
{
	json_t *j = arg;

	json_obj_open(j);
	json_key_str(j, "path", m->path);
	json_key_str(j, "unit", m->unit);
	json_key_int(j, "values", m->values);
	json_obj_close(j);
	return 0;
}

void api_metrics(api_t *a, const api_param_t *p, size_t n, api_reply_t *ret)
{
	sqlite3 *db;
	buf_t b;
	json_t j;

	if (!s_list_begin(a, p, n, "metrics", &db, &b, &j, ret))
		return;
	s_list_end(results_metrics(db, API_MAX_METRICS, s_metric_json, &j), &b,
		   &j, ret);
}

/* ---- the requests this node has seen ---- */

static const char *const s_kernel_kind[] = {"none", "git", "artifact"};

static void s_request_json(json_t *j, const char *id, const request_t *r)
{
	const request_kernel_t *k = &r->kernel;
	char sub[65];

	proto_hex(r->submitter, 32, sub);
	json_obj_open(j);
	json_key_str(j, "request", id);
	json_key_str(j, "submitter", sub);
	json_key_int(j, "created_ms", (int64_t)r->created_ms);
	json_key_int(j, "expires_ms", (int64_t)r->expires_ms);
	json_key_str(j, "kernel",
		     k->type <= REQUEST_KERNEL_MAX ? s_kernel_kind[k->type]
						   : "?");
	json_key_str(j, "tree", k->url);
	json_key_str(j, "branch", k->branch);
	json_key_str(j, "commit", k->commit);
	json_key_str(j, "describe", k->describe);
	json_key(j, "suites");
	json_arr_open(j);
	for (size_t i = 0; i < r->n_suites; i++)
		json_str(j, r->suites[i]);
	json_arr_close(j);
	json_obj_close(j);
}

static int s_request_row(void *arg, const uint8_t *id, const uint8_t *bytes,
			 size_t len, int64_t expires_ms)
{
	request_t *r = NULL;
	char hex[65];

	proto_hex(id, 32, hex);
	if (wire_request_decode(bytes, len, &r) == 0)
		s_request_json(arg, hex, r);
	request_destroy(&r);
	return 0;
}

/*
 * The requests in this node's store, newest first: what a submitter
 * asked of the network (the progress page of each shows the answers).
 * The store keeps unexpired requests only.
 */
void api_requests(api_t *a, const api_param_t *p, size_t n, api_reply_t *ret)
{
	sqlite3 *db;
	buf_t b;
	json_t j;

	if (!s_list_begin(a, p, n, "requests", &db, &b, &j, ret))
		return;
	s_list_end(store_db_requests(db, API_MAX_REQUESTS, s_request_row, &j),
		   &b, &j, ret);
}

/* ---- a request's jobs ---- */

/*
 * This lab's jobs of a request (jobs_list_request: one row per request and
 * board); a node without jobs.db answers 404. The other labs' progress is
 * in their records (the results matrix of the request covers what
 * finished).
 */
typedef struct {
	json_t *j;
	size_t rows;
} s_jobs_t;

static int s_job_json(void *arg, const jobs_row_t *r)
{
	s_jobs_t *c = arg;
	json_t *j = c->j;

	c->rows++;
	json_obj_open(j);
	json_key_str(j, "request", r->request);
	json_key_str(j, "board", r->board);
	json_key_str(j, "state", job_state_name(r->state));
	json_key_int(j, "priority", r->priority);
	json_key_int(j, "attempts", r->attempts);
	json_key_int(j, "created_ms", r->created_ms);
	json_key_int(j, "updated_ms", r->updated_ms);
	json_key_str(j, "text", r->text);
	json_obj_close(j);
	return 0;
}

void api_request(api_t *a, const api_param_t *p, size_t n, api_reply_t *ret)
{
	const char *id = api_param(p, n, "id");
	buf_t b;
	json_t j;
	s_jobs_t c = { &j, 0 };
	size_t rows;
	int rc;

	if (n != 1 || !s_hex_prefix(id)) {
		api_error(ret, 400, "give id, a request id (hex prefix)");
		return;
	}
	buf_init(&b, API_MAX_REPLY);
	json_init(&j, &b, JSON_PRETTY);
	json_obj_open(&j);
	json_key_str(&j, "request", id);
	json_key(&j, "jobs");
	json_arr_open(&j);
	rc = jobs_list_request(a->home, id, API_MAX_JOBS, s_job_json, &c);
	if (rc == -ENOENT) {
		buf_free(&b);
		api_error(ret, 404, "this node keeps no jobs");
		return;
	}
	if (rc < 0) {
		buf_free(&b);
		api_error(ret, 404, "this node keeps no jobs table");
		return;
	}
	rows = c.rows;
	if (rows == 0) {
		/* Every node keeps a jobs queue; this one ran none of it. */
		buf_free(&b);
		api_error(ret, 404, "this node keeps no jobs of that request");
		return;
	}
	json_arr_close(&j);
	json_obj_close(&j);
	s_reply_json(ret, &b, &j);
}

/* ---- logs ---- */

/* The blob id of log `name` (NULL: the first) in "name hex\n" lines. */
static bool s_pick_log(const char *logs, const char *name, char hex[65])
{
	const char *line = logs;

	while (line && *line) {
		const char *sp = strchr(line, ' '), *nl = strchr(line, '\n');

		if (!nl)
			nl = line + strlen(line);
		if (sp && sp < nl && nl - sp - 1 == 64 &&
		    (!name || (size_t)(sp - line) == strlen(name)) &&
		    (!name || !strncmp(line, name, (size_t)(sp - line)))) {
			memcpy(hex, sp + 1, 64);
			hex[64] = '\0';
			return true;
		}
		line = *nl ? nl + 1 : NULL;
	}
	return false;
}

/* Read the blob (verified against its id); 0, -ENOENT, -EFBIG, -EIO. */
static int s_read_blob(const char *home, const char hex[65], char **ret,
		       size_t *ret_len)
{
	char *path = xasprintf("%s/blobs/%.2s/%s", home, hex, hex);
	uint8_t want[32], got[32];
	struct stat sb;
	char *data;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	free(path);
	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_size > API_MAX_LOG) {
		close(fd);
		return -EFBIG;
	}
	data = xmalloc((size_t)sb.st_size + 1);
	r = read(fd, data, (size_t)sb.st_size);
	close(fd);
	if (r != sb.st_size || proto_unhex(hex, want, 32) < 0) {
		free(data);
		return -EIO;
	}
	crypto_generichash(got, 32, (const uint8_t *)data, (size_t)r, NULL, 0);
	if (sodium_memcmp(got, want, 32) != 0) {
		free(data);
		return -EIO;
	}
	data[r] = '\0';
	blob_touch(home, want); /* read: last used now (store gc) */
	*ret = data;
	*ret_len = (size_t)r;
	return 0;
}

/*
 * A log this node lacks: ask the node to fetch it from its peers (the
 * blob transfer the jobs use for kernels). The answer is 202 with
 * {"fetching": message, "lab": lab, "blob": id} while it travels, so the
 * page can say who holds it and ask again; 200 with the text once here.
 */
static int s_fetch_log(api_t *a, const char *hex, const char *lab,
		       api_reply_t *ret)
{
	char *body = NULL, *msg;
	bool ok = false, busy;
	buf_t b;
	json_t j;

	if (!ctl_running(a->home) ||
	    api_ctl(a->home, "blob-fetch", hex, &ok, &body) < 0) {
		api_error(ret, 503,
			  "this node does not hold that log and its"
			  " node does not answer to fetch it");
		return -EIO;
	}
	if (ok && !strncmp(body, "have ", 5)) {
		free(body);
		return 0; /* arrived meanwhile: read it */
	}
	busy = ok && !strncmp(body, "busy", 4);
	free(body);
	if (!ok) {
		msg = xasprintf("the log is held by lab %.64s, which no peer"
				" of this node can reach now",
				lab);
		api_error(ret, 404, msg);
		free(msg);
		return -ENOENT;
	}
	msg = xasprintf(busy ? "the log is held by lab %.64s: this node is"
			       " fetching other logs, asking again"
			     : "the log is held by lab %.64s: fetching it"
			       " from the network",
			lab);
	buf_init(&b, API_MAX_REPLY);
	json_init(&j, &b, JSON_PRETTY);
	json_obj_open(&j);
	json_key_str(&j, "fetching", msg);
	json_key_str(&j, "lab", lab);
	json_key_str(&j, "blob", hex);
	json_obj_close(&j);
	free(msg);
	s_reply_json(ret, &b, &j);
	if (ret->status == 200)
		ret->status = 202;
	return -EINPROGRESS;
}

static void s_log_error(api_reply_t *ret, int rc)
{
	if (rc == -ENOENT)
		api_error(ret, 404, "this node does not hold that log");
	else if (rc == -EFBIG)
		api_error(ret, 413,
			  "the log is too large to show here: use"
			  " labmesh log");
	else
		api_error(ret, 500, "the log blob is unreadable or damaged");
}

void api_log(api_t *a, const api_param_t *p, size_t n, api_reply_t *ret)
{
	const char *run = api_param(p, n, "run");
	const char *suite = api_param(p, n, "suite");
	const char *name = api_param(p, n, "name");
	char hex[65], *logs = NULL, *lab = NULL, *data;
	sqlite3 *db;
	size_t len;
	int rc;

	if (!s_open(a, p, n, (size_t)1 + !!suite + !!name, &db, ret))
		return;
	if (!s_hex_prefix(run)) {
		api_error(ret, 400, "give run, a run id (hex prefix)");
		return;
	}
	rc = results_find_logs(db, run, suite, &logs, &lab);
	if (rc < 0) {
		api_error(ret, rc == -EINVAL ? 400 : 404,
			  rc == -EINVAL
				  ? "several runs match: give more of the id"
				  : "no such run or suite");
		return;
	}
	if (!logs || !s_pick_log(logs, name, hex)) {
		free(logs);
		free(lab);
		api_error(ret, 404, "no such log in this run");
		return;
	}
	free(logs);
	rc = s_read_blob(a->home, hex, &data, &len);
	if (rc == -ENOENT) {
		/* not here (yet): fetching, or why not, is the answer */
		if (s_fetch_log(a, hex, lab, ret) < 0) {
			free(lab);
			return;
		}
		rc = s_read_blob(a->home, hex, &data, &len);
	}
	free(lab);
	if (rc < 0) {
		s_log_error(ret, rc);
		return;
	}
	ret->status = 200;
	ret->type = "text/plain; charset=utf-8";
	ret->body = data;
	ret->len = len;
}

/* ---- bisections: what bisect --list / --show ID --json print ---- */

static void s_bisect_reply(record_t *const *v, size_t k, bool array,
			   api_reply_t *ret)
{
	buf_t b;

	buf_init(&b, API_MAX_REPLY);
	if (bisectview_json_of(v, k, array, &b) < 0) {
		buf_free(&b);
		api_error(ret, 413, "answer too large");
		return;
	}
	ret->status = 200;
	ret->type = API_JSON;
	ret->len = b.len;
	ret->body = buf_steal(&b);
}

void api_bisections(api_t *a, const api_param_t *p, size_t n,
		    api_reply_t *ret)
{
	record_t **v = NULL;
	size_t k = 0;
	sqlite3 *db;

	if (!s_open(a, p, n, 0, &db, ret))
		return;
	if (bisectview_all(db, &v, &k) < 0) {
		api_error(ret, 500, "reading the store failed");
		return;
	}
	s_bisect_reply(v, k, true, ret);
	bisectview_free(v, k);
}

void api_bisect(api_t *a, const api_param_t *p, size_t n, api_reply_t *ret)
{
	const char *id = api_param(p, n, "id");
	record_t *rec = NULL;
	sqlite3 *db;
	int rc;

	if (n != 1 || !id || !bisectview_prefix_ok(id)) {
		api_error(ret, 400, "give id, 6 to 64 hex digits of a"
			  " bisection");
		return;
	}
	if (!s_open(a, p, n, 1, &db, ret))
		return;
	rc = bisectview_find(db, NULL, id, &rec);
	if (rc < 0) {
		api_error(ret, rc == -ENOENT ? 404 : rc == -EINVAL ? 400 : 500,
			  rc == -ENOENT ? "no such bisection in this node's"
			  " store" : rc == -EINVAL ? "several bisections match:"
			  " give more of the id" : "reading the store failed");
		return;
	}
	s_bisect_reply(&rec, 1, false, ret);
	record_destroy(&rec);
}
