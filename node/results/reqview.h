/*
 * reqview: a test request as the network answers it, read from the local
 * store: which labs accepted or declined it (a lab is expected to answer
 * only when the request names it, by --lab or, without one, by one of its
 * boards: the others keep silent unless they accept), the boards an
 * accepting lab refused and why,
 * and, per accepted board, its latest event and its run record. `labmesh status` and `submit --wait` show it (the
 * following and printing is theirs); the dashboard's /api/progress
 * answers its JSON.
 *
 * The view is plain data, rebuilt from the store on each reading.
 */
#ifndef LABMESH_NODE_REQVIEW_H
#define LABMESH_NODE_REQVIEW_H

#include "proto/caps.h"
#include "proto/types.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define REQVIEW_MAX_LABS 1024 /* labs that answered or are named */
/* names of the other labs, from their adverts, kept while reading */
#define REQVIEW_MAX_LABELS 65536
#define REQVIEW_MAX_BOARDS 256
#define REQVIEW_MAX_EVENTS 100000
/* A running job says it is alive every minute (the jobs side's
 * JOBS_ALIVE_MS); one whose lab said nothing for three is stale. */
#define REQVIEW_STALE_MS (3 * 60 * 1000)

typedef struct {
	char name[PROTO_MAX_NAME + 1];
	int state; /* enum job_state; 0: nothing yet */
	unsigned idx, count;
	char suite[PROTO_MAX_NAME + 1];
	char text[256];
	bool has_run;
	int status; /* enum proto_status of the run */
	char run[65];
	int64_t said_ms; /* its latest event's stamp (the lab's clock) */
} reqview_board_t;

enum reqview_answer {
	REQVIEW_WAITING = 0,
	REQVIEW_ACCEPTED,
	REQVIEW_DECLINED,
};

/* A board the request selected that its lab refused, and why. */
typedef struct {
	char name[PROTO_MAX_NAME + 1];
	char text[PROTO_MAX_MESSAGE + 1];
} reqview_refusal_t;

typedef struct {
	uint8_t author[32];
	char name[PROTO_MAX_NAME + 1];
	int answer; /* enum reqview_answer */
	char decline[512];
	reqview_board_t *boards;
	size_t n_boards;
	reqview_refusal_t *refused; /* with its accept */
	size_t n_refused;
	bool named; /* the request names it: its answer is awaited */
	bool printed_answer; /* the caller's: the answer was shown */
	unsigned n_said; /* its records about the request: a change counter */
} reqview_lab_t;

typedef struct {
	uint8_t id[32]; /* the event record's */
	char line[600]; /* "LAB/BOARD: state: text" */
} reqview_event_t;

typedef struct {
	reqview_lab_t *labs;
	size_t n;
	reqview_event_t *events; /* every event of the request, store order */
	size_t n_events;
	size_t n_read; /* records the readings of the store decoded */
	bool names; /* the request names labs or boards (else any lab may
		     * accept, and no lab's answer is awaited) */
} reqview_t;

#define REQVIEW_MIN_PREFIX 6 /* hex digits of a request id people type */

/* The full id of a request held in HOME's store from a hex prefix (at
 * least REQVIEW_MIN_PREFIX digits). 0, -ENOENT, -EINVAL when several
 * requests match, -EBADMSG when it is no hex prefix (or too short). */
int reqview_find(const char *home, const char *prefix, uint8_t ret_id[32]);

/* Read request id's view from db (a connection to HOME/store.db; may be
 * read-only) into *v, which must be zeroed or freed: the labs that
 * answered and those the request names. 0 or -errno. */
int reqview_collect(sqlite3 *db, const uint8_t id[32], reqview_t *v);
void reqview_free(reqview_t *v);

/* The lab of author in v, added (named by its id until an advert names
 * it) when missing; NULL past REQVIEW_MAX_LABS. Borrowed from v. */
reqview_lab_t *reqview_lab(reqview_t *v, const uint8_t *author);

/* Whether the board's job has ended (a retry is not an end). */
bool reqview_final(const reqview_board_t *b);
/* Not final, and its lab's last word on it older than REQVIEW_STALE_MS
 * by the wall clock. */
bool reqview_stale(const reqview_board_t *b);
/* Some lab answered, every lab the request names answered (or
 * silent_ok: the silent ones are let go) and every accepted board
 * finished. */
bool reqview_done(const reqview_t *v, bool silent_ok);

/* The table `labmesh status REQUEST` prints. */
void reqview_table(const reqview_t *v, FILE *f);
/* The JSON `labmesh status REQUEST --json` prints. */
void reqview_json(const reqview_t *v, const uint8_t id[32], FILE *f);

#endif
