/*
 * check: the tiny assertion kit of proto's unit tests. CHECK counts a
 * failure and goes on; CHECK_ERR also prints both codes by name.
 */
#ifndef LABMESH_PROTO_TESTS_CHECK_H
#define LABMESH_PROTO_TESTS_CHECK_H

#include <stdio.h>

#include "proto/error.h"

extern int check_failures;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
			check_failures++;                                      \
		}                                                              \
	} while (0)

#define CHECK_ERR(expr, want)                                                  \
	do {                                                                   \
		int got_ = (expr), want_ = (want);                             \
		if (got_ != want_) {                                           \
			fprintf(stderr, "%s:%d: %s: got %d (%s), want %d (%s)\n",  \
				__FILE__, __LINE__, #expr, got_,               \
				proto_strerror(got_), want_,                   \
				proto_strerror(want_));                        \
			check_failures++;                                      \
		}                                                              \
	} while (0)

#define CHECK_DONE()                                                           \
	(check_failures ? (fprintf(stderr, "%d check(s) failed\n",             \
				   check_failures),                            \
			   1)                                                  \
			: 0)

#endif
