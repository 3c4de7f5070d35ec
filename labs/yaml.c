/*
 * yaml: bounded YAML document tree on libyaml's event API. See yaml.h.
 *
 * Layout: the tree (nodes, a key index, the first error); building it from
 * parser events under the limits; the error and path helpers; the typed
 * readers, first on single nodes, then on mapping fields.
 *
 * Mapping keys live in one open-addressing hash table per tree keyed by
 * (mapping, key text), so duplicate detection and lookups stay linear even
 * for a hostile file with one huge mapping.
 */
#include "labs/yaml.h"
#include "proto/buf.h"
#include "proto/mem.h"

#include <yaml.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct yaml_val {
	enum yaml_kind kind;
	int line;
	int column;
	yaml_tree_t *tree;
	yaml_val_t *parent;
	size_t index;  /* position in the parent sequence */
	bool is_key;   /* a mapping key */
	bool used;     /* key: consumed by a reader */
	bool plain;    /* scalar: unquoted */
	char *str;     /* scalar text */
	size_t len;    /* scalar bytes */
	yaml_val_t **items; /* sequence: items; mapping: key, value, key... */
	size_t n_items;
	size_t alloc;
	yaml_val_t *key;   /* value in a mapping: its key */
	yaml_val_t *value; /* key: its value */
};

struct yaml_tree {
	char *name;
	yaml_val_t *root;
	yaml_val_t **all; /* every node, for freeing */
	size_t n_all;
	size_t alloc_all;
	yaml_val_t **keys; /* hash table of key nodes */
	size_t keys_cap;   /* a power of two */
	size_t n_keys;
	char *err;
};

/* ---- tree and key index ------------------------------------------------ */

static uint64_t s_hash(const yaml_val_t *map, const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)(uintptr_t)map;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h ^ (h >> 29);
}

static yaml_val_t **s_key_slot(const yaml_tree_t *t, const yaml_val_t *map,
			       const char *s, size_t n)
{
	size_t mask = t->keys_cap - 1;
	size_t i = (size_t)s_hash(map, s, n) & mask;

	for (;;) {
		yaml_val_t *k = t->keys[i];

		if (!k || (k->parent == map && k->len == n &&
			   memcmp(k->str, s, n) == 0))
			return &t->keys[i];
		i = (i + 1) & mask;
	}
}

static void s_keys_grow(yaml_tree_t *t)
{
	yaml_val_t **old = t->keys;
	size_t old_cap = t->keys_cap;

	t->keys_cap = old_cap ? old_cap * 2 : 64;
	t->keys = xcalloc(t->keys_cap, sizeof(*t->keys));
	for (size_t i = 0; i < old_cap; i++) {
		yaml_val_t *k = old[i];

		if (k)
			*s_key_slot(t, k->parent, k->str, k->len) = k;
	}
	free(old);
}

/* Index a new key of map; false if map already has it. */
static bool s_key_add(yaml_tree_t *t, yaml_val_t *key)
{
	yaml_val_t **slot;

	if ((t->n_keys + 1) * 2 > t->keys_cap)
		s_keys_grow(t);
	slot = s_key_slot(t, key->parent, key->str, key->len);
	if (*slot)
		return false;
	*slot = key;
	t->n_keys++;
	return true;
}

static yaml_val_t *s_key_find(const yaml_val_t *map, const char *s)
{
	const yaml_tree_t *t = map->tree;

	if (!t->keys_cap)
		return NULL;
	return *s_key_slot(t, map, s, strlen(s));
}

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

void yaml_tree_destroy(yaml_tree_t **p)
{
	yaml_tree_t *t;

	if (!p || !*p)
		return;
	t = *p;
	for (size_t i = 0; i < t->n_all; i++) {
		free(t->all[i]->str);
		free(t->all[i]->items);
		free(t->all[i]);
	}
	free(t->all);
	free(t->keys);
	free(t->name);
	free(t->err);
	free(t);
	*p = NULL;
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

static void s_sanitize(char *s)
{
	for (unsigned char *p = (unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
}

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
	s_sanitize(b->err);
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
		if (!s_key_add(b->t, v))
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

static int s_parser_error(builder_t *b, const yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "syntax error";
	size_t line;

	if (p->error == YAML_READER_ERROR)
		line = s_line_at(b->text, b->text_len, p->problem_offset);
	else
		line = p->problem_mark.line + 1;
	if (p->error == YAML_MEMORY_ERROR)
		return s_berr(b, -ENOMEM, line, "out of memory");
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

/* ---- accessors ---------------------------------------------------------- */

yaml_val_t *yaml_tree_root(yaml_tree_t *t)
{
	return t ? t->root : NULL;
}

const char *yaml_tree_name(const yaml_tree_t *t)
{
	return t->name;
}

const char *yaml_tree_error(const yaml_tree_t *t)
{
	return t->err;
}

char *yaml_tree_take_error(yaml_tree_t *t)
{
	char *e = t->err;

	t->err = NULL;
	return e;
}

size_t yaml_tree_nodes(const yaml_tree_t *t)
{
	return t->n_all;
}

enum yaml_kind yaml_kind(const yaml_val_t *v)
{
	return v->kind;
}

int yaml_line(const yaml_val_t *v)
{
	return v->line;
}

int yaml_column(const yaml_val_t *v)
{
	return v->column;
}

yaml_tree_t *yaml_val_tree(const yaml_val_t *v)
{
	return v->tree;
}

const char *yaml_str(const yaml_val_t *v)
{
	return v && v->kind == YAML_KIND_SCALAR ? v->str : NULL;
}

size_t yaml_len(const yaml_val_t *v)
{
	if (!v)
		return 0;
	if (v->kind == YAML_KIND_SCALAR)
		return v->len;
	if (v->kind == YAML_KIND_MAP)
		return v->n_items / 2;
	return v->n_items;
}

bool yaml_is_plain(const yaml_val_t *v)
{
	return v && v->kind == YAML_KIND_SCALAR && v->plain;
}

bool yaml_is_null(const yaml_val_t *v)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };

	if (!yaml_is_plain(v))
		return false;
	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		if (strcmp(v->str, nulls[i]) == 0)
			return true;
	return false;
}

yaml_val_t *yaml_item(const yaml_val_t *seq, size_t i)
{
	if (!seq || seq->kind != YAML_KIND_SEQ || i >= seq->n_items)
		return NULL;
	return seq->items[i];
}

yaml_val_t *yaml_pair_key(const yaml_val_t *map, size_t i)
{
	if (!map || map->kind != YAML_KIND_MAP || i >= map->n_items / 2)
		return NULL;
	return map->items[2 * i];
}

yaml_val_t *yaml_pair_value(const yaml_val_t *map, size_t i)
{
	if (!map || map->kind != YAML_KIND_MAP || i >= map->n_items / 2)
		return NULL;
	return map->items[2 * i + 1];
}

yaml_val_t *yaml_map_peek(const yaml_val_t *map, const char *key)
{
	yaml_val_t *k;

	if (!map || map->kind != YAML_KIND_MAP)
		return NULL;
	k = s_key_find(map, key);
	return k ? k->value : NULL;
}

/* ---- paths and errors ---------------------------------------------------- */

/* ---- paths and errors ---------------------------------------------------- */

#define YAML_MAX_PATH 1024

static void s_path(buf_t *b, const yaml_val_t *v)
{
	const yaml_val_t *p = v->parent;

	if (!p)
		return;
	s_path(b, p);
	if (p->kind == YAML_KIND_SEQ) {
		buf_printf(b, "[%zu]", v->index);
		return;
	}
	if (b->len)
		buf_putc(b, '.');
	buf_puts(b, v->is_key ? v->str : v->key->str);
}

char *yaml_path(const yaml_val_t *v)
{
	buf_t b;

	buf_init(&b, YAML_MAX_PATH);
	buf_puts(&b, "");
	s_path(&b, v);
	return buf_steal(&b);
}

static int s_record(yaml_tree_t *t, int line, const char *path,
		    const char *fmt, va_list ap)
{
	char msg[YAML_MAX_ERROR];

	if (t->err)
		return -EINVAL;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (path && path[0])
		t->err = xasprintf("%s:%d: %s: %s", t->name, line, path, msg);
	else
		t->err = xasprintf("%s:%d: %s", t->name, line, msg);
	if (strlen(t->err) >= YAML_MAX_ERROR)
		t->err[YAML_MAX_ERROR - 1] = '\0';
	s_sanitize(t->err);
	return -EINVAL;
}

int yaml_fail(yaml_val_t *v, const char *fmt, ...)
{
	va_list ap;
	char *path;
	int r;

	if (!v)
		return -EINVAL;
	if (v->tree->err)
		return -EINVAL;
	path = yaml_path(v);
	va_start(ap, fmt);
	r = s_record(v->tree, v->line, path, fmt, ap);
	va_end(ap);
	free(path);
	return r;
}

int yaml_fail_field(yaml_val_t *map, const char *key, const char *fmt, ...)
{
	yaml_val_t *k = NULL;
	va_list ap;
	buf_t b;
	int r;

	if (!map)
		return -EINVAL;
	if (map->tree->err)
		return -EINVAL;
	if (map->kind == YAML_KIND_MAP)
		k = s_key_find(map, key);
	buf_init(&b, YAML_MAX_PATH);
	buf_puts(&b, "");
	s_path(&b, map);
	if (b.len)
		buf_putc(&b, '.');
	buf_puts(&b, key);
	va_start(ap, fmt);
	r = s_record(map->tree, k ? k->line : map->line, buf_str(&b), fmt, ap);
	va_end(ap);
	buf_free(&b);
	return r;
}

/* ---- typed reads of one node ---------------------------------------------- */

static const char *s_kind_name(enum yaml_kind k)
{
	switch (k) {
	case YAML_KIND_SCALAR:
		return "a single value";
	case YAML_KIND_SEQ:
		return "a list";
	case YAML_KIND_MAP:
		return "a mapping";
	}
	return "?";
}

int yaml_expect(yaml_val_t *v, enum yaml_kind kind)
{
	if (!v)
		return -EINVAL;
	if (v->kind != kind)
		return yaml_fail(v, "expected %s, not %s", s_kind_name(kind),
				 s_kind_name(v->kind));
	return 0;
}

int yaml_to_str(yaml_val_t *v, size_t max_len, char **ret)
{
	int r = yaml_expect(v, YAML_KIND_SCALAR);

	if (r < 0)
		return r;
	if (max_len && v->len > max_len)
		return yaml_fail(v, "too long (%zu bytes, at most %zu)", v->len,
				 max_len);
	*ret = xstrdup(v->str);
	return 0;
}

int yaml_to_ll(yaml_val_t *v, long long min, long long max, long long *ret)
{
	const char *s;
	char *end;
	long long n;
	size_t i;
	int r = yaml_expect(v, YAML_KIND_SCALAR);

	if (r < 0)
		return r;
	s = v->str;
	i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
	if (s[i] == '\0' || strspn(s + i, "0123456789") != strlen(s + i))
		return yaml_fail(v, "'%.64s' is not an integer", s);
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno == ERANGE || *end != '\0' || n < min || n > max)
		return yaml_fail(v, "%.64s is out of range (%lld to %lld)", s,
				 min, max);
	*ret = n;
	return 0;
}

int yaml_to_int(yaml_val_t *v, long long min, long long max, int *ret)
{
	long long n;
	int r;

	if (min < INT_MIN)
		min = INT_MIN;
	if (max > INT_MAX)
		max = INT_MAX;
	r = yaml_to_ll(v, min, max, &n);
	if (r < 0)
		return r;
	*ret = (int)n;
	return 0;
}

int yaml_to_double(yaml_val_t *v, double *ret)
{
	const char *s;
	char *end;
	double d;
	int r = yaml_expect(v, YAML_KIND_SCALAR);

	if (r < 0)
		return r;
	s = v->str;
	/* digits, sign, point and exponent only: no nan, inf or hex floats */
	if (!s[0] || strspn(s, "0123456789+-.eE") != v->len ||
	    !strpbrk(s, "0123456789"))
		return yaml_fail(v, "'%.64s' is not a number", s);
	errno = 0;
	d = strtod(s, &end);
	if (*end != '\0')
		return yaml_fail(v, "'%.64s' is not a number", s);
	if (errno == ERANGE || !isfinite(d))
		return yaml_fail(v, "%.64s is out of range", s);
	*ret = d;
	return 0;
}

int yaml_to_bool(yaml_val_t *v, bool *ret)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes",
					   "Yes",  "YES",  "on",   "On", "ON" };
	static const char *const no[] = { "false", "False", "FALSE", "no",
					  "No",    "NO",    "off",   "Off", "OFF" };
	int r = yaml_expect(v, YAML_KIND_SCALAR);

	if (r < 0)
		return r;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcmp(v->str, yes[i]) == 0) {
			*ret = true;
			return 0;
		}
		if (strcmp(v->str, no[i]) == 0) {
			*ret = false;
			return 0;
		}
	}
	return yaml_fail(v, "'%.64s' is not a boolean (expected true or false)",
			 v->str);
}

int yaml_to_enum(yaml_val_t *v, const char *what, const char *const *names,
		 int *ret)
{
	char expected[256];
	size_t o = 0;
	int r = yaml_expect(v, YAML_KIND_SCALAR);

	if (r < 0)
		return r;
	for (int i = 0; names[i]; i++) {
		if (strcmp(v->str, names[i]) == 0) {
			*ret = i;
			return 0;
		}
	}
	expected[0] = '\0';
	for (int i = 0; names[i] && o < sizeof(expected); i++) {
		int n = snprintf(expected + o, sizeof(expected) - o, "%s%s",
				 i ? ", " : "", names[i]);
		if (n < 0)
			break;
		o += (size_t)n;
	}
	return yaml_fail(v, "unknown %s '%.64s' (expected %s)", what, v->str,
			 expected);
}

void yaml_strlist_free(char ***p, size_t n)
{
	if (!p || !*p)
		return;
	for (size_t i = 0; i < n; i++)
		free((*p)[i]);
	free(*p);
	*p = NULL;
}

int yaml_to_strlist(yaml_val_t *v, size_t max_items, size_t max_len,
		    char ***ret, size_t *ret_n)
{
	char **list = NULL;
	size_t n;
	int r = yaml_expect(v, YAML_KIND_SEQ);

	if (r < 0)
		return r;
	n = v->n_items;
	if (max_items && n > max_items)
		return yaml_fail(v, "too many items (%zu, at most %zu)", n,
				 max_items);
	if (n)
		list = xcalloc(n, sizeof(*list));
	for (size_t i = 0; i < n; i++) {
		r = yaml_to_str(v->items[i], max_len, &list[i]);
		if (r < 0) {
			yaml_strlist_free(&list, i);
			return r;
		}
	}
	*ret = list;
	*ret_n = n;
	return 0;
}

/* ---- typed reads of mapping fields ---------------------------------------- */

/* Find and consume key; 1 and *ret if present and not null, 0 if absent
 * and optional, -EINVAL otherwise. */
static int s_field(yaml_val_t *map, const char *key, int flags,
		   yaml_val_t **ret)
{
	yaml_val_t *k, *v;

	if (!map)
		return (flags & YAML_REQUIRED) ? -EINVAL : 0;
	if (map->kind != YAML_KIND_MAP)
		return yaml_expect(map, YAML_KIND_MAP);
	k = s_key_find(map, key);
	if (k)
		k->used = true;
	v = k ? k->value : NULL;
	if (!v || yaml_is_null(v)) {
		if (flags & YAML_REQUIRED)
			return yaml_fail_field(map, key,
					       "required field is missing");
		return 0;
	}
	*ret = v;
	return 1;
}

yaml_val_t *yaml_get(yaml_val_t *map, const char *key)
{
	yaml_val_t *v = NULL;

	return s_field(map, key, YAML_OPTIONAL, &v) > 0 ? v : NULL;
}

int yaml_get_str(yaml_val_t *map, const char *key, int flags, size_t max_len,
		 char **ret)
{
	yaml_val_t *v;
	char *s;
	int r = s_field(map, key, flags, &v);

	if (r <= 0)
		return r;
	r = yaml_to_str(v, max_len, &s);
	if (r < 0)
		return r;
	*ret = s;
	return 1;
}

int yaml_get_ll(yaml_val_t *map, const char *key, int flags, long long min,
		long long max, long long *ret)
{
	yaml_val_t *v;
	int r = s_field(map, key, flags, &v);

	if (r <= 0)
		return r;
	r = yaml_to_ll(v, min, max, ret);
	return r < 0 ? r : 1;
}

int yaml_get_int(yaml_val_t *map, const char *key, int flags, long long min,
		 long long max, int *ret)
{
	yaml_val_t *v;
	int r = s_field(map, key, flags, &v);

	if (r <= 0)
		return r;
	r = yaml_to_int(v, min, max, ret);
	return r < 0 ? r : 1;
}

int yaml_get_double(yaml_val_t *map, const char *key, int flags, double *ret)
{
	yaml_val_t *v;
	int r = s_field(map, key, flags, &v);

	if (r <= 0)
		return r;
	r = yaml_to_double(v, ret);
	return r < 0 ? r : 1;
}

int yaml_get_bool(yaml_val_t *map, const char *key, int flags, bool *ret)
{
	yaml_val_t *v;
	int r = s_field(map, key, flags, &v);

	if (r <= 0)
		return r;
	r = yaml_to_bool(v, ret);
	return r < 0 ? r : 1;
}

int yaml_get_enum(yaml_val_t *map, const char *key, int flags,
		  const char *what, const char *const *names, int *ret)
{
	yaml_val_t *v;
	int r = s_field(map, key, flags, &v);

	if (r <= 0)
		return r;
	r = yaml_to_enum(v, what, names, ret);
	return r < 0 ? r : 1;
}

int yaml_get_strlist(yaml_val_t *map, const char *key, int flags,
		     size_t max_items, size_t max_len, char ***ret,
		     size_t *ret_n)
{
	yaml_val_t *v;
	int r = s_field(map, key, flags, &v);

	if (r <= 0)
		return r;
	r = yaml_to_strlist(v, max_items, max_len, ret, ret_n);
	return r < 0 ? r : 1;
}

int yaml_get_map(yaml_val_t *map, const char *key, int flags, yaml_val_t **ret)
{
	yaml_val_t *v;
	int r = s_field(map, key, flags, &v);

	if (r <= 0)
		return r;
	r = yaml_expect(v, YAML_KIND_MAP);
	if (r < 0)
		return r;
	*ret = v;
	return 1;
}

int yaml_get_seq(yaml_val_t *map, const char *key, int flags, yaml_val_t **ret)
{
	yaml_val_t *v;
	int r = s_field(map, key, flags, &v);

	if (r <= 0)
		return r;
	r = yaml_expect(v, YAML_KIND_SEQ);
	if (r < 0)
		return r;
	*ret = v;
	return 1;
}

int yaml_check_unknown(yaml_val_t *map)
{
	if (!map || map->kind != YAML_KIND_MAP)
		return 0;
	for (size_t i = 0; i < map->n_items; i += 2)
		if (!map->items[i]->used)
			return yaml_fail(map->items[i], "unknown field");
	return 0;
}
