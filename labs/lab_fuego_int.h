/*
 * lab_fuego_int: a Fuego board file as lab_fuego_scan.c reads it, for the
 * importer in lab_fuego.c that maps it to a board entry. Not for use
 * outside labs/lab_fuego*.c.
 */
#ifndef LABMESH_LABS_LAB_FUEGO_INT_H
#define LABMESH_LABS_LAB_FUEGO_INT_H

#include "proto/buf.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct {
	char *name;
	char *value;
	int line;
	bool used;
} fvar_t;

/* Fuego's own variables a board file may use without setting them */
enum { FUEGO_DEF_RW, FUEGO_DEF_RO, FUEGO_DEF_CORE, FUEGO_DEF_BOARD,
       FUEGO_DEF_NODE, FUEGO_N_DEFS };

typedef struct {
	const char *file;
	const char *board; /* the board's name: what $BOARD and $NODE_NAME are */
	unsigned defaults_used; /* 1 << FUEGO_DEF_*: taken from Fuego's set-up */
	fvar_t *vars;
	size_t n_vars;
	buf_t notes;   /* "# note: ..." lines */
	size_t n_notes;
	char *err;
	int line;      /* the line being read */
	int func_depth; /* > 0 or func_open: inside a function body */
	bool func_open;
} fuego_t;

/* Keep the first error as "FILE:LINE: VAR: message" (no "VAR: " when var
 * is NULL), control characters made '?'; returns -EINVAL. */
int fuego_fail(fuego_t *f, int line, const char *var, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Add a "# note: ..." comment line for the output (at most 64, then one
 * saying more were left out). */
void fuego_note(fuego_t *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The value of variable name, marked used, and (ret_line may be NULL) the
 * line that set it; NULL when it is unset or empty. Borrowed from f. */
const char *fuego_get(fuego_t *f, const char *name, int *ret_line);
/* The name and value of Fuego's own variable i (FUEGO_DEF_*). */
const char *fuego_default_name(int i);
const char *fuego_default_value(const fuego_t *f, int i);
/* Read the board file text[0..len) into f's variables and notes. 0, or
 * -EINVAL with f->err set. */
int fuego_scan(fuego_t *f, const char *text, size_t len);

#endif
