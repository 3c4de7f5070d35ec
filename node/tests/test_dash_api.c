/*
 * test_dash_api: the dashboard API called directly (no HTTP) on a home
 * filled with synthetic signed runs: its query answers are the query
 * functions' own --json bytes, and each refusal has its status and a
 * JSON error. Runs under the sanitizers with the unit tests.
 */
#include "node/web/api.h"
#include "node/results/query.h"
#include "node/results/results.h"
#include "node/results/results_synth.h"

#include "proto/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int s_fails;

#define CHECK(cond, what)                                                      \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__,          \
				__LINE__, what);                               \
			s_fails++;                                             \
		}                                                              \
	} while (0)

static char *s_expect(const char *home, const query_filter_t *f, bool matrix,
		      size_t *ret_len)
{
	char err[256], *body = NULL;
	sqlite3 *db;
	FILE *out = open_memstream(&body, ret_len);

	if (results_open(home, false, &db) == 0) {
		if (matrix)
			query_matrix(db, f, true, out, err, sizeof(err));
		else
			query_list(db, f, true, out, err, sizeof(err));
		sqlite3_close(db);
	}
	fclose(out);
	return body;
}

static int s_status(api_t *a, const char *path, const api_param_t *p, size_t n)
{
	api_reply_t r;
	int st;

	if (api_handle(a, path, p, n, &r) < 0)
		return -1;
	st = r.status;
	CHECK(r.body && r.type, "a reply has a body and a type");
	if (st != 200)
		CHECK(strstr(r.body, "\"error\": ") &&
			      !strncmp(r.type, "application/json", 16),
		      "errors are JSON objects");
	free(r.body);
	return st;
}

static void s_same(api_t *a, const char *home, const api_param_t *p, size_t n,
		   const query_filter_t *f, bool matrix)
{
	api_reply_t r;
	size_t len;
	char *want = s_expect(home, f, matrix, &len);

	CHECK(api_handle(a, "/api/query", p, n, &r) == 0 && r.status == 200,
	      "query answers 200");
	CHECK(r.len == len && !memcmp(r.body, want, len),
	      "query answer is the query function's --json output");
	free(r.body);
	free(want);
}

static void s_refusals(api_t *a)
{
	api_param_t many[API_MAX_PARAMS + 1];

	for (size_t i = 0; i < API_MAX_PARAMS + 1; i++)
		many[i] = (api_param_t){"lab", "x"};
	CHECK(s_status(a, "/api/query", many, API_MAX_PARAMS + 1) == 400,
	      "too many parameters");
	CHECK(s_status(a, "/api/query", (api_param_t[]){{"colour", "red"}},
		       1) == 400,
	      "unknown parameter");
	CHECK(s_status(a, "/api/query", (api_param_t[]){{"view", "pie"}}, 1) ==
		      400,
	      "bad view");
	CHECK(s_status(a, "/api/query", (api_param_t[]){{"status", "GOOD"}},
		       1) == 400,
	      "bad status");
	CHECK(s_status(a, "/api/compare", (api_param_t[]){{"base", "abcd"}},
		       1) == 400,
	      "compare without new");
	CHECK(s_status(a, "/api/compare",
		       (api_param_t[]){{"base", "abcd"}, {"new", "ef01"}},
		       2) == 404,
	      "compare of unknown ids");
	CHECK(s_status(a, "/api/history", NULL, 0) == 400, "history, no test");
	CHECK(s_status(a, "/api/request", (api_param_t[]){{"id", "abab"}}, 1) ==
		      404,
	      "no jobs.db");
	CHECK(s_status(a, "/api/log", (api_param_t[]){{"run", "zz"}}, 1) == 400,
	      "log of a non-hex run");
	CHECK(s_status(a, "/api/log", (api_param_t[]){{"run", "abcdef"}}, 1) ==
		      404,
	      "log of no run");
	CHECK(s_status(a, "/api/boards", NULL, 0) == 503, "no node running");
	CHECK(s_status(a, "/api/nothing", NULL, 0) == -1, "not an endpoint");
	CHECK(s_status(a, "/api/commits", NULL, 0) == 200, "commits");
	CHECK(s_status(a, "/api/metrics", NULL, 0) == 200, "metrics");
}

int main(void)
{
	char home[] = "/tmp/lm-dash-api-XXXXXX", c0[41], *cmd;
	synth_params_t sp;
	api_reply_t r;
	uint64_t n;
	api_t *a;

	if (!mkdtemp(home))
		return 1;
	synth_params_default(&sp);
	if (synth_dataset(home, &sp, true, &n) < 0)
		return 1;
	synth_commit(0, c0);
	a = api_new(home);

	s_same(a, home, (api_param_t[]){{"commit", c0}}, 1,
	       &(query_filter_t){.commit = c0}, true);
	s_same(a, home,
	       (api_param_t[]){
		       {"lab", "lab-b"}, {"suite", "suite1"}, {"view", "list"}},
	       3, &(query_filter_t){.lab = "lab-b", .suite = "suite1"}, false);
	s_refusals(a);

	api_error(&r, 400, "a \"quote\"\n<tag>");
	CHECK(!strcmp(r.body,
		      "{\n  \"error\": \"a \\\"quote\\\"\\n<tag>\"\n}\n"),
	      "error text is JSON-escaped");
	free(r.body);

	api_destroy(&a);
	CHECK(a == NULL, "destroy clears the pointer");
	cmd = xasprintf("rm -rf '%s'", home);
	if (system(cmd) != 0)
		s_fails++;
	free(cmd);
	printf("%s\n", s_fails ? "FAIL" : "ok");
	return s_fails ? 1 : 0;
}
