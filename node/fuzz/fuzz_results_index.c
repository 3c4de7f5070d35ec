/*
 * fuzz_results_index: hostile run records through the results index and
 * every view of it. Bytes are decoded with the proto decoder (built with
 * PROTO_FUZZING for the fuzzers, so signatures do not stop it), a run is
 * indexed into an in-memory database, then the matrix, list, history,
 * compare and both exports read it back. The same bytes also go through
 * the XML escaper and the KCIDB path sanitiser.
 */
#include "node/results/export.h"
#include "node/results/index.h"
#include "node/results/query.h"
#include "node/results/results.h"

#include "proto/buf.h"
#include "proto/mem.h"
#include "proto/record.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *s_null;

static void s_views(sqlite3 *db, const record_t *rec)
{
	query_filter_t f = { 0 };
	char err[256];

	query_list(db, &f, true, s_null, err, sizeof(err));
	query_list(db, &f, false, s_null, err, sizeof(err));
	query_matrix(db, &f, false, s_null, err, sizeof(err));
	f.path = "*";
	query_matrix(db, &f, true, s_null, err, sizeof(err));
	f.path = NULL;
	if (rec->run.kernel.commit && strlen(rec->run.kernel.commit) >= 4)
		query_compare(db, rec->run.kernel.commit,
			      rec->run.kernel.commit, &f, 10.0, true, s_null,
			      err, sizeof(err));
	query_history(db, "*", &f, true, s_null, err, sizeof(err));
	export_kcidb(db, &f, "fuzz", "https://x.example/b", s_null, err,
		     sizeof(err));
	export_junit(db, &f, s_null, err, sizeof(err));
}

static void s_text(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size);
	buf_t b;

	buf_init(&b, 0);
	export_xml_escape(&b, s);
	buf_free(&b);
	export_kcidb_path(s);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	record_t *rec = NULL;
	sqlite3 *db = NULL;
	index_t *ix = NULL;

	if (!s_null)
		s_null = fopen("/dev/null", "w");
	s_text(data, size);
	if (record_decode(data, size, &rec) < 0)
		return 0;
	if (rec->head.kind == RECORD_RUN &&
	    sqlite3_open(":memory:", &db) == SQLITE_OK &&
	    index_new(db, &ix) == 0 && index_put_decoded(ix, rec) == 1)
		s_views(db, rec);
	index_destroy(&ix);
	sqlite3_close(db);
	record_destroy(&rec);
	return 0;
}
