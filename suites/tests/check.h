/*
 * check: the tiny assertion helpers of the suites unit tests.
 */
#ifndef LABMESH_SUITES_TESTS_CHECK_H
#define LABMESH_SUITES_TESTS_CHECK_H

#include "suites/result.h"

#include <stdio.h>
#include <string.h>

static int s_failures;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
			s_failures++;                                          \
		}                                                              \
	} while (0)

/* The case at this path below the suite has this status (and, when msg is
 * not NULL, a message containing msg). */
#define CHECK_CASE(res, rel, st, msg)                                          \
	do {                                                                   \
		const suite_case_t *c_ = suite_result_find_case((res), (rel)); \
		if (!c_) {                                                     \
			fprintf(stderr, "%s:%d: no case %s\n", __FILE__,       \
				__LINE__, (rel));                              \
			s_dump(res);                                           \
			s_failures++;                                          \
		} else if (c_->status != (st) ||                               \
			   ((msg) && (!c_->message ||                          \
				      !strstr(c_->message, (msg) ? (msg) : "")))) { \
			fprintf(stderr, "%s:%d: case %s is %s '%s'\n",         \
				__FILE__, __LINE__, (rel),                     \
				suite_status_name(c_->status),                 \
				c_->message ? c_->message : "");               \
			s_failures++;                                          \
		}                                                              \
	} while (0)

#define CHECK_REASON(res, text)                                                \
	do {                                                                   \
		if (!(res)->reason || !strstr((res)->reason, (text))) {        \
			fprintf(stderr, "%s:%d: reason '%s' lacks '%s'\n",     \
				__FILE__, __LINE__,                            \
				(res)->reason ? (res)->reason : "(null)",      \
				(text));                                       \
			s_failures++;                                          \
		}                                                              \
	} while (0)

static inline void s_dump(const suite_result_t *res)
{
	fprintf(stderr, "  result %s: %s (%s)\n", res->name,
		suite_status_name(res->status), res->reason ? res->reason : "");
	for (size_t i = 0; i < res->n_cases; i++)
		fprintf(stderr, "    %-5s %s %s\n",
			suite_status_name(res->cases[i].status), res->cases[i].path,
			res->cases[i].message ? res->cases[i].message : "");
	for (size_t i = 0; i < res->n_metrics; i++)
		fprintf(stderr, "    metric %s %g %s\n", res->metrics[i].name,
			res->metrics[i].value, res->metrics[i].unit);
}

#endif
