/*
 * The body shared by the parser harnesses: one parser over the fuzz input,
 * then the criteria over what it produced (the path every board's output
 * takes). Each harness file names its parser and includes this.
 */
#ifndef LABMESH_SUITES_FUZZ_PARSER_H
#define LABMESH_SUITES_FUZZ_PARSER_H

#include "suites/criteria.h"
#include "suites/parse.h"

#include <stddef.h>
#include <stdint.h>

typedef void(fuzz_parse_fn)(const char *out, size_t len, int exit_status,
			    suite_result_t *res);

static inline int fuzz_parser_one(fuzz_parse_fn *parse, const uint8_t *data,
				  size_t size)
{
	suite_result_t *res = suite_result_new("fz", 1);
	char *must[] = { "a.b" };
	lab_fail_ok_t ok[] = { { "test1", "known" } };
	lab_metric_rule_t rules[] = { { "m", LAB_OP_GT, 1.0, 0 } };
	lab_criteria_t crit = { .max_fail = 0, .min_pass = 1, .must_pass = must,
				.n_must_pass = 1, .fail_ok = ok, .n_fail_ok = 1,
				.metrics = rules, .n_metrics = 1 };
	suite_metric_decl_t decl = { "m", "MB/s", SUITE_BETTER_HIGHER };
	int exit_status = size ? (int)data[0] % 3 - 1 : 0;

	parse((const char *)data, size, exit_status, res);
	suite_result_declare_metrics(res, &decl, 1);
	suite_criteria_apply(res, &crit, NULL);
	suite_result_destroy(&res);
	return 0;
}

#endif
