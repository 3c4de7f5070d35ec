/*
 * result: the one result model of a suite run — its test cases and its
 * metrics — shared by the parsers, the criteria and the runner, and the
 * shape every lab reports in.
 *
 * A case path is "<suite>.<set>.<case>": dot-separated segments of
 * [A-Za-z0-9_-] (as KCIDB paths). Names from a board's output are
 * sanitised on the way in (other characters become '_'), bounded in
 * length and depth, and made unique. Everything that came from a board
 * (messages, reasons) is reduced to printable ASCII and bounded.
 *
 * A suite_result_t owns every string in it; free it with
 * suite_result_destroy().
 */
#ifndef LABMESH_SUITES_RESULT_H
#define LABMESH_SUITES_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SUITE_MAX_CASES 20000   /* cases kept per suite run; more are counted */
#define SUITE_MAX_METRICS 1000  /* metrics kept per suite run */
#define SUITE_MAX_PATH 200      /* bytes in a full case path */
#define SUITE_MAX_DEPTH 8       /* segments in a case path, suite included */
#define SUITE_MAX_SEGMENT 64    /* bytes in one path segment */
#define SUITE_MAX_MESSAGE 160   /* bytes in a case message */
#define SUITE_MAX_REASON 1024   /* bytes in a suite's reason */
#define SUITE_MAX_METRIC_NAME 64
#define SUITE_MAX_UNIT 32

enum suite_status {
	SUITE_PASS = 0,
	SUITE_FAIL,
	SUITE_ERROR, /* could not be run or judged properly */
	SUITE_SKIP,  /* not applicable here (a need is missing) */
	SUITE_MISS,  /* expected, but absent from the output */
};

enum suite_better { SUITE_BETTER_HIGHER = 0, SUITE_BETTER_LOWER };

typedef struct {
	char *path;          /* full path: "<suite>.<set>.<case>" */
	enum suite_status status;
	int64_t duration_ms; /* -1: unknown */
	char *message;       /* short, may be NULL */
	bool known;          /* a failure accepted by a fail_ok rule */
	size_t at;           /* where its result line ends in the output
			      * (bytes), for its wall-clock time; 0: unknown */
} suite_case_t;

typedef struct {
	char *name;  /* [A-Za-z0-9_.-]{1,64} */
	double value; /* always finite */
	char *unit;  /* "MB/s", "ns", ...; "" when neither printed nor declared */
	enum suite_better better;
} suite_metric_t;

typedef struct {
	char *name;
	int version;
	enum suite_status status; /* PASS until the criteria decide */
	char *reason;             /* human, one line; may be NULL */
	suite_case_t *cases;
	size_t n_cases;
	size_t alloc_cases;       /* private */
	size_t dropped_cases;     /* past SUITE_MAX_CASES */
	suite_metric_t *metrics;
	size_t n_metrics;
	size_t alloc_metrics;     /* private */
	size_t dropped_metrics;
	int64_t duration_ms;
	char *log;                /* where the run's log was kept, or NULL */
	struct suite_path_index *index; /* private: path lookup */
} suite_result_t;

suite_result_t *suite_result_new(const char *name, int version);
void suite_result_destroy(suite_result_t **p);

/* "PASS", "FAIL", "ERROR", "SKIP", "MISS"; parse back (true on success). */
const char *suite_status_name(enum suite_status s);
bool suite_status_parse(const char *s, enum suite_status *ret);
const char *suite_better_name(enum suite_better b);

/*
 * Add a case. rel is the path below the suite ("set.case"); it is
 * sanitised, and a path already present gets a "-2", "-3"... suffix on its
 * last segment. message (len bytes, NULL for none) is made printable and
 * bounded. Returns the case (borrowed) or NULL when the case cap is hit
 * (counted in dropped_cases).
 */
suite_case_t *suite_result_add_case(suite_result_t *res, const char *rel,
				    size_t rel_len, enum suite_status status,
				    int64_t duration_ms, const char *message,
				    size_t msg_len);
/* Borrowed: the case with this path below the suite, or NULL. */
suite_case_t *suite_result_find_case(const suite_result_t *res, const char *rel);
/* Replace a case's message (printable, bounded). */
void suite_case_set_message(suite_case_t *c, const char *msg, size_t len);

/*
 * Add a metric; name must be [A-Za-z0-9_.-]{1,64} and value finite, unit
 * printable without spaces, up to SUITE_MAX_UNIT (NULL: ""). A name already
 * present is refused. Returns 0, -EINVAL, -EEXIST or -ENOSPC (counted).
 */
int suite_result_add_metric(suite_result_t *res, const char *name, double value,
			    const char *unit, enum suite_better better);
suite_metric_t *suite_result_find_metric(const suite_result_t *res,
					 const char *name);

/* Set the reason (printf style, bounded, printable). */
void suite_result_set_reason(suite_result_t *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append "; <text>" to the reason (or set it). */
void suite_result_add_note(suite_result_t *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Sanitise a name into path segments: split at '.', characters outside
 * [A-Za-z0-9_-] become '_', empty segments are dropped, at most depth
 * segments of SUITE_MAX_SEGMENT, at most outsz-1 bytes. Writes "unnamed"
 * when nothing is left. Returns out.
 */
char *suite_path_sanitize(char *out, size_t outsz, const char *name,
			  size_t len, int depth);
/* Copy len bytes of outside text as printable ASCII, at most outsz-1. */
char *suite_text_clean(char *out, size_t outsz, const char *text, size_t len);

/* A metric the suite declares (suite.yaml "metrics:"). */
typedef struct {
	char *name;
	char *unit;
	enum suite_better better;
} suite_metric_decl_t;

/*
 * Hold the metrics to the declarations: each declared metric takes its
 * direction (and its unit when none was printed); a unit other than the
 * declared one makes an ERROR case "<name>"; a declared metric that never
 * appeared makes a MISS case "<name>" (not when the suite was skipped).
 */
void suite_result_declare_metrics(suite_result_t *res,
				  const suite_metric_decl_t *decls, size_t n);

/* Counts by status (known failures counted apart from failures). */
typedef struct {
	size_t pass, fail, error, skip, miss, known;
} suite_counts_t;
void suite_result_counts(const suite_result_t *res, suite_counts_t *ret);

#endif
