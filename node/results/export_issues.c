/*
 * export_issues: known marks in the KCIDB export. Each current mark that
 * covers a failed test of the document is one KCIDB issue (version 1; a
 * replacing mark is another record, so another issue), and each test it
 * covers one incident linking the two.
 */
#include "node/results/export_int.h"
#include "node/results/query_int.h"

#include "proto/mem.h"

#include <stdlib.h>
#include <string.h>

void export_incident_add(export_incidents_t *l, const char *test_id,
			 const triage_known_t *mark)
{
	if (l->n >= EXPORT_MAX_INCIDENTS)
		return;
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n].test_id = xstrdup(test_id);
	l->v[l->n].mark = mark;
	l->n++;
}

void export_incidents_free(export_incidents_t *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].test_id);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static bool s_web(const char *url)
{
	return (!strncmp(url, "https://", 8) || !strncmp(url, "http://", 7)) &&
	       !strpbrk(url, " \t\"<>\\^`{|}");
}

static void s_issue(json_t *j, const char *origin, const triage_known_t *m)
{
	char id[128], when[64], comment[512];

	snprintf(id, sizeof(id), "%s:known-%.16s", origin, m->id);
	query_time_rfc3339(m->expires_ms, when);
	snprintf(comment, sizeof(comment), "known failure of %s (board %s,"
		 " arch %s) until %s%s%s", m->path, *m->board ? m->board : "any",
		 *m->arch ? m->arch : "any", when, *m->text ? ": " : "",
		 m->text);
	json_obj_open(j);
	json_key_str(j, "id", id);
	json_key_int(j, "version", 1);
	json_key_str(j, "origin", origin);
	if (s_web(m->link))
		json_key_str(j, "report_url", m->link);
	json_key_str(j, "report_subject", m->path);
	json_key_str(j, "comment", comment);
	json_key(j, "misc");
	json_obj_open(j);
	json_key_str(j, "test", m->path);
	json_key_str(j, "board", m->board);
	json_key_str(j, "arch", m->arch);
	json_key_str(j, "expires", when);
	json_key_str(j, "marked_by", m->author);
	json_obj_close(j);
	json_obj_close(j);
}

static bool s_seen(const export_incidents_t *l, size_t upto,
		   const triage_known_t *m)
{
	for (size_t i = 0; i < upto; i++)
		if (l->v[i].mark == m)
			return true;
	return false;
}

void export_issues_write(json_t *j, const char *origin,
			 const export_incidents_t *l)
{
	char id[160], issue[128];

	json_key(j, "issues");
	json_arr_open(j);
	for (size_t i = 0; i < l->n; i++)
		if (!s_seen(l, i, l->v[i].mark))
			s_issue(j, origin, l->v[i].mark);
	json_arr_close(j);
	json_key(j, "incidents");
	json_arr_open(j);
	for (size_t i = 0; i < l->n; i++) {
		const triage_known_t *m = l->v[i].mark;

		snprintf(issue, sizeof(issue), "%s:known-%.16s", origin, m->id);
		snprintf(id, sizeof(id), "%s:%zu", issue, i);
		json_obj_open(j);
		json_key_str(j, "id", id);
		json_key_str(j, "origin", origin);
		json_key_str(j, "issue_id", issue);
		json_key_int(j, "issue_version", 1);
		json_key_str(j, "test_id", l->v[i].test_id);
		json_key_bool(j, "present", true);
		json_obj_close(j);
	}
	json_arr_close(j);
}
