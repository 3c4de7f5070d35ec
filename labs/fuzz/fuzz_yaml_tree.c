/*
 * Fuzz the bounded YAML tree: parse, then walk every node with every
 * reader (paths, typed conversions, mapping lookups, unknown-key check).
 * Errors must always be one line naming the input.
 */
#include "labs/yaml.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void s_check_err(const char *err)
{
	if (!err || strncmp(err, "fuzz.yaml:", 10) != 0 || strchr(err, '\n'))
		abort();
}

static void s_walk(yaml_val_t *v, int depth)
{
	char *s = NULL, **list = NULL, *path;
	size_t n = 0;
	long long ll;
	double d;
	bool b;

	if (depth > YAML_MAX_DEPTH + 1)
		abort();
	path = yaml_path(v);
	free(path);
	switch (yaml_kind(v)) {
	case YAML_KIND_SCALAR:
		if (strlen(yaml_str(v)) != yaml_len(v))
			abort();
		yaml_to_ll(v, -1000, 1000, &ll);
		yaml_to_double(v, &d);
		yaml_to_bool(v, &b);
		if (yaml_to_str(v, 16, &s) == 0)
			free(s);
		break;
	case YAML_KIND_SEQ:
		if (yaml_to_strlist(v, 8, 16, &list, &n) == 0)
			yaml_strlist_free(&list, n);
		for (size_t i = 0; i < yaml_len(v); i++)
			s_walk(yaml_item(v, i), depth + 1);
		break;
	case YAML_KIND_MAP:
		for (size_t i = 0; i < yaml_len(v); i++) {
			yaml_val_t *k = yaml_pair_key(v, i);

			if (yaml_map_peek(v, yaml_str(k)) != yaml_pair_value(v, i))
				abort();
			if (i % 2 == 0)
				yaml_get(v, yaml_str(k));
			s_walk(yaml_pair_value(v, i), depth + 1);
		}
		yaml_get_int(v, "port", YAML_REQUIRED, 1, 65535, &(int){ 0 });
		yaml_check_unknown(v);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	yaml_tree_t *t = NULL;
	char *err = NULL;

	if (yaml_tree_parse("fuzz.yaml", (const char *)data, size, NULL, &t,
			    &err) < 0) {
		s_check_err(err);
		free(err);
		return 0;
	}
	if (yaml_tree_root(t))
		s_walk(yaml_tree_root(t), 0);
	if (yaml_tree_error(t))
		s_check_err(yaml_tree_error(t));
	yaml_tree_destroy(&t);
	return 0;
}
