/*
 * export_junit: JUnit XML (the Jenkins/GitLab flavour) of the selected
 * runs: one <testsuite> per run and suite, named LAB/BOARD/SUITE, one
 * <testcase> per case with <failure> (FAIL), <error> (ERROR) or
 * <skipped> (SKIP, MISS). Every string came from the network, so each goes
 * through export_xml_escape(): entities, and U+FFFD for invalid UTF-8 and
 * for characters XML 1.0 cannot carry.
 */
#include "node/results/export.h"
#include "node/results/export_int.h"
#include "node/results/query_int.h"

#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Length of the UTF-8 sequence at s and its code point, or 0 if invalid. */
static size_t s_utf8(const unsigned char *s, uint32_t *cp)
{
	size_t n;
	uint32_t c, min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, c = s[0] & 0x1f, min = 0x80;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, c = s[0] & 0x0f, min = 0x800;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, c = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

static bool s_xml_char(uint32_t c)
{
	return c == 0x9 || c == 0xa || c == 0xd || (c >= 0x20 && c <= 0xd7ff) ||
	       (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

int export_xml_escape(buf_t *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int rc = 0;

	while (*s && rc == 0) {
		uint32_t c;
		size_t n = s_utf8(s, &c);

		if (n == 0 || !s_xml_char(c)) {
			rc = buf_puts(b, "\xef\xbf\xbd");
			s += n ? n : 1;
			continue;
		}
		switch (c) {
		case '&': rc = buf_puts(b, "&amp;"); break;
		case '<': rc = buf_puts(b, "&lt;"); break;
		case '>': rc = buf_puts(b, "&gt;"); break;
		case '"': rc = buf_puts(b, "&quot;"); break;
		case '\'': rc = buf_puts(b, "&apos;"); break;
		case '\t': rc = buf_puts(b, "&#9;"); break;
		case '\n': rc = buf_puts(b, "&#10;"); break;
		case '\r': rc = buf_puts(b, "&#13;"); break;
		default: rc = buf_append(b, s, n); break;
		}
		s += n;
	}
	return rc;
}

static void s_attr(buf_t *b, const char *name, const char *value)
{
	buf_printf(b, " %s=\"", name);
	export_xml_escape(b, value);
	buf_puts(b, "\"");
}

typedef struct {
	int64_t path;
	int status;
	int64_t duration_ms, msg;
} s_case_t;

typedef struct {
	sqlite3_stmt *cases, *suites;
	qpaths_t paths;
	qstrs_t strs;
	export_suites_t ss;
	s_case_t *c;
	size_t n, alloc;
	const query_filter_t *f;
	buf_t *b;
} s_ju_t;

static const qpaths_t *s_sort_p;

static int s_cmp_case(const void *pa, const void *pb)
{
	uint32_t a = s_sort_p->rank[((const s_case_t *)pa)->path];
	uint32_t b = s_sort_p->rank[((const s_case_t *)pb)->path];

	return a < b ? -1 : a > b;
}

static int s_load_cases(s_ju_t *u, int64_t run)
{
	int rc;

	u->n = 0;
	sqlite3_bind_int64(u->cases, 1, run);
	while ((rc = sqlite3_step(u->cases)) == SQLITE_ROW) {
		s_case_t c = { .path = sqlite3_column_int64(u->cases, 0),
			       .status = sqlite3_column_int(u->cases, 1),
			       .duration_ms = sqlite3_column_int64(u->cases, 2),
			       .msg = sqlite3_column_int64(u->cases, 3) };

		if (c.path <= 0 || c.path > u->paths.max ||
		    !u->paths.match[c.path] || !query_status_ok(u->f, c.status))
			continue;
		if (u->n == u->alloc) {
			u->alloc = u->alloc ? u->alloc * 2 : 256;
			u->c = xreallocarray(u->c, u->alloc, sizeof(*u->c));
		}
		u->c[u->n++] = c;
	}
	sqlite3_reset(u->cases);
	s_sort_p = &u->paths;
	if (u->n)
		qsort(u->c, u->n, sizeof(*u->c), s_cmp_case);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

/* A case without a time of its own (0) gets its share of the suite's:
 * the suite's time over its untimed cases, and says so in system-out. */
typedef struct {
	int64_t suite_ms, untimed;
} s_share_t;

static void s_case_time(s_ju_t *u, const s_case_t *c, const s_share_t *sh)
{
	if (c->duration_ms > 0 || sh->untimed == 0 || sh->suite_ms <= 0) {
		buf_printf(u->b, " time=\"%.3f\"",
			   (double)c->duration_ms / 1000.0);
		return;
	}
	buf_printf(u->b, " time=\"%.3f\"",
		   (double)sh->suite_ms / 1000.0 / (double)sh->untimed);
}

static void s_case_note(s_ju_t *u, const s_case_t *c, const s_share_t *sh)
{
	if (c->duration_ms > 0 || sh->untimed == 0 || sh->suite_ms <= 0)
		return;
	buf_printf(u->b, "      <system-out>time not measured for this case:"
		   " a share of its suite's %.3f s over its %lld untimed"
		   " cases</system-out>\n",
		   (double)sh->suite_ms / 1000.0, (long long)sh->untimed);
}

static void s_case(s_ju_t *u, const char *cls, const s_case_t *c,
		   const s_share_t *sh)
{
	const char *path = u->paths.full[c->path] + u->paths.plen[c->path];
	char *msg = qstrs_get(&u->strs, c->msg);
	const char *st = query_status_name(c->status);
	bool note = c->duration_ms <= 0 && sh->untimed && sh->suite_ms > 0;

	buf_puts(u->b, "    <testcase");
	s_attr(u->b, "classname", cls);
	s_attr(u->b, "name", path);
	s_case_time(u, c, sh);
	if (note && c->status != PROTO_FAIL && c->status != PROTO_ERROR &&
	    c->status != PROTO_SKIP && c->status != PROTO_MISS) {
		buf_puts(u->b, ">\n");
		s_case_note(u, c, sh);
		buf_puts(u->b, "    </testcase>\n");
		free(msg);
		return;
	}
	if (c->status == PROTO_FAIL || c->status == PROTO_ERROR) {
		const char *tag = c->status == PROTO_FAIL ? "failure" : "error";

		buf_printf(u->b, ">\n      <%s", tag);
		s_attr(u->b, "message", msg && *msg ? msg : st);
		s_attr(u->b, "type", st);
		buf_puts(u->b, ">");
		export_xml_escape(u->b, msg ? msg : "");
		buf_printf(u->b, "</%s>\n", tag);
		s_case_note(u, c, sh);
		buf_puts(u->b, "    </testcase>\n");
	} else if (c->status == PROTO_SKIP || c->status == PROTO_MISS) {
		buf_puts(u->b, ">\n      <skipped");
		s_attr(u->b, "message", msg && *msg ? msg : st);
		buf_puts(u->b, "/>\n");
		s_case_note(u, c, sh);
		buf_puts(u->b, "    </testcase>\n");
	} else {
		buf_puts(u->b, "/>\n");
	}
	free(msg);
}

static void s_suite(s_ju_t *u, const qrun_t *r, const export_suite_t *s)
{
	int64_t n = 0, fail = 0, err = 0, skip = 0;
	s_share_t sh = { .suite_ms = s->duration_ms };
	char *name = xasprintf("%s/%s/%s", r->lab, r->board, s->name);
	char *cls = xasprintf("%s.%s.%s", r->lab, r->board, s->name);
	char when[64], hex[65];

	for (size_t i = 0; i < u->n; i++) {
		int st = u->c[i].status;

		if (strcmp(u->paths.suite[u->c[i].path], s->name))
			continue;
		n++;
		sh.untimed += u->c[i].duration_ms <= 0;
		fail += st == PROTO_FAIL, err += st == PROTO_ERROR;
		skip += st == PROTO_SKIP || st == PROTO_MISS;
	}
	if (n == 0 && query_case_filtered(u->f))
		goto out; /* nothing of this suite passes the filters */
	query_time_rfc3339(s->start_ms, when);
	when[19] = '\0'; /* JUnit wants a plain ISO 8601 local-less time */
	proto_hex(r->rec, 32, hex);
	buf_puts(u->b, "  <testsuite");
	s_attr(u->b, "name", name);
	buf_printf(u->b, " tests=\"%lld\" failures=\"%lld\" errors=\"%lld\""
		   " skipped=\"%lld\" time=\"%.3f\"", (long long)n,
		   (long long)fail, (long long)err, (long long)skip,
		   (double)s->duration_ms / 1000.0);
	s_attr(u->b, "timestamp", when);
	s_attr(u->b, "hostname", r->board);
	s_attr(u->b, "id", hex);
	buf_puts(u->b, ">\n    <properties>\n");
	buf_puts(u->b, "      <property name=\"commit\"");
	s_attr(u->b, "value", r->commit);
	buf_puts(u->b, "/>\n      <property name=\"branch\"");
	s_attr(u->b, "value", r->branch);
	buf_puts(u->b, "/>\n      <property name=\"lab\"");
	s_attr(u->b, "value", r->lab);
	buf_puts(u->b, "/>\n      <property name=\"arch\"");
	s_attr(u->b, "value", r->arch);
	buf_puts(u->b, "/>\n    </properties>\n");
	for (size_t i = 0; i < u->n; i++)
		if (!strcmp(u->paths.suite[u->c[i].path], s->name))
			s_case(u, cls, &u->c[i], &sh);
	buf_puts(u->b, "  </testsuite>\n");
out:
	free(name);
	free(cls);
}

static int s_run(s_ju_t *u, const qrun_t *r)
{
	int rc;

	export_suites_clear(&u->ss);
	rc = export_suites_load(u->suites, r->id, &u->ss);
	if (rc == 0)
		rc = s_load_cases(u, r->id);
	for (size_t i = 0; i < u->ss.n && rc == 0; i++) {
		if (u->f->suite && strcmp(u->f->suite, u->ss.s[i].name))
			continue;
		s_suite(u, r, &u->ss.s[i]);
	}
	return rc;
}

int export_junit(sqlite3 *db, const query_filter_t *f, FILE *out, char *err,
		 size_t errsz)
{
	s_ju_t u = { .f = f };
	qruns_t runs;
	buf_t b;
	int rc = qruns_load(db, f, &runs);

	buf_init(&b, 0);
	u.b = &b;
	if (rc == 0 && runs.n &&
	    (sqlite3_prepare_v2(db, "SELECT path, status, duration_ms, msg FROM"
				" res_cases WHERE run = ?1", -1, &u.cases,
				NULL) != SQLITE_OK ||
	     sqlite3_prepare_v2(db, export_suites_sql(), -1, &u.suites,
				NULL) != SQLITE_OK ||
	     qstrs_open(db, &u.strs) < 0))
		rc = -EIO;
	if (rc == 0) {
		qpaths_load(db, f, &u.paths);
		buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			 "<testsuites name=\"labmesh\">\n");
		for (size_t i = 0; i < runs.n && rc == 0; i++) {
			rc = s_run(&u, &runs.r[i]);
			if (rc == 0)
				rc = query_flush(&b, out, false);
		}
		buf_puts(&b, "</testsuites>\n");
	}
	if (rc == 0)
		rc = query_flush(&b, out, true);
	if (rc < 0)
		snprintf(err, errsz, "reading the index failed");
	sqlite3_finalize(u.cases);
	sqlite3_finalize(u.suites);
	if (u.strs.st)
		qstrs_close(&u.strs);
	export_suites_clear(&u.ss);
	free(u.ss.s);
	free(u.c);
	qpaths_free(&u.paths);
	buf_free(&b);
	qruns_free(&runs);
	return rc;
}
