/*
 * parse_klog: a kernel log (the output of dmesg, or a boot console) judged
 * for the reports the kernel prints when something went wrong in it.
 *
 * A kernel report is recognised by the form the kernel gives it, never by
 * a word anywhere in a line: "WARNING: CPU: 0 PID: 1 at FILE:LINE FN" is a
 * WARN() splat, "Speculative Return Stack Overflow: WARNING: See ..." is a
 * pr_warn() notice and passes. Each line is first reduced to its message
 * (s_message: the syslog level "<4>", the "[    1.234567]" timestamp and
 * the "[    T1]" caller id taken off), then classified (s_classify) into
 * one of the report kinds below, each a case of the suite:
 *
 *   no_oops             Oops: / Internal error: / Unable to handle kernel /
 *                       the x86 die banner "invalid opcode: 0000 [#1] ..."
 *   no_bug              BUG: ... / kernel BUG at FILE:LINE!
 *   no_warning          WARNING: CPU: N PID: N at ... (and the older
 *                       "WARNING: at FILE:LINE"), a "cut here" marker with
 *                       no WARNING or BUG line after it, and the reports
 *                       headed by a line of '=' (lockdep's "WARNING:
 *                       possible circular locking dependency", UBSAN)
 *   no_panic            Kernel panic - not syncing: ...
 *   no_call_trace       Call Trace: / Call trace: / Backtrace:
 *   no_lockup_or_stall  BUG: soft lockup / workqueue lockup, Watchdog
 *                       detected hard LOCKUP, RCU "INFO: ... detected
 *                       stall(s)", "INFO: task ... blocked for more than"
 *
 * A case fails with the first line of its kind as message. The metric
 * boot_time is the timestamp of the kernel handing over to init ("Run
 * /init as init process", "Freeing unused kernel image"), or else the
 * uptime a header line "labmesh-klog: uptime SECONDS" gave (boot-health's
 * run.sh prints one before the log). run.sh sends only the lines that may
 * matter, and says in a header "labmesh-klog: lines N" how many the whole
 * log had: a long-running host's log may have wrapped past boot and hold
 * nothing the filter keeps, which is a clean log, not a missing one. Output
 * with no log line and no such header is ERROR. Exit status 77 is SKIP
 * with the last line as reason (the log could not be read); any other
 * non-zero status is ERROR. See parse.h for the parsers' contract.
 */
#include "suites/parse.h"
#include "proto/mem.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum klog_kind {
	KLOG_OOPS = 0,
	KLOG_BUG,
	KLOG_WARNING,
	KLOG_PANIC,
	KLOG_CALL_TRACE,
	KLOG_LOCKUP,
	KLOG_N,
	KLOG_NONE = KLOG_N,
};

static const char *const s_case_names[KLOG_N] = {
	[KLOG_OOPS] = "no_oops",
	[KLOG_BUG] = "no_bug",
	[KLOG_WARNING] = "no_warning",
	[KLOG_PANIC] = "no_panic",
	[KLOG_CALL_TRACE] = "no_call_trace",
	[KLOG_LOCKUP] = "no_lockup_or_stall",
};

#define KLOG_HEADER "labmesh-klog: "

struct klog {
	long lines;                 /* log lines seen */
	long log_lines;             /* lines the whole log had (header), before the filter */
	long hits[KLOG_N];
	char first[KLOG_N][SUITE_MAX_MESSAGE + 1];
	bool banner;                /* the previous message was a line of '=' */
	bool cut;                   /* a "cut here" waits for its WARNING/BUG */
	char cut_line[SUITE_MAX_MESSAGE + 1];
	char boot_time[32];         /* seconds, as printed */
	char uptime[32];            /* from the header, as printed */
	char last[SUITE_MAX_MESSAGE + 1]; /* the last non-blank line */
};

static bool s_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Skip "[ 12.345678]" (spaces, digits, a dot, digits); copy the number
 * (at most outsz - 1 bytes) into out when out is not NULL. Returns the
 * position after it, or s unchanged when it is not one. */
static const char *s_timestamp(const char *s, char *out, size_t outsz)
{
	const char *p = s + 1, *num;
	size_t n;

	if (*s != '[')
		return s;
	while (*p == ' ')
		p++;
	num = p;
	while (isdigit((unsigned char)*p))
		p++;
	if (p == num || *p != '.' || !isdigit((unsigned char)p[1]))
		return s;
	p++;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p != ']')
		return s;
	n = (size_t)(p - num);
	if (out && n < outsz) {
		memcpy(out, num, n);
		out[n] = '\0';
	}
	return p + 1;
}

/* Skip a printk caller id "[    T123]" / "[  C0]" after the timestamp. */
static const char *s_caller(const char *s)
{
	const char *p = s + 1;

	if (*s != '[')
		return s;
	while (*p == ' ')
		p++;
	if (*p != 'T' && *p != 'C')
		return s;
	p++;
	if (!isdigit((unsigned char)*p))
		return s;
	while (isdigit((unsigned char)*p))
		p++;
	return *p == ']' ? p + 1 : s;
}

/* The message of a log line: after the level, timestamp and caller id,
 * and the blanks around them. ts gets the timestamp ("" when none). */
static const char *s_message(const char *line, char *ts, size_t tssz)
{
	const char *p = line;

	ts[0] = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '<' && isdigit((unsigned char)p[1])) {
		const char *q = p + 1;
		while (isdigit((unsigned char)*q))
			q++;
		if (*q == '>')
			p = q + 1;
	}
	p = s_timestamp(p, ts, tssz);
	p = s_caller(p);
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* After a pr_fmt prefix of one word ("watchdog: ", "rcu: "), if there is
 * one; else the message itself. */
static const char *s_after_prefix(const char *m)
{
	const char *p = m;

	while (isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '.' || *p == '/')
		p++;
	if (p != m && p[0] == ':' && p[1] == ' ')
		return p + 2;
	return m;
}

/* A line of '=' alone: the head of lockdep, KASAN and UBSAN reports. */
static bool s_banner(const char *m)
{
	size_t n = strspn(m, "=");

	return n >= 10 && m[n] == '\0';
}

/* x86's die() banner: "invalid opcode: 0000 [#1] PREEMPT SMP NOPTI",
 * "general protection fault, ...: 0000 [#1] SMP", "Oops: 0002 [#1] ...". */
static bool s_die_banner(const char *m)
{
	const char *p = strstr(m, ": ");

	for (; p; p = strstr(p + 1, ": ")) {
		const char *h = p + 2;
		int i;

		for (i = 0; i < 4 && isxdigit((unsigned char)h[i]); i++)
			;
		if (i == 4 && s_starts(h + 4, " [#") && isdigit((unsigned char)h[7]))
			return true;
	}
	return false;
}

/* "WARNING: at FILE:LINE ..." (before the CPU/PID form): a path with a
 * colon and a line number, not "WARNING: at least ...". */
static bool s_old_warn(const char *m)
{
	const char *p = m + strlen("WARNING: at ");
	const char *colon = p;

	while (*colon && *colon != ' ' && *colon != ':')
		colon++;
	return colon != p && *colon == ':' && isdigit((unsigned char)colon[1]);
}

/* m starts with prefix, by itself or after a pr_fmt word. */
static bool s_starts_pf(const char *m, const char *prefix)
{
	return s_starts(m, prefix) || s_starts(s_after_prefix(m), prefix);
}

static bool s_lockup(const char *m)
{
	if (s_starts_pf(m, "BUG: soft lockup") || s_starts_pf(m, "BUG: workqueue lockup") ||
	    strstr(m, "Watchdog detected hard LOCKUP"))
		return true;
	if (s_starts_pf(m, "INFO: ") &&
	    (strstr(m, " detected stall") || strstr(m, " self-detected stall")))
		return true;
	return s_starts_pf(m, "INFO: task ") && strstr(m, " blocked for more than ");
}

static enum klog_kind s_classify(const char *m, bool after_banner)
{
	if (s_lockup(m))
		return KLOG_LOCKUP;
	if (s_starts(m, "Kernel panic - not syncing") || s_starts(m, "---[ end Kernel panic"))
		return KLOG_PANIC;
	if (s_starts(m, "kernel BUG at ") || s_starts_pf(m, "BUG: "))
		return KLOG_BUG;
	if (s_starts(m, "Oops: ") || s_starts(m, "Internal error: ") ||
	    s_starts(m, "Unable to handle kernel ") || s_die_banner(m))
		return KLOG_OOPS;
	if (s_starts(m, "WARNING: CPU: ") || (s_starts(m, "WARNING: at ") && s_old_warn(m)))
		return KLOG_WARNING;
	if (after_banner && (s_starts(m, "WARNING: ") || s_starts(m, "UBSAN: ")))
		return KLOG_WARNING;
	if (s_starts(m, "Call Trace:") || s_starts(m, "Call trace:") || s_starts(m, "Backtrace:"))
		return KLOG_CALL_TRACE;
	return KLOG_NONE;
}

static void s_hit(struct klog *k, enum klog_kind kind, const char *line)
{
	if (!k->hits[kind]++)
		suite_text_clean(k->first[kind], sizeof(k->first[kind]), line, strlen(line));
}

/* A header line before the log: "labmesh-klog: uptime 12.34". */
static bool s_header(struct klog *k, const char *line)
{
	const char *v;
	size_t n;

	if (k->lines || !s_starts(line, KLOG_HEADER))
		return false;
	v = line + strlen(KLOG_HEADER);
	if (s_starts(v, "uptime ")) {
		v += strlen("uptime ");
		n = strspn(v, "0123456789.");
		if (n && n < sizeof(k->uptime) && isdigit((unsigned char)v[0])) {
			memcpy(k->uptime, v, n);
			k->uptime[n] = '\0';
		}
	} else if (s_starts(v, "lines ")) {
		v += strlen("lines ");
		if (isdigit((unsigned char)v[0]))
			k->log_lines = strtol(v, NULL, 10);
	}
	return true;
}

static void s_line(struct klog *k, const char *line)
{
	char ts[32];
	const char *m;
	enum klog_kind kind;

	if (s_header(k, line))
		return;
	m = s_message(line, ts, sizeof(ts));
	if (!*m)
		return;
	k->lines++;
	suite_text_clean(k->last, sizeof(k->last), line, strlen(line));
	kind = s_classify(m, k->banner);
	k->banner = s_banner(m);
	if (k->cut && kind != KLOG_WARNING && kind != KLOG_BUG) {
		/* a splat began and named neither: still a warning */
		s_hit(k, KLOG_WARNING, k->cut_line);
	}
	k->cut = false;
	if (strcmp(m, "------------[ cut here ]------------") == 0) {
		k->cut = true;
		suite_text_clean(k->cut_line, sizeof(k->cut_line), line, strlen(line));
		return;
	}
	if (kind != KLOG_NONE)
		s_hit(k, kind, line);
	if (ts[0] && (s_starts(m, "Freeing unused kernel image") ||
		      s_starts(m, "Freeing unused kernel memory") ||
		      (s_starts(m, "Run ") && strstr(m, " as init process"))))
		snprintf(k->boot_time, sizeof(k->boot_time), "%s", ts);
}

static void s_boot_time(suite_result_t *res, const struct klog *k)
{
	const char *v = k->boot_time[0] ? k->boot_time : k->uptime;
	const char *src = k->boot_time[0] ? "init hand-over in the kernel log" : "/proc/uptime";
	char msg[SUITE_MAX_MESSAGE + 1];
	double t;

	if (!v[0]) {
		suite_result_add_case(res, "boot_time", 9, SUITE_SKIP, -1,
				      "no kernel log timestamps and no uptime", 38);
		return;
	}
	t = strtod(v, NULL);
	suite_result_add_metric(res, "boot_time", t, "s", SUITE_BETTER_LOWER);
	snprintf(msg, sizeof(msg), "%s s, from %s", v, src);
	suite_result_add_case(res, "boot_time", 9, SUITE_PASS, -1, msg, strlen(msg));
}

void suite_parse_klog(const char *out, size_t len, int exit_status,
		      suite_result_t *res)
{
	char line[SUITE_MAX_LINE + 1], msg[SUITE_MAX_MESSAGE + 1];
	struct klog *k = xzalloc(sizeof(*k));
	size_t pos = 0;

	while (suite_next_line(out, len, &pos, line, NULL))
		s_line(k, line);
	if (k->cut)
		s_hit(k, KLOG_WARNING, k->cut_line);
	if (exit_status == 77) {
		res->status = SUITE_SKIP;
		suite_result_set_reason(res, "%s", k->last[0] ? k->last : "exit status 77");
		goto out_free;
	}
	if (!k->lines && k->log_lines <= 0) {
		res->status = SUITE_ERROR;
		suite_result_set_reason(res, "no kernel log in the output (exit status %d)",
					exit_status);
		goto out_free;
	}
	suite_result_add_case(res, "dmesg_readable", 14, SUITE_PASS, -1, NULL, 0);
	for (int i = 0; i < KLOG_N; i++) {
		const char *name = s_case_names[i];

		if (!k->hits[i]) {
			suite_result_add_case(res, name, strlen(name), SUITE_PASS, -1, NULL, 0);
			continue;
		}
		if (k->hits[i] == 1)
			snprintf(msg, sizeof(msg), "%s", k->first[i]);
		else
			snprintf(msg, sizeof(msg), "%ld reports, first: %s", k->hits[i],
				 k->first[i]);
		suite_result_add_case(res, name, strlen(name), SUITE_FAIL, -1, msg, strlen(msg));
	}
	s_boot_time(res, k);
	if (exit_status != 0) {
		res->status = SUITE_ERROR;
		if (exit_status < 0)
			suite_result_set_reason(res, "no exit status");
		else
			suite_result_set_reason(res, "run.sh exited with status %d", exit_status);
	}
out_free:
	free(k);
}
