/*
 * yaml: a small, bounded YAML document tree for configuration files
 * (lab.yaml, suite.yaml), built on libyaml's event parser.
 *
 * Configuration files are written by people and sometimes by scripts fed
 * from elsewhere, so the tree is built under hard limits (bytes, depth,
 * node count, scalar length) and refuses the YAML features a config never
 * needs and an attacker loves: aliases and anchors (the "billion laughs"),
 * explicit tags, more than one document, non-scalar mapping keys. Duplicate
 * mapping keys are an error, not "last one wins".
 *
 * Every node remembers its line and column (1-based) and where it sits in
 * the document, so every error can say
 *
 *	FILE:LINE: PATH: what is wrong
 *
 * e.g. "lab.yaml:14: boards[1].transport.baud: 115201 is not a standard
 * baud rate". PATH is built from mapping keys and sequence indices
 * ("boards[1].transport.baud"); errors about the document itself have no
 * PATH part.
 *
 * How a reader uses it (the pattern the lab loader follows):
 *
 *	yaml_tree_t *t;
 *	char *err;
 *	if (yaml_tree_load(path, NULL, &t, &err) < 0) { report err; free(err); }
 *	yaml_val_t *root = yaml_tree_root(t);       // NULL: empty document
 *	if (yaml_expect(root, YAML_KIND_MAP) < 0) goto fail;
 *	yaml_val_t *node;
 *	yaml_get_map(root, "node", YAML_OPTIONAL, &node);
 *	yaml_get_str(node, "listen", YAML_REQUIRED, 256, &cfg->listen);
 *	yaml_get_int(node, "max_peers", YAML_OPTIONAL, 1, 1024, &cfg->max_peers);
 *	yaml_check_unknown(node);   // "FILE:LINE: node.lisen: unknown field"
 *	...
 *	if (yaml_tree_error(t)) { err = yaml_tree_take_error(t); goto fail; }
 *
 * Errors: the first error is kept in the tree (later ones are dropped), so
 * a reader may either stop at the first negative return or carry on and
 * check yaml_tree_error() once at the end. Every reading function returns
 * a negative errno code (-EINVAL) after recording the error.
 *
 * Reading a mapping marks the keys it looked up as consumed; after reading
 * everything it knows, the reader calls yaml_check_unknown() on that
 * mapping, which reports the first key nobody asked for. That is how typos
 * ("bauds:") are caught instead of silently ignored.
 *
 * Null: a plain scalar that is empty, "~" or "null" (as in "key:" with no
 * value) counts as absent for the yaml_get_* functions. Quoted "null" is a
 * string.
 *
 * Lifetimes: nodes and their strings belong to the tree and die with
 * yaml_tree_destroy(). Functions returning char * (yaml_get_str,
 * yaml_to_str, yaml_path, yaml_tree_take_error...) return fresh strings the
 * caller frees. Node pointers are not const because reading marks keys
 * consumed; the tree is otherwise never changed after parsing.
 *
 * Not thread-safe per tree (one reader at a time); separate trees are
 * independent.
 */
#ifndef LABMESH_LABS_YAML_H
#define LABMESH_LABS_YAML_H

#include <stdbool.h>
#include <stddef.h>

#define YAML_MAX_BYTES (1024 * 1024) /* input larger than this is refused */
#define YAML_MAX_DEPTH 32            /* nested sequences/mappings */
#define YAML_MAX_NODES 100000        /* scalars + sequences + mappings */
#define YAML_MAX_SCALAR (64 * 1024)  /* bytes in one scalar */
#define YAML_MAX_ERROR 512           /* an error line is cut at this length */

/* Limits for one parse; a zero field takes the default above. */
typedef struct {
	size_t max_bytes;
	size_t max_depth;
	size_t max_nodes;
	size_t max_scalar;
} yaml_limits_t;

enum yaml_kind {
	YAML_KIND_SCALAR = 1,
	YAML_KIND_SEQ,
	YAML_KIND_MAP,
};

/* flags for the yaml_get_* functions */
enum {
	YAML_OPTIONAL = 0, /* absent (or null): return 0, nothing written */
	YAML_REQUIRED = 1, /* absent (or null): "PATH: missing required field" */
};

typedef struct yaml_tree yaml_tree_t;
typedef struct yaml_val yaml_val_t;

/* ---- parsing ---------------------------------------------------------- */

/*
 * Parse len bytes of text (need not be NUL-terminated) into a tree. name is
 * the file name used in messages. lim may be NULL for the defaults.
 * Returns 0 and *ret_tree (the caller's, free with yaml_tree_destroy), or a
 * negative errno code and *ret_err, one line "NAME:LINE: message" that the
 * caller frees: -EFBIG (too large), -EINVAL (syntax, refused feature,
 * duplicate key), -E2BIG (too deep, too many nodes, scalar too long).
 */
int yaml_tree_parse(const char *name, const char *text, size_t len,
		    const yaml_limits_t *lim, yaml_tree_t **ret_tree,
		    char **ret_err);
/*
 * Read the file at path (at most lim->max_bytes; a larger file is refused
 * without being read whole) and parse it; the path is the name in messages.
 * I/O errors come back as "PATH: strerror" with their -errno.
 */
int yaml_tree_load(const char *path, const yaml_limits_t *lim,
		   yaml_tree_t **ret_tree, char **ret_err);
void yaml_tree_destroy(yaml_tree_t **p);

/* The document's top node; NULL for an empty document. Borrowed. */
yaml_val_t *yaml_tree_root(yaml_tree_t *t);
/* The name given at parse time. Borrowed. */
const char *yaml_tree_name(const yaml_tree_t *t);
/* The first error recorded while reading, or NULL. Borrowed. */
const char *yaml_tree_error(const yaml_tree_t *t);
/* The first error, handed to the caller (who frees it); NULL if none. */
char *yaml_tree_take_error(yaml_tree_t *t);
/* Number of nodes in the tree. */
size_t yaml_tree_nodes(const yaml_tree_t *t);

/* ---- looking at nodes (no consumption, no errors) --------------------- */

enum yaml_kind yaml_kind(const yaml_val_t *v);
/* 1-based position of the node's first character. */
int yaml_line(const yaml_val_t *v);
int yaml_column(const yaml_val_t *v);
/* The tree a node belongs to. */
yaml_tree_t *yaml_val_tree(const yaml_val_t *v);
/* A scalar's text (NUL-terminated, never contains NUL), or NULL for a
 * sequence or mapping. Borrowed. */
const char *yaml_str(const yaml_val_t *v);
/* A scalar's length in bytes; a sequence's items; a mapping's pairs. */
size_t yaml_len(const yaml_val_t *v);
/* true for an unquoted scalar: a plain 22 rather than "22". */
bool yaml_is_plain(const yaml_val_t *v);
/* true for a plain "", "~", "null", "Null", "NULL". */
bool yaml_is_null(const yaml_val_t *v);
/* The i-th item of a sequence, or NULL. */
yaml_val_t *yaml_item(const yaml_val_t *seq, size_t i);
/* The i-th key (always a scalar) / value of a mapping, or NULL. */
yaml_val_t *yaml_pair_key(const yaml_val_t *map, size_t i);
yaml_val_t *yaml_pair_value(const yaml_val_t *map, size_t i);
/* Find key in a mapping without marking it consumed; NULL if absent. */
yaml_val_t *yaml_map_peek(const yaml_val_t *map, const char *key);
/* The node's path ("boards[2].transport"; "" for the top). Caller frees. */
char *yaml_path(const yaml_val_t *v);

/* ---- errors ----------------------------------------------------------- */

/*
 * Record "FILE:LINE: PATH: <message>" about v (line and path of v), unless
 * an error was recorded before. Control characters are escaped and the
 * line is cut at YAML_MAX_ERROR. Returns -EINVAL, for "return yaml_fail()".
 */
int yaml_fail(yaml_val_t *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * The same about field key of mapping map, which may be absent: the path is
 * map's path + key, the line is the key's when present, else the map's.
 * For "boards[0].transport.host: missing (ssh needs a host)".
 */
int yaml_fail_field(yaml_val_t *map, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- typed reads of a mapping's fields ---------------------------------
 *
 * Each looks key up in map (a mapping; map NULL reads as an empty mapping),
 * marks it consumed, checks its type and range and writes *ret. Returns 1
 * when the value was found and written, 0 when it is absent or null and
 * flags is YAML_OPTIONAL (nothing written: set defaults beforehand), or
 * -EINVAL with the error recorded.
 */

/* Consume key and return its value node, NULL if absent or null. */
yaml_val_t *yaml_get(yaml_val_t *map, const char *key);
/* A scalar; strings longer than max_len bytes are refused (0: no limit
 * beyond the parse limit). *ret is a fresh copy. */
int yaml_get_str(yaml_val_t *map, const char *key, int flags, size_t max_len,
		 char **ret);
/* A decimal integer (optional sign, digits only; quoted is accepted) in
 * [min, max]. */
int yaml_get_int(yaml_val_t *map, const char *key, int flags, long long min,
		 long long max, int *ret);
int yaml_get_ll(yaml_val_t *map, const char *key, int flags, long long min,
		long long max, long long *ret);
/* A finite decimal number ("1", "-2.5", "1e3"; no nan, inf, hex). */
int yaml_get_double(yaml_val_t *map, const char *key, int flags, double *ret);
/* true/false, yes/no, on/off (lower, Capitalised or UPPER case). */
int yaml_get_bool(yaml_val_t *map, const char *key, int flags, bool *ret);
/*
 * One of names[] (NULL-terminated); *ret is its index. what names the
 * thing in the error: "unknown transport 'telnet' (expected local, ssh)".
 */
int yaml_get_enum(yaml_val_t *map, const char *key, int flags,
		  const char *what, const char *const *names, int *ret);
/*
 * A sequence of scalars (an empty one is fine), at most max_items items of
 * at most max_len bytes each. *ret is a fresh array of fresh strings
 * (free each, then the array), *ret_n its length; an empty list gives
 * *ret NULL and *ret_n 0.
 */
int yaml_get_strlist(yaml_val_t *map, const char *key, int flags,
		     size_t max_items, size_t max_len, char ***ret,
		     size_t *ret_n);
/* A mapping / a sequence node (borrowed). */
int yaml_get_map(yaml_val_t *map, const char *key, int flags,
		 yaml_val_t **ret);
int yaml_get_seq(yaml_val_t *map, const char *key, int flags,
		 yaml_val_t **ret);
/*
 * Report the first key of map that no yaml_get* call consumed:
 * "FILE:LINE: PATH.key: unknown field". Returns 0 or -EINVAL. map NULL: 0.
 */
int yaml_check_unknown(yaml_val_t *map);

/* ---- typed reads of one node (a sequence item, a value already got) ---
 * Same rules as above; these return 0 or -EINVAL (v NULL is an error
 * only for yaml_expect, which reports it against nothing: use the map
 * functions to report missing fields). */

/* Check v is of the given kind: "PATH: expected a mapping". */
int yaml_expect(yaml_val_t *v, enum yaml_kind kind);
int yaml_to_str(yaml_val_t *v, size_t max_len, char **ret);
int yaml_to_int(yaml_val_t *v, long long min, long long max, int *ret);
int yaml_to_ll(yaml_val_t *v, long long min, long long max, long long *ret);
int yaml_to_double(yaml_val_t *v, double *ret);
int yaml_to_bool(yaml_val_t *v, bool *ret);
int yaml_to_enum(yaml_val_t *v, const char *what, const char *const *names,
		 int *ret);
int yaml_to_strlist(yaml_val_t *v, size_t max_items, size_t max_len,
		    char ***ret, size_t *ret_n);

/* Free a string list as returned by yaml_get_strlist; sets *p NULL. */
void yaml_strlist_free(char ***p, size_t n);

#endif
