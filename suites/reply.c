/*
 * reply: reading the board's answers to the runner's commands. See reply.h.
 */
#include "suites/reply.h"
#include "suites/parse.h"
#include "proto/mem.h"

#include <errno.h>
#include <string.h>

char *suite_reply_tagged(const char *out, size_t len, const char *tag)
{
	char line[SUITE_MAX_LINE + 1], clean[SUITE_REPLY_MAX_ID + 1];
	size_t pos = 0, n, tl = strlen(tag);

	while (suite_next_line(out, len, &pos, line, &n)) {
		const char *p = strstr(line, tag); /* a console may prefix junk */
		if (!p)
			continue;
		p += tl;
		suite_text_clean(clean, sizeof(clean), p, strlen(p));
		return xstrdup(clean);
	}
	return NULL;
}

int suite_reply_kernel(const char *out, size_t len, suite_kernel_t *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->release = suite_reply_tagged(out, len, "LMKR:");
	ret->machine = suite_reply_tagged(out, len, "LMKM:");
	ret->version = suite_reply_tagged(out, len, "LMKV:");
	if (!ret->release || !ret->machine) {
		suite_kernel_clear(ret);
		return -EPROTO;
	}
	return 0;
}

/* Append a need's name (cleaned, bounded) to a ", " list. */
static void s_name(buf_t *list, const char *name)
{
	char clean[SUITE_REPLY_MAX_NAME + 1];

	suite_text_clean(clean, sizeof(clean), name, strlen(name));
	buf_printf(list, "%s%s", list->len ? ", " : "", clean[0] ? clean : "?");
}

int suite_reply_needs(const char *out, size_t len, buf_t *why, suite_needs_reply_t *ret)
{
	char line[SUITE_MAX_LINE + 1], uid[17];
	size_t pos = 0;
	bool done = false;
	buf_t cmds, kcs, root;

	memset(ret, 0, sizeof(*ret));
	buf_init(&cmds, SUITE_MAX_REASON);
	buf_init(&kcs, SUITE_MAX_REASON);
	buf_init(&root, SUITE_MAX_REASON);
	while (suite_next_line(out, len, &pos, line, NULL)) {
		const char *p = strstr(line, "LMNEED:");
		if (!p)
			continue;
		p += 7;
		if (strncmp(p, "command ", 8) == 0) {
			s_name(&cmds, p + 8);
			ret->n_commands++;
		} else if (strncmp(p, "kconfig ", 8) == 0) {
			s_name(&kcs, p + 8);
			ret->n_kconfig++;
		} else if (strncmp(p, "root", 4) == 0) {
			/* one "needs root" however often the board says it */
			if (!ret->root) {
				suite_text_clean(uid, sizeof(uid), p[4] ? p + 5 : "?",
						 p[4] ? strlen(p + 5) : 1);
				buf_printf(&root, "needs root (uid %s)", uid);
			}
			ret->root = true;
		} else if (strcmp(p, "noconfig") == 0) {
			ret->noconfig = true;
		} else if (strncmp(p, "done", 4) == 0) {
			done = true;
		}
	}
	if (done) {
		if (root.len)
			buf_printf(why, "%s%s", why->len ? "; " : "", buf_str(&root));
		if (cmds.len)
			buf_printf(why, "%smissing commands: %s", why->len ? "; " : "",
				   buf_str(&cmds));
		if (kcs.len)
			buf_printf(why, "%skernel options not set: %s", why->len ? "; " : "",
				   buf_str(&kcs));
	} else {
		memset(ret, 0, sizeof(*ret));
	}
	buf_free(&cmds);
	buf_free(&kcs);
	buf_free(&root);
	return done ? 0 : -EPROTO;
}
