/*
 * parse_tap_private: what the two files of the TAP parser share. The
 * parser's state, and the nesting levels that hold a subtest's results
 * until its parent's test line names them (parse_tap_tree.c), used by the
 * line grammar and the verdict (parse_tap.c). Not for use outside them.
 */
#ifndef LABMESH_SUITES_PARSE_TAP_PRIVATE_H
#define LABMESH_SUITES_PARSE_TAP_PRIVATE_H

#include "suites/parse.h"
#include "proto/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TAP_SEEN_BITS SUITE_MAX_CASES /* test numbers checked against a plan */

/* A result held until its parent line arrives; rel is below the level. */
struct pend {
	char *rel;
	enum suite_status status;
	int64_t dur;
	char *msg;
	size_t at; /* the end of its result line in the output, 0: unknown */
};

struct plist {
	struct pend *v;
	size_t n;
	size_t alloc;
};

/* One nesting level: its plan, its numbering and the results it holds. */
struct level {
	int indent;
	long plan; /* -1: none seen */
	bool plan_skip;
	char plan_reason[SUITE_MAX_MESSAGE + 1];
	long last_num;
	long n_tests;
	long extra; /* tests numbered past the plan */
	char name[SUITE_MAX_PATH + 1]; /* from "# Subtest: NAME" */
	char next_name[SUITE_MAX_PATH + 1]; /* for the next child level */
	struct plist res;
	/* a finished child level waiting for this level's next test line */
	bool has_closed;
	struct plist closed;
	char closed_name[SUITE_MAX_PATH + 1];
	unsigned char seen[TAP_SEEN_BITS / 8 + 1];
};

/* The parser over one output (for kselftest, also over each test's
 * nested output). */
struct tap {
	suite_result_t *res; /* for the case cap and notes */
	bool ksft;
	struct level *lv[SUITE_MAX_TAP_DEPTH];
	int depth;
	bool in_yaml;
	int yaml_indent;
	int last_level; /* where the last result went, for YAML diagnostics */
	size_t last_idx;
	bool bailed;
	char bail_reason[SUITE_MAX_MESSAGE + 1];
	bool saw_version;
	size_t pending; /* results held, across levels */
	long too_deep;
	long dup_metrics;
	long second_plans; /* plans after the first of a level 0, ignored */
	/* kselftest: the current test's nested output */
	buf_t capture;
	char ksft_name[SUITE_MAX_PATH + 1];
	/* the end of the line being parsed in the whole output; a nested
	 * parse keeps the outer test line's */
	size_t at;
	bool nested;
};

/* Free a list's results and leave it empty. */
void tap_plist_free(struct plist *l);
/* Hold a result in l (rel and msg copied; msg may be NULL). Returns it, or
 * NULL past SUITE_MAX_CASES held results, counted in res->dropped_cases. */
struct pend *tap_plist_add(struct tap *t, struct plist *l, const char *rel,
			   enum suite_status st, int64_t dur, const char *msg);
/* Move every result of src into dst below "prefix."; src is left empty. */
void tap_plist_move(struct tap *t, struct plist *dst, struct plist *src,
		    const char *prefix);
/* FAIL, ERROR and MISS count as failing. */
bool tap_failing(enum suite_status s);
bool tap_any_failing(const struct plist *l);
/* Test number n reported at l (numbers past TAP_SEEN_BITS are not kept). */
void tap_seen_set(struct level *l, long n);

/* A level at this indent, with no plan seen; tap_level_free takes a NULL
 * *p and sets it to NULL. */
struct level *tap_level_new(int indent);
void tap_level_free(struct level **p);
/* A child that finished without its parent's line joins l's results
 * under its own name, with a MISS case for the missing line. */
void tap_flush_closed(struct tap *t, struct level *l);
/* End l: flush its finished child; planned tests that never reported
 * become MISS cases. */
void tap_level_finish(struct tap *t, struct level *l);
/* Close the deepest level (t->depth > 1) into its parent's "closed"
 * slot, for the parent's next test line to claim. */
void tap_pop(struct tap *t);
/* Close every level deeper than indent. */
void tap_pop_to(struct tap *t, int indent);
/* The level a structural line at this indent belongs to, closing deeper
 * levels or pushing one; NULL (counted in too_deep) past
 * SUITE_MAX_TAP_DEPTH. Borrowed. */
struct level *tap_level_for(struct tap *t, int indent);
/* Add a result to l, the level at the current depth; it is the last
 * result, which YAML blocks and diagnostics that follow refer to. */
void tap_add_result(struct tap *t, struct level *l, const char *name,
		    enum suite_status st, const char *msg);
/* The held results of l as cases of t->res. */
void tap_emit(struct tap *t, struct plist *l);

#endif
