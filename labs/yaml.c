/*
 * yaml: bounded YAML document tree on libyaml's event API. See yaml.h.
 *
 * This file builds the tree: libyaml's parser events, taken under the
 * limits (bytes, depth, nodes, scalar length) and refused when they carry
 * anchors, aliases, tags, a second document, a non-scalar or a duplicate
 * key; the parser's own errors with their line; reading a file under the
 * byte cap.
 * The tree itself (the key index, the accessors, paths and errors, the
 * typed readers) is yaml_tree.c; yaml_int.h is what the two share.
 *
 * Layout: making a node; the builder and its first error; hanging nodes
 * into the tree; the event handlers; parser errors and limits;
 * yaml_tree_parse; reading a file and yaml_tree_load.
 */
#include "labs/yaml.h"
#include "labs/yaml_int.h"
#include "proto/mem.h"

#include <yaml.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static yaml_val_t *s_node_new(yaml_tree_t *t, enum yaml_kind kind,
			      const yaml_mark_t *mark)
{
	yaml_val_t *v = xzalloc(sizeof(*v));

	v->kind = kind;
	v->tree = t;
	v->line = mark->line < INT_MAX ? (int)mark->line + 1 : INT_MAX;
	v->column = mark->column < INT_MAX ? (int)mark->column + 1 : INT_MAX;
	if (t->n_all == t->alloc_all) {
		t->alloc_all = t->alloc_all ? t->alloc_all * 2 : 64;
		t->all = xreallocarray(t->all, t->alloc_all, sizeof(*t->all));
	}
	t->all[t->n_all++] = v;
	return v;
}

/* ---- building from events ---------------------------------------------- */

typedef struct {
	yaml_tree_t *t;
	yaml_limits_t lim;
	const char *text;
	size_t text_len;
	yaml_val_t *stack[YAML_MAX_DEPTH + 1];
	yaml_val_t **deep; /* used when max_depth exceeds the static stack */
	size_t depth;
	int docs;
	char *err;
	int rc;
} builder_t;

static int s_berr(builder_t *b, int rc, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int s_berr(builder_t *b, int rc, size_t line, const char *fmt, ...)
{
	char msg[YAML_MAX_ERROR];
	va_list ap;

	if (b->err)
		return b->rc;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	b->err = xasprintf("%s:%zu: %s", b->t->name, line, msg);
	if (strlen(b->err) >= YAML_MAX_ERROR)
		b->err[YAML_MAX_ERROR - 1] = '\0';
	yaml_sanitize(b->err);
	b->rc = rc;
	return rc;
}

static yaml_val_t **s_stack(builder_t *b)
{
	return b->deep ? b->deep : b->stack;
}

static void s_append(yaml_val_t *parent, yaml_val_t *v)
{
	if (parent->n_items == parent->alloc) {
		parent->alloc = parent->alloc ? parent->alloc * 2 : 4;
		parent->items = xreallocarray(parent->items, parent->alloc,
					      sizeof(*parent->items));
	}
	parent->items[parent->n_items++] = v;
}

/* Hang a new node under the open container (or make it the root). */
static int s_attach(builder_t *b, yaml_val_t *v)
{
	yaml_val_t *top;

	if (b->depth == 0) {
		b->t->root = v;
		return 0;
	}
	top = s_stack(b)[b->depth - 1];
	v->parent = top;
	if (top->kind == YAML_KIND_SEQ) {
		v->index = top->n_items;
	} else if (top->n_items % 2 == 0) {
		if (v->kind != YAML_KIND_SCALAR)
			return s_berr(b, -EINVAL, (size_t)v->line,
				      "mapping keys must be plain strings");
		v->is_key = true;
		if (!yaml_key_add(b->t, v))
			return s_berr(b, -EINVAL, (size_t)v->line,
				      "duplicate key '%.64s'", v->str);
	} else {
		v->key = top->items[top->n_items - 1];
		v->key->value = v;
	}
	s_append(top, v);
	return 0;
}

static int s_check_props(builder_t *b, const yaml_event_t *ev,
			 const yaml_char_t *anchor, const yaml_char_t *tag)
{
	size_t line = ev->start_mark.line + 1;

	if (anchor)
		return s_berr(b, -EINVAL, line,
			      "anchors and aliases are not allowed");
	if (tag)
		return s_berr(b, -EINVAL, line, "tags are not allowed");
	return 0;
}

static yaml_val_t *s_new_checked(builder_t *b, enum yaml_kind kind,
				 const yaml_event_t *ev)
{
	if (b->t->n_all >= b->lim.max_nodes) {
		s_berr(b, -E2BIG, ev->start_mark.line + 1,
		       "too many nodes (more than %zu)", b->lim.max_nodes);
		return NULL;
	}
	return s_node_new(b->t, kind, &ev->start_mark);
}

static int s_on_scalar(builder_t *b, const yaml_event_t *ev)
{
	const char *val = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	size_t line = ev->start_mark.line + 1;
	yaml_val_t *v;
	int r;

	r = s_check_props(b, ev, ev->data.scalar.anchor, ev->data.scalar.tag);
	if (r < 0)
		return r;
	if (len > b->lim.max_scalar)
		return s_berr(b, -E2BIG, line, "value too long (%zu bytes, at most %zu)",
			      len, b->lim.max_scalar);
	if (memchr(val, '\0', len))
		return s_berr(b, -EINVAL, line, "NUL character in a value");
	v = s_new_checked(b, YAML_KIND_SCALAR, ev);
	if (!v)
		return b->rc;
	v->str = xstrndup(val, len);
	v->len = len;
	v->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	return s_attach(b, v);
}

static int s_on_open(builder_t *b, const yaml_event_t *ev, enum yaml_kind kind,
		     const yaml_char_t *anchor, const yaml_char_t *tag)
{
	yaml_val_t *v;
	int r;

	r = s_check_props(b, ev, anchor, tag);
	if (r < 0)
		return r;
	if (b->depth >= b->lim.max_depth)
		return s_berr(b, -E2BIG, ev->start_mark.line + 1,
			      "nested too deep (more than %zu levels)",
			      b->lim.max_depth);
	v = s_new_checked(b, kind, ev);
	if (!v)
		return b->rc;
	r = s_attach(b, v);
	if (r < 0)
		return r;
	s_stack(b)[b->depth++] = v;
	return 0;
}

static int s_on_event(builder_t *b, const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (b->docs++ > 0)
			return s_berr(b, -EINVAL, ev->start_mark.line + 1,
				      "only one YAML document is allowed");
		return 0;
	case YAML_ALIAS_EVENT:
		return s_berr(b, -EINVAL, ev->start_mark.line + 1,
			      "anchors and aliases are not allowed");
	case YAML_SCALAR_EVENT:
		return s_on_scalar(b, ev);
	case YAML_SEQUENCE_START_EVENT:
		return s_on_open(b, ev, YAML_KIND_SEQ,
				 ev->data.sequence_start.anchor,
				 ev->data.sequence_start.tag);
	case YAML_MAPPING_START_EVENT:
		return s_on_open(b, ev, YAML_KIND_MAP,
				 ev->data.mapping_start.anchor,
				 ev->data.mapping_start.tag);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (b->depth > 0)
			b->depth--;
		return 0;
	default:
		return 0;
	}
}

static size_t s_line_at(const char *text, size_t len, size_t off)
{
	size_t line = 1;

	for (size_t i = 0; i < off && i < len; i++)
		if (text[i] == '\n')
			line++;
	return line;
}

/* libyaml's parser messages as a lab operator would say them. */
static const struct {
	const char *problem, *context, *say;
} s_plain_errors[] = {
	{ "did not find expected ',' or ']'", NULL,
	  "a [list] is not closed: a ',' or ']' is missing" },
	{ "did not find expected ',' or '}'", NULL,
	  "a {mapping} is not closed: a ',' or '}' is missing" },
	{ "did not find expected '-' indicator", NULL,
	  "the indentation is off: a list item ('- ...') or less indentation"
	  " was expected here" },
	{ "did not find expected key", NULL,
	  "the indentation is off: a 'key:' at the same depth as the lines"
	  " above was expected here" },
	{ "mapping values are not allowed in this context", NULL,
	  "a ':' where a value was expected (quote a value that holds ': ',"
	  " or check the indentation)" },
	{ "found character that cannot start any token", NULL,
	  "a character that cannot start a value here (a tab? YAML indents"
	  " with spaces; quote values that start with @ or `)" },
	{ "could not find expected ':'", NULL,
	  "a key without a ':' after it" },
	{ "found unexpected end of stream", NULL,
	  "the file ends inside a quoted string: a closing quote is missing" },
};

static const char *s_plain(const char *problem)
{
	for (size_t i = 0; i < sizeof(s_plain_errors) / sizeof(*s_plain_errors);
	     i++)
		if (!strcmp(problem, s_plain_errors[i].problem))
			return s_plain_errors[i].say;
	return NULL;
}

static int s_parser_error(builder_t *b, const yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "syntax error";
	const char *say = s_plain(problem);
	size_t line;

	if (p->error == YAML_READER_ERROR)
		line = s_line_at(b->text, b->text_len, p->problem_offset);
	else
		line = p->problem_mark.line + 1;
	if (p->error == YAML_MEMORY_ERROR)
		return s_berr(b, -ENOMEM, line, "out of memory");
	if (say)
		return s_berr(b, -EINVAL, line, "%s (YAML: %s%s%s)", say,
			      problem, p->context ? " " : "",
			      p->context ? p->context : "");
	if (p->context)
		return s_berr(b, -EINVAL, line, "%s %s", problem, p->context);
	return s_berr(b, -EINVAL, line, "%s", problem);
}

static void s_limits(yaml_limits_t *out, const yaml_limits_t *in)
{
	out->max_bytes = in && in->max_bytes ? in->max_bytes : YAML_MAX_BYTES;
	out->max_depth = in && in->max_depth ? in->max_depth : YAML_MAX_DEPTH;
	out->max_nodes = in && in->max_nodes ? in->max_nodes : YAML_MAX_NODES;
	out->max_scalar = in && in->max_scalar ? in->max_scalar : YAML_MAX_SCALAR;
}

static int s_build(builder_t *b)
{
	yaml_parser_t p;
	yaml_event_t ev;
	bool done = false;
	int r = 0;

	if (!yaml_parser_initialize(&p))
		return s_berr(b, -ENOMEM, 1, "out of memory");
	yaml_parser_set_input_string(&p, (const unsigned char *)b->text,
				     b->text_len);
	while (!done && r == 0) {
		if (!yaml_parser_parse(&p, &ev)) {
			r = s_parser_error(b, &p);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		r = s_on_event(b, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return r;
}

int yaml_tree_parse(const char *name, const char *text, size_t len,
		    const yaml_limits_t *lim, yaml_tree_t **ret_tree,
		    char **ret_err)
{
	builder_t b;
	int r;

	memset(&b, 0, sizeof(b));
	s_limits(&b.lim, lim);
	b.t = xzalloc(sizeof(*b.t));
	b.t->name = xstrdup(name ? name : "(input)");
	b.text = text ? text : ""; /* libyaml asserts on a NULL input */
	b.text_len = text ? len : 0;
	if (len > b.lim.max_bytes) {
		r = s_berr(&b, -EFBIG, 1, "file too large (%zu bytes, at most %zu)",
			   len, b.lim.max_bytes);
		goto fail;
	}
	if (b.lim.max_depth > YAML_MAX_DEPTH)
		b.deep = xcalloc(b.lim.max_depth + 1, sizeof(*b.deep));
	r = s_build(&b);
	free(b.deep);
	if (r < 0)
		goto fail;
	*ret_tree = b.t;
	return 0;
fail:
	*ret_err = b.err;
	yaml_tree_destroy(&b.t);
	return r;
}

static int s_read_file(const char *path, size_t max, char **ret, size_t *ret_len,
		       char **ret_err)
{
	struct stat st;
	size_t len = 0, alloc;
	char *data;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		*ret_err = xasprintf("%s: %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		*ret_err = xasprintf("%s: %s", path, strerror(-r));
		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		*ret_err = xasprintf("%s: not a regular file", path);
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	alloc = max + 2;
	data = xmalloc(alloc);
	/* read one byte past the cap so "too large" is detected, not cut */
	while (len < max + 1) {
		ssize_t n = read(fd, data + len, max + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			*ret_err = xasprintf("%s: %s", path, strerror(-r));
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max) {
		r = -EFBIG;
		*ret_err = xasprintf("%s:1: file too large (more than %zu bytes)",
				     path, max);
		goto fail;
	}
	close(fd);
	data[len] = '\0';
	*ret = data;
	*ret_len = len;
	return 0;
fail:
	close(fd);
	free(data);
	return r;
}

int yaml_tree_load(const char *path, const yaml_limits_t *lim,
		   yaml_tree_t **ret_tree, char **ret_err)
{
	yaml_limits_t l;
	char *data = NULL;
	size_t len = 0;
	int r;

	s_limits(&l, lim);
	r = s_read_file(path, l.max_bytes, &data, &len, ret_err);
	if (r < 0)
		return r;
	r = yaml_tree_parse(path, data, len, &l, ret_tree, ret_err);
	free(data);
	return r;
}
