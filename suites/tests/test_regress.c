/*
 * Regression inputs kept from fuzzing (suites/tests/regress/): every
 * parser and the criteria over each, which must finish quickly and keep
 * the result bounded. Names say what they once did.
 */
#include "suites/criteria.h"
#include "suites/parse.h"
#include "suites/tests/check.h"
#include "proto/mem.h"

#include <dirent.h>
#include <stdlib.h>
#include <time.h>

static void s_one(const char *path)
{
	static const enum suite_parser ps[] = {
		SUITE_PARSER_TAP, SUITE_PARSER_KSELFTEST, SUITE_PARSER_LTP,
		SUITE_PARSER_METRICS, SUITE_PARSER_EXIT, SUITE_PARSER_KLOG,
	};
	char *data = xmalloc(1 << 20);
	FILE *f = fopen(path, "rb");
	size_t n;

	CHECK(f != NULL);
	if (!f) {
		free(data);
		return;
	}
	n = fread(data, 1, 1 << 20, f);
	fclose(f);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		clock_t t0 = clock();
		suite_result_t *res = suite_result_new("r", 1);
		suite_parse_output(ps[i], data, n, 0, res);
		suite_criteria_apply(res, NULL, NULL);
		/* a plan of millions makes a bounded number of MISS cases */
		CHECK(res->n_cases <= SUITE_MAX_MISS_CASES + 64);
		/* generous: the point is "not minutes" (it took 12 s and more) */
		CHECK(clock() - t0 < 2 * CLOCKS_PER_SEC);
		suite_result_destroy(&res);
	}
	free(data);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "regress";
	DIR *d = opendir(dir);
	struct dirent *e;
	int count = 0;

	CHECK(d != NULL);
	while (d && (e = readdir(d))) {
		char *p;
		if (e->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		s_one(p);
		free(p);
		count++;
	}
	if (d)
		closedir(d);
	if (s_failures) {
		fprintf(stderr, "%d checks failed\n", s_failures);
		return 1;
	}
	printf("regress: %d inputs, all checks passed\n", count);
	return 0;
}
