/*
 * yaml_int: what the two halves of the yaml module share: the layout of
 * the tree and its nodes, and the calls the builder (yaml.c) makes into the
 * tree (yaml_tree.c). Not for use outside labs/yaml*.c.
 */
#ifndef LABMESH_LABS_YAML_INT_H
#define LABMESH_LABS_YAML_INT_H

#include "labs/yaml.h"

#include <stdbool.h>
#include <stddef.h>

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

/* Index a new key of its mapping (key->parent); false if that mapping
 * already has the key. */
bool yaml_key_add(yaml_tree_t *t, yaml_val_t *key);
/* Replace the control characters of an error line (it quotes the file)
 * by '?', in place. */
void yaml_sanitize(char *s);

#endif
