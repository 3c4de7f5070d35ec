/*
 * lab_private: helpers shared by the files of the lab module (lab.c,
 * lab_boards.c, lab_check.c). Not for use outside labs/.
 */
#ifndef LABMESH_LABS_LAB_PRIVATE_H
#define LABMESH_LABS_LAB_PRIVATE_H

#include "labs/lab.h"
#include "labs/yaml.h"

#define LAB_MAX_STR 1024     /* free text: description, append, login */
#define LAB_MAX_COMMAND 8192 /* operator commands */
#define LAB_MAX_PATH 4096
#define LAB_MAX_HOST 253

typedef bool (*lab_check_fn)(const char *s);

/* The value of key, consumed; NULL when absent. With YAML_REQUIRED a
 * missing key is reported and NULL returned (see yaml_tree_error). */
yaml_val_t *lab_field(yaml_val_t *map, const char *key, int flags);
/* Fail on the field key missing from map, or on a key of map within two
 * edits of it (a misspelling: "unknown field, did you mean"). -EINVAL. */
int lab_fail_missing(yaml_val_t *map, const char *key);
/*
 * A string field that must pass ok(); otherwise "'VALUE' is not a valid
 * WHAT". Same returns as yaml_get_str (1 found, 0 absent, -EINVAL).
 */
int lab_get_checked(yaml_val_t *map, const char *key, int flags,
		    size_t max_len, lab_check_fn ok, const char *what,
		    char **ret);
/* A file path: no control characters; a relative one is resolved against
 * dir (the config file's directory). */
int lab_get_path(yaml_val_t *map, const char *key, int flags,
		 const char *dir, char **ret);
/* Free text without control characters other than tab (and newline when
 * multiline). */
int lab_get_text(yaml_val_t *map, const char *key, int flags, size_t max_len,
		 bool multiline, char **ret);
/* A list of strings each passing ok (NULL: any text on one line). */
int lab_get_list(yaml_val_t *map, const char *key, size_t max_items,
		 size_t max_len, lab_check_fn ok, const char *what,
		 char ***ret, size_t *ret_n);

/* Fill and validate cfg->boards from the boards sequence. */
int lab_load_boards(yaml_val_t *seq, const char *dir, lab_config_t *cfg);
void lab_board_free(lab_board_t *b);

/* The known arches, NULL-terminated (for yaml_to_enum). */
const char *const *lab_arch_list(void);

/* Predicates used for fields. */
bool lab_host_valid(const char *s);
bool lab_user_valid(const char *s);
bool lab_tag_valid(const char *s);
bool lab_hostport_valid(const char *s);
bool lab_adb_serial_valid(const char *s);
bool lab_text_line_ok(const char *s);
/* A toolchain prefix or path to one: [A-Za-z0-9._/+-], not starting with '-'. */
bool lab_prefix_valid(const char *s);
/* A config base a recipe names: [A-Za-z0-9_.-]{1,64}, not "." or "..". */
bool lab_config_name_valid(const char *s);

#endif
