/*
 * fuzz_dash_api: hostile query strings through the dashboard's API. The
 * input's first byte picks the endpoint, the rest is a query string
 * ("k=v&k=v...", already URL-decoded as libmicrohttpd hands it over: any
 * bytes but NUL) split into parameters, more than API_MAX_PARAMS
 * included. The store is a real one with the results index, in a
 * temporary home made once and removed at exit; every answer must be a
 * well-formed reply.
 */
#include "node/web/api.h"
#include "node/results/results.h"

#include "proto/mem.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const s_paths[] = {
	"/api/query",	"/api/compare", "/api/history", "/api/commits",
	"/api/metrics", "/api/request", "/api/log",	"/api/none",
	"/api/progress", "/api/requests", "/api/bisect", "/api/bisections",
};

static api_t *s_api;
static char s_home[] = "/tmp/lm-fuzz-dash-XXXXXX";

static void s_cleanup(void)
{
	static const char *const files[] = { "store.db", "store.db-wal",
					     "store.db-shm",
					     "store.db-journal" };
	char path[sizeof(s_home) + 32];

	api_destroy(&s_api);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", s_home, files[i]);
		unlink(path);
	}
	rmdir(s_home);
}

static void s_init(void)
{
	sqlite3 *db;
	char *path;

	if (!mkdtemp(s_home))
		abort();
	path = xasprintf("%s/store.db", s_home);
	if (sqlite3_open(path, &db) != SQLITE_OK || results_schema(db) < 0)
		abort();
	sqlite3_close(db);
	free(path);
	s_api = api_new(s_home);
	atexit(s_cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	api_param_t p[API_MAX_PARAMS + 4];
	api_reply_t rep;
	size_t n = 0;
	char *q, *save = NULL;

	if (!s_api)
		s_init();
	if (size < 1 || size > 8192)
		return 0;
	q = xstrndup((const char *)data + 1, size - 1);
	for (char *kv = strtok_r(q, "&", &save);
	     kv && n < sizeof(p) / sizeof(p[0]);
	     kv = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(kv, '=');

		if (eq)
			*eq++ = '\0';
		p[n++] = (api_param_t){kv, eq ? eq : ""};
	}
	if (api_handle(s_api, s_paths[data[0] % 8], p, n, &rep) == 0) {
		if (rep.status < 200 || rep.status > 599 || !rep.body ||
		    !rep.type)
			abort();
		free(rep.body);
	}
	free(q);
	return 0;
}
