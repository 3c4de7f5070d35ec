/*
 * lab_fuego_scan: read a Fuego board file into its variables, for the
 * importer in lab_fuego.c.
 *
 * A Fuego board file is shell-like but is not run: Fuego's ovgen.py reads
 * it. We read it the same way, line by line under hard limits: comments,
 * VAR="value" / VAR='value' / VAR=value assignments (with "override" or
 * "export" in front), $VAR, ${VAR} and ${VAR:-default} of variables set
 * earlier in the same file or of Fuego's own ($FUEGO_RW, $FUEGO_RO,
 * $FUEGO_CORE, $BOARD, $NODE_NAME, valued as Fuego's container sets them);
 * inherit/include lines and function bodies are skipped with a note.
 * Nothing is ever executed.
 *
 * Layout: the first error and the notes (shared with the mapping); the
 * variables; the scanner (lines, values, expansion, functions).
 */
#include "labs/lab_private.h"
#include "labs/lab_fuego_int.h"
#include "proto/mem.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUEGO_MAX_NOTES 64
#define FUEGO_MAX_VALUE LAB_FUEGO_MAX_LINE

int fuego_fail(fuego_t *f, int line, const char *var, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (f->err)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (var)
		f->err = xasprintf("%s:%d: %s: %s", f->file, line, var, msg);
	else
		f->err = xasprintf("%s:%d: %s", f->file, line, msg);
	for (char *p = f->err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return -EINVAL;
}

/* A comment line for the output; never more than FUEGO_MAX_NOTES. */
void fuego_note(fuego_t *f, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (f->n_notes++ >= FUEGO_MAX_NOTES) {
		if (f->n_notes == FUEGO_MAX_NOTES + 1)
			buf_puts(&f->notes, "# note: (more notes left out)\n");
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	buf_printf(&f->notes, "# note: %s\n", msg);
}

/* ---- variables ----------------------------------------------------------- */

static fvar_t *s_var(fuego_t *f, const char *name)
{
	for (size_t i = 0; i < f->n_vars; i++)
		if (strcmp(f->vars[i].name, name) == 0)
			return &f->vars[i];
	return NULL;
}

static int s_set(fuego_t *f, const char *name, char *value)
{
	fvar_t *v = s_var(f, name);

	if (v) {
		free(v->value);
	} else {
		if (f->n_vars >= LAB_FUEGO_MAX_VARS) {
			free(value);
			return fuego_fail(f, f->line, NULL, "too many variables (more than %d)",
				      LAB_FUEGO_MAX_VARS);
		}
		f->vars = xreallocarray(f->vars, f->n_vars + 1, sizeof(*f->vars));
		v = &f->vars[f->n_vars++];
		memset(v, 0, sizeof(*v));
		v->name = xstrdup(name);
	}
	v->value = value;
	v->line = f->line;
	return 0;
}

/* The value of a variable for the mapping (marked used), or NULL when it
 * is unset or empty. */
const char *fuego_get(fuego_t *f, const char *name, int *ret_line)
{
	fvar_t *v = s_var(f, name);

	if (!v)
		return NULL;
	v->used = true;
	if (ret_line)
		*ret_line = v->line;
	return v->value[0] ? v->value : NULL;
}

/* ---- scanning -------------------------------------------------------------- */

static bool s_name_char(char c, bool first)
{
	return isalpha((unsigned char)c) || c == '_' ||
	       (!first && (isdigit((unsigned char)c) || c == '.'));
}

/* Fuego's own variables, as its container sets them up: fuego-rw and
 * fuego-ro are mounted at the root, fuego-core beside them, and the
 * board's name is both $BOARD and Jenkins' $NODE_NAME. */
static const char *const s_defaults[FUEGO_N_DEFS][2] = {
	[FUEGO_DEF_RW] = { "FUEGO_RW", "/fuego-rw" },
	[FUEGO_DEF_RO] = { "FUEGO_RO", "/fuego-ro" },
	[FUEGO_DEF_CORE] = { "FUEGO_CORE", "/fuego-core" },
	[FUEGO_DEF_BOARD] = { "BOARD", NULL },
	[FUEGO_DEF_NODE] = { "NODE_NAME", NULL },
};

const char *fuego_default_name(int i)
{
	return s_defaults[i][0];
}

const char *fuego_default_value(const fuego_t *f, int i)
{
	return s_defaults[i][1] ? s_defaults[i][1] : f->board;
}

/* The value of name: set earlier in the file, else one of Fuego's own;
 * NULL when neither. */
static const char *s_lookup_var(fuego_t *f, const char *name)
{
	fvar_t *v = s_var(f, name);

	if (v)
		return v->value;
	for (int i = 0; i < FUEGO_N_DEFS; i++) {
		if (strcmp(s_defaults[i][0], name) == 0 && fuego_default_value(f, i)) {
			f->defaults_used |= 1u << i;
			return fuego_default_value(f, i);
		}
	}
	return NULL;
}

/* $NAME, ${NAME}, ${NAME:-WORD} or ${NAME-WORD} at *pp (pointing at '$'):
 * append the value of a variable set earlier or of one of Fuego's own,
 * else WORD (taken literally); anything else is kept as written, with a
 * note. */
static void s_expand(fuego_t *f, const char *var, const char **pp, buf_t *out)
{
	const char *p = *pp + 1;
	bool brace = *p == '{';
	const char *val, *word = NULL, *end;
	bool colon = false;
	char name[128];
	size_t n = 0;

	if (brace)
		p++;
	while (s_name_char(p[n], n == 0) && p[n] != '.' && n < sizeof(name) - 1)
		n++;
	end = p + n;
	if (brace && n > 0 && (end[0] == '-' || (end[0] == ':' && end[1] == '-'))) {
		colon = end[0] == ':';
		word = end + (colon ? 2 : 1);
		end = strchr(word, '}');
	}
	if (n == 0 || (brace && (!end || *end != '}'))) {
		fuego_note(f, "line %d: %s: shell expansion left as written", f->line, var);
		buf_putc(out, '$');
		*pp += 1;
		return;
	}
	memcpy(name, p, n);
	name[n] = '\0';
	val = s_lookup_var(f, name);
	if (word && (!val || (colon && !val[0])))
		buf_append(out, word, (size_t)(end - word));
	else if (val)
		buf_puts(out, val);
	else {
		fuego_note(f, "line %d: %s: $%s is not set in this file, left as written",
		       f->line, var, name);
		buf_append(out, *pp, (size_t)(end + (brace ? 1 : 0) - *pp));
	}
	*pp = end + (brace ? 1 : 0);
}

/* Read a shell word at *pp into out; -EINVAL on an unterminated quote. */
static int s_word(fuego_t *f, const char *var, const char **pp, buf_t *out)
{
	const char *p = *pp;

	while (*p && !isspace((unsigned char)*p)) {
		if (*p == '\'') {
			const char *end = strchr(p + 1, '\'');

			if (!end)
				return fuego_fail(f, f->line, var, "unterminated quoted value");
			buf_append(out, p + 1, (size_t)(end - p - 1));
			p = end + 1;
		} else if (*p == '"') {
			p++;
			while (*p && *p != '"') {
				if (*p == '\\' && p[1] && strchr("\"\\$`", p[1])) {
					buf_putc(out, p[1]);
					p += 2;
				} else if (*p == '$') {
					s_expand(f, var, &p, out);
				} else {
					buf_putc(out, *p++);
				}
			}
			if (*p != '"')
				return fuego_fail(f, f->line, var, "unterminated quoted value");
			p++;
		} else if (*p == '\\' && p[1]) {
			buf_putc(out, p[1]);
			p += 2;
		} else if (*p == '$') {
			s_expand(f, var, &p, out);
		} else if (*p == '#' && p == *pp) {
			break;
		} else {
			buf_putc(out, *p++);
		}
	}
	*pp = p;
	return 0;
}

static int s_assign(fuego_t *f, const char *s)
{
	char name[128];
	size_t n = 0;
	buf_t val;
	int r;

	while (s_name_char(s[n], n == 0) && n < sizeof(name) - 1)
		n++;
	if (n == 0 || s[n] != '=') {
		fuego_note(f, "line %d: not a variable assignment, ignored", f->line);
		return 0;
	}
	memcpy(name, s, n);
	name[n] = '\0';
	s += n + 1;
	buf_init(&val, FUEGO_MAX_VALUE);
	r = s_word(f, name, &s, &val);
	if (r == 0 && val.truncated)
		r = fuego_fail(f, f->line, name, "value too long (more than %d bytes)",
			   FUEGO_MAX_VALUE);
	if (r < 0) {
		buf_free(&val);
		return r;
	}
	while (isspace((unsigned char)*s))
		s++;
	if (*s && *s != '#')
		fuego_note(f, "line %d: %s: text after the value ignored", f->line, name);
	/* buf_steal of a never-written buffer is not NUL-terminated */
	buf_puts(&val, "");
	return s_set(f, name, buf_steal(&val));
}

static void s_count_braces(fuego_t *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '{') {
			f->func_depth++;
			f->func_open = false;
		} else if (*s == '}' && f->func_depth > 0) {
			f->func_depth--;
		}
	}
}

/* "name() {", "function name", "override-func name() {" */
static bool s_is_function(const char *s)
{
	size_t n = 0;

	if (strncmp(s, "function", 8) == 0 && isspace((unsigned char)s[8]))
		return true;
	if (strncmp(s, "override-func", 13) == 0 && isspace((unsigned char)s[13]))
		return true;
	while (s_name_char(s[n], n == 0))
		n++;
	if (n == 0)
		return false;
	s += n;
	while (*s == ' ' || *s == '\t')
		s++;
	return s[0] == '(';
}

static bool s_keyword(const char *s, const char *kw)
{
	size_t n = strlen(kw);

	return strncmp(s, kw, n) == 0 && (s[n] == '\0' || isspace((unsigned char)s[n]));
}

static int s_line(fuego_t *f, const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	if (f->func_depth > 0 || f->func_open) {
		s_count_braces(f, s);
		return 0;
	}
	if (!*s || *s == '#')
		return 0;
	if (s_keyword(s, "inherit") || s_keyword(s, "include")) {
		fuego_note(f, "line %d: %.*s ignored (Fuego base classes are not needed)",
		       f->line, (int)strcspn(s, " \t"), s);
		return 0;
	}
	if (s_is_function(s)) {
		fuego_note(f, "line %d: function definition skipped (board hooks are "
			  "not imported)", f->line);
		f->func_open = true;
		s_count_braces(f, s);
		return 0;
	}
	if (s_keyword(s, "override"))
		s += 8;
	else if (s_keyword(s, "export"))
		s += 6;
	while (isspace((unsigned char)*s))
		s++;
	return s_assign(f, s);
}

int fuego_scan(fuego_t *f, const char *text, size_t len)
{
	size_t pos = 0;
	char *line = xmalloc(LAB_FUEGO_MAX_LINE + 1);
	int r = 0;

	if (memchr(text, '\0', len))
		r = fuego_fail(f, 1, NULL, "NUL byte in the file");
	while (r == 0 && pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - text - pos) : len - pos;

		f->line++;
		if (n > LAB_FUEGO_MAX_LINE) {
			r = fuego_fail(f, f->line, NULL, "line too long (more than %d bytes)",
				   LAB_FUEGO_MAX_LINE);
			break;
		}
		memcpy(line, text + pos, n);
		if (n && line[n - 1] == '\r')
			n--;
		line[n] = '\0';
		r = s_line(f, line);
		pos = nl ? (size_t)(nl - text) + 1 : len;
	}
	if (r == 0 && (f->func_depth > 0 || f->func_open))
		r = fuego_fail(f, f->line, NULL, "function definition not closed");
	free(line);
	return r;
}
