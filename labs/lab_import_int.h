/*
 * lab_import_int: what the LAVA and labgrid importers share — a note
 * list, the YAML writer, reading a YAML tree without consuming it, the
 * check that the entries load, the arch of a QEMU binary, and a bounded
 * file read (which the Fuego importer uses too). Not for use outside
 * labs/lab_lava.c, labs/lab_labgrid.c, labs/lab_fuego.c and
 * labs/lab_import.c.
 */
#ifndef LABMESH_LABS_LAB_IMPORT_INT_H
#define LABMESH_LABS_LAB_IMPORT_INT_H

#include "labs/yaml.h"
#include "proto/buf.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#define IMPORT_MAX_NOTES 512 /* comment lines of one import */
#define IMPORT_MAX_WORDS 64  /* words of one command line we look into */

typedef struct {
	buf_t notes;    /* "# ..." lines */
	size_t n_notes;
} inotes_t;

void inotes_init(inotes_t *n);
void inotes_free(inotes_t *n);
/* "# line N: message" (no "line N: " when line <= 0); printable ASCII
 * only, at most 512 bytes a note and IMPORT_MAX_NOTES notes. */
void inote(inotes_t *n, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Write s as a double-quoted YAML scalar (\", \\, other bytes < 0x20 or
 * >= 0x7f as \xNN). */
void iquote(buf_t *out, const char *s);
/* "<indent>key: "value"\n", nothing when v is NULL. */
void ifield(buf_t *out, int indent, const char *key, const char *v);

/* The node at a dotted path of mapping keys below v ("actions.boot.methods"),
 * without consuming anything; NULL when a step is missing or not a mapping. */
yaml_val_t *iat(yaml_val_t *v, const char *path);
/* The text of a scalar at path, NULL when absent, null, or not a scalar. */
const char *istr(yaml_val_t *v, const char *path);
/* NULL-safe looks: a mapping's pairs, a sequence's items (0 for
 * anything else), a node's line (0 for NULL), a node's kind (0 for NULL). */
size_t ipairs(const yaml_val_t *map);
size_t iitems(const yaml_val_t *seq);
int iline(const yaml_val_t *v);
int ikind(const yaml_val_t *v);
/* true when s is printable ASCII, 1..max bytes. */
bool iprintable(const char *s, size_t max);

/* Split a command line into at most IMPORT_MAX_WORDS words on blanks,
 * with '...' and "..." quoting; returns the count, words point into buf
 * (a copy of s, the caller frees *ret_buf). */
size_t iwords(const char *s, char **ret_buf, char **words);

/* Our arch for "qemu-system-ARCH" (a path may lead), or NULL. */
const char *iarch_of_qemu(const char *binary);
/* Our arch for an arch name of another tool (arm64, amd64, armhf...), or
 * NULL. */
const char *iarch_of(const char *name);

/* A default board name from a file name: the base name without its
 * extension (.yaml, .yml, .jinja2). The caller frees. */
char *iname_of_file(const char *file);

/* Read at most max bytes of the file at path into *ret (NUL-terminated,
 * the caller frees) and *ret_len: 0, or -errno / -EFBIG and *ret_err
 * "PATH: why". */
/* Keep the first error of an import in *err as "FILE: message", with
 * control characters shown as '?' (the message may quote the file). */
void ivfail(char **err, const char *file, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

int iread_file(const char *path, size_t max, char **ret, size_t *ret_len,
	       char **ret_err);

/*
 * The entries in yaml (lines "  - name: ..." ready for "boards:") must load
 * as a lab's boards: 0, or -EINVAL and *ret_err "FILE: the imported entry
 * does not load: ...".
 */
int iverify(const char *file, const buf_t *yaml, char **ret_err);

#endif
