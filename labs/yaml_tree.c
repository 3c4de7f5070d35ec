/*
 * yaml_tree: the document tree that yaml.c builds from libyaml's events,
 * and everything a reader does with it. See yaml.h.
 *
 * Layout: the key index and freeing the tree; the accessors; paths and
 * errors; the typed readers, first on single nodes, then on mapping
 * fields (which mark the keys they consume), and yaml_check_unknown.
 *
 * Mapping keys live in one open-addressing hash table per tree keyed by
 * (mapping, key text), so duplicate detection and lookups stay linear even
 * for a hostile file with one huge mapping.
 */
#include "labs/yaml.h"
#include "labs/yaml_int.h"
#include "proto/buf.h"
#include "proto/mem.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
bool yaml_key_add(yaml_tree_t *t, yaml_val_t *key)
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

void yaml_sanitize(char *s)
{
	for (unsigned char *p = (unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
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
	yaml_sanitize(t->err);
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
