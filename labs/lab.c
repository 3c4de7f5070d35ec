/*
 * lab: load and validate a lab file, and the built-in default lab.
 * See lab.h for the structs and labs/examples/ for the format.
 *
 * Layout: the top-level sections (lab, node, policy, recipes) here; the
 * boards with their transports, boot methods and criteria in lab_boards.c;
 * value checks and field readers in lab_check.c. Every reading goes
 * through labs/yaml, so every error is one line "FILE:LINE: FIELD: what",
 * and every mapping is checked for keys nobody read (typos).
 */
#include "labs/lab_private.h"
#include "proto/caps.h"
#include "proto/mem.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#define LAB_DEFAULT_LISTEN "tcp://127.0.0.1:7701"
#define LAB_DEFAULT_MAX_PEERS 8
#define LAB_MAX_PEERS_CAP 1024
/* node.max_request_hours: the longest a request this lab stores and
 * forwards may live (expires - created). At most proto's own cap. */
#define LAB_DEFAULT_MAX_REQUEST_HOURS (7 * 24)
#define LAB_MAX_REQUEST_HOURS_CAP                                           \
	((int)(PROTO_MAX_REQUEST_LIFETIME_MS / (3600 * 1000)))
#define LAB_MAX_QUOTA 1000000
#define LAB_RECIPE_TIMEOUT_S 3600
#define LAB_MAX_TIMEOUT_S 86400

const char *lab_transport_name(enum lab_transport_type t)
{
	switch (t) {
	case LAB_TRANSPORT_LOCAL:
		return "local";
	case LAB_TRANSPORT_SSH:
		return "ssh";
	case LAB_TRANSPORT_SERIAL:
		return "serial";
	case LAB_TRANSPORT_ADB:
		return "adb";
	}
	return "?";
}

const char *lab_boot_name(enum lab_boot_method m)
{
	switch (m) {
	case LAB_BOOT_NONE:
		return "none";
	case LAB_BOOT_QEMU:
		return "qemu";
	case LAB_BOOT_COMMAND:
		return "command";
	}
	return "?";
}

const char *lab_serial_kind_name(enum lab_serial_kind k)
{
	switch (k) {
	case LAB_SERIAL_TTY:
		return "device";
	case LAB_SERIAL_PTY:
		return "pty";
	case LAB_SERIAL_UNIX:
		return "socket";
	case LAB_SERIAL_TCP:
		return "tcp";
	case LAB_SERIAL_QEMU:
		return "console";
	}
	return "?";
}

/* ---- lifecycle ------------------------------------------------------------ */

static lab_config_t *s_config_new(const char *path)
{
	lab_config_t *cfg = xzalloc(sizeof(*cfg));

	cfg->path = xstrdup(path);
	cfg->trust_open = true;
	cfg->max_peers = LAB_DEFAULT_MAX_PEERS;
	cfg->liveness_ms = LAB_DEFAULT_LIVENESS_MS;
	cfg->max_request_hours = LAB_DEFAULT_MAX_REQUEST_HOURS;
	cfg->submitters_any = true;
	cfg->build_any = true;
	cfg->blob_budget = LAB_DEFAULT_BLOB_BUDGET;
	cfg->build_budget = LAB_DEFAULT_BUILD_BUDGET;
	cfg->confirm_reruns = LAB_DEFAULT_CONFIRM_RERUNS;
	cfg->confirm_per_day = LAB_DEFAULT_CONFIRM_PER_DAY;
	return cfg;
}

void lab_config_destroy(lab_config_t **p)
{
	lab_config_t *cfg;

	if (!p || !*p)
		return;
	cfg = *p;
	free(cfg->path);
	free(cfg->name);
	free(cfg->listen);
	for (size_t i = 0; i < cfg->n_seeds; i++) {
		free(cfg->seeds[i].endpoint);
		free(cfg->seeds[i].key);
	}
	free(cfg->seeds);
	yaml_strlist_free(&cfg->trust_keys, cfg->n_trust_keys);
	free(cfg->http);
	free(cfg->build_dir);
	yaml_strlist_free(&cfg->submitters, cfg->n_submitters);
	yaml_strlist_free(&cfg->builds_from, cfg->n_builds_from);
	yaml_strlist_free(&cfg->lease_keys, cfg->n_lease_keys);
	yaml_strlist_free(&cfg->lease_boards, cfg->n_lease_boards);
	for (size_t i = 0; cfg->names && i < cfg->n_names + 1; i++) {
		free(cfg->name_keys[i]);
		free(cfg->names[i]);
	}
	free(cfg->name_keys);
	free(cfg->names);
	for (size_t i = 0; i < cfg->n_boards; i++)
		lab_board_free(&cfg->boards[i]);
	free(cfg->boards);
	for (size_t i = 0; i < cfg->n_recipes; i++) {
		free(cfg->recipes[i].arch);
		free(cfg->recipes[i].command);
		free(cfg->recipes[i].cross_compile);
		yaml_strlist_free(&cfg->recipes[i].configs,
				  cfg->recipes[i].n_configs);
	}
	free(cfg->recipes);
	free(cfg);
	*p = NULL;
}

const lab_board_t *lab_config_board(const lab_config_t *cfg, const char *name)
{
	if (!cfg || !name)
		return NULL;
	for (size_t i = 0; i < cfg->n_boards; i++)
		if (strcmp(cfg->boards[i].name, name) == 0)
			return &cfg->boards[i];
	return NULL;
}

/* The host name made into a valid lab name ("lab" if nothing is left). */
static char *s_host_name(void)
{
	char host[256] = "";
	size_t n;

	if (gethostname(host, sizeof(host) - 1) < 0)
		host[0] = '\0';
	host[LAB_MAX_NAME] = '\0';
	for (char *p = host; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.' && *p != '-')
			*p = '-';
	n = strspn(host, ".-");
	if (!host[n])
		return xstrdup("lab");
	return xstrdup(host + n);
}

lab_config_t *lab_config_default(void)
{
	lab_config_t *cfg = s_config_new("(default)");
	lab_board_t *b;
	struct utsname u;

	cfg->name = s_host_name();
	cfg->listen = xstrdup(LAB_DEFAULT_LISTEN);
	cfg->boards = xcalloc(1, sizeof(*cfg->boards));
	cfg->n_boards = 1;
	b = &cfg->boards[0];
	b->name = xstrdup("host");
	if (uname(&u) == 0 && u.machine[0])
		b->arch = xstrdup(u.machine);
	else
		b->arch = xstrdup("x86_64");
	b->machine = xstrdup("host");
	b->description = xstrdup("the machine the node runs on");
	b->transport.type = LAB_TRANSPORT_LOCAL;
	b->transport.connect_timeout_s = 30;
	b->boot.method = LAB_BOOT_NONE;
	b->boot.memory_mb = 512;
	b->boot.cpus = 1;
	b->boot.boot_timeout_s = 120;
	b->boot.command_timeout_s = 300;
	return cfg;
}

/* ---- sections -------------------------------------------------------------- */

static int s_load_lab(yaml_val_t *root, lab_config_t *cfg)
{
	yaml_val_t *lab = NULL;
	int r;

	r = yaml_get_map(root, "lab", YAML_OPTIONAL, &lab);
	if (r < 0)
		return r;
	r = lab_get_checked(lab, "name", YAML_OPTIONAL, LAB_MAX_NAME,
			    lab_name_valid, "lab name ([A-Za-z0-9_.-]{1,64})",
			    &cfg->name);
	if (r < 0)
		return r;
	if (!cfg->name)
		cfg->name = s_host_name();
	return yaml_check_unknown(lab);
}

/* A peer to connect to: an endpoint, but not the bind-all '*'. */
static bool s_seed_endpoint_ok(const char *s)
{
	return lab_endpoint_valid(s) && strncmp(s, "tcp://*:", 8) != 0;
}

static int s_load_seed(yaml_val_t *v, lab_seed_t *seed)
{
	int r = yaml_expect(v, YAML_KIND_MAP);

	if (r < 0)
		return r;
	seed->line = yaml_line(v);
	r = lab_get_checked(v, "endpoint", YAML_REQUIRED, 300, s_seed_endpoint_ok,
			    "peer endpoint (tcp://HOST:PORT)", &seed->endpoint);
	if (r < 0)
		return r;
	r = lab_get_checked(v, "key", YAML_REQUIRED, 64, lab_key_valid,
			    "node key (64 hex digits)", &seed->key);
	if (r < 0)
		return r;
	for (char *p = seed->key; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return yaml_check_unknown(v);
}

static int s_load_seeds(yaml_val_t *node, lab_config_t *cfg)
{
	yaml_val_t *seq = NULL;
	size_t n;
	int r = yaml_get_seq(node, "seeds", YAML_OPTIONAL, &seq);

	if (r <= 0)
		return r;
	n = yaml_len(seq);
	if (n > LAB_MAX_SEEDS)
		return yaml_fail(seq, "too many seeds (%zu, at most %d)", n,
				 LAB_MAX_SEEDS);
	if (!n)
		return 0;
	cfg->seeds = xcalloc(n, sizeof(*cfg->seeds));
	cfg->n_seeds = n;
	for (size_t i = 0; i < n; i++) {
		r = s_load_seed(yaml_item(seq, i), &cfg->seeds[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

static void s_lower_all(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (char *p = list[i]; *p; p++)
			*p = (char)tolower((unsigned char)*p);
}

/*
 * "any"/"open" or a list of 64-hex keys: *ret_any true for the word, else
 * the list. The word is given by word, the field by key.
 */
static int s_load_keys(yaml_val_t *map, const char *key, const char *word,
		       bool *ret_any, char ***ret, size_t *ret_n)
{
	yaml_val_t *v = lab_field(map, key, YAML_OPTIONAL);
	int r;

	if (!v)
		return 0;
	if (yaml_kind(v) == YAML_KIND_SCALAR) {
		if (strcmp(yaml_str(v), word) != 0)
			return yaml_fail(v, "expected '%s' or a list of key ids, not '%.64s'",
					 word, yaml_str(v));
		*ret_any = true;
		return 0;
	}
	if (yaml_kind(v) != YAML_KIND_SEQ)
		return yaml_fail(v, "expected '%s' or a list of key ids", word);
	r = lab_get_list(map, key, LAB_MAX_LIST, 64, lab_key_valid,
			 "key id (64 hex digits)", ret, ret_n);
	if (r < 0)
		return r;
	s_lower_all(*ret, *ret_n);
	*ret_any = false;
	return 0;
}

static int s_duration_ms(const char *s, long long *ret);

static int s_load_node(yaml_val_t *root, lab_config_t *cfg)
{
	yaml_val_t *node = NULL;
	char *live = NULL;
	int r;

	r = yaml_get_map(root, "node", YAML_OPTIONAL, &node);
	if (r < 0)
		return r;
	r = lab_get_checked(node, "listen", YAML_OPTIONAL, 300, lab_endpoint_valid,
			    "endpoint (tcp://HOST:PORT)", &cfg->listen);
	if (r < 0)
		return r;
	if (!cfg->listen)
		cfg->listen = xstrdup(LAB_DEFAULT_LISTEN);
	r = s_load_seeds(node, cfg);
	if (r < 0)
		return r;
	r = s_load_keys(node, "trust", "open", &cfg->trust_open, &cfg->trust_keys,
			&cfg->n_trust_keys);
	if (r < 0)
		return r;
	r = yaml_get_int(node, "max_peers", YAML_OPTIONAL, 1, LAB_MAX_PEERS_CAP,
			 &cfg->max_peers);
	if (r < 0)
		return r;
	r = yaml_get_str(node, "liveness", YAML_OPTIONAL, 16, &live);
	if (r > 0 && (s_duration_ms(live, &cfg->liveness_ms) < 0 ||
		      cfg->liveness_ms < LAB_MIN_LIVENESS_MS ||
		      cfg->liveness_ms > LAB_MAX_LIVENESS_MS))
		r = yaml_fail_field(node, "liveness", "expected a time from 5s"
				    " to 10m, like 5s or 30s");
	free(live);
	if (r < 0)
		return r;
	r = yaml_get_int(node, "max_request_hours", YAML_OPTIONAL, 1,
			 LAB_MAX_REQUEST_HOURS_CAP, &cfg->max_request_hours);
	if (r < 0)
		return r;
	r = yaml_get_bool(node, "beacon", YAML_OPTIONAL, &cfg->beacon);
	if (r < 0)
		return r;
	r = lab_get_checked(node, "http", YAML_OPTIONAL, 300, lab_hostport_valid,
			    "address (HOST:PORT)", &cfg->http);
	if (r < 0)
		return r;
	return yaml_check_unknown(node);
}

int lab_parse_size(const char *s, uint64_t *ret)
{
	unsigned long long v = 0;
	unsigned shift = 0;
	size_t i = 0;

	if (s[0] < '0' || s[0] > '9')
		return -EINVAL;
	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (ULLONG_MAX - 9) / 10)
			return -EINVAL;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	switch (s[i]) {
	case '\0': break;
	case 'K': case 'k': shift = 10; i++; break;
	case 'M': case 'm': shift = 20; i++; break;
	case 'G': case 'g': shift = 30; i++; break;
	case 'T': case 't': shift = 40; i++; break;
	default: return -EINVAL;
	}
	if (s[i] == 'i' && s[i + 1] == 'B')
		i += 2;
	else if (s[i] == 'B')
		i++;
	if (s[i] || (shift && v > (ULLONG_MAX >> shift)))
		return -EINVAL;
	*ret = (uint64_t)(v << shift);
	return 0;
}

/* A size field of store: 1 found, 0 absent, -EINVAL (said). */
static int s_load_size(yaml_val_t *st, const char *key, uint64_t min,
		       const char *example, unsigned long long *ret)
{
	char *s = NULL;
	uint64_t v;
	int r = yaml_get_str(st, key, YAML_OPTIONAL, 32, &s);

	if (r <= 0)
		return r;
	if (lab_parse_size(s, &v) < 0 || v < min || v > LAB_MAX_BLOB_BUDGET) {
		free(s);
		return yaml_fail_field(st, key, "expected a size from %s to"
				       " 1024T, like %s", min >= (1ULL << 20) ?
				       "1M" : "1K", example);
	}
	*ret = v;
	free(s);
	return 1;
}

static int s_load_store(yaml_val_t *root, const char *dir, lab_config_t *cfg)
{
	yaml_val_t *st = NULL;
	int r;

	r = yaml_get_map(root, "store", YAML_OPTIONAL, &st);
	if (r < 0)
		return r;
	r = s_load_size(st, "blob_budget", LAB_MIN_BLOB_BUDGET, "10G or 500M",
			&cfg->blob_budget);
	if (r < 0)
		return r;
	r = s_load_size(st, "build_budget", LAB_MIN_BUILD_BUDGET, "20G",
			&cfg->build_budget);
	if (r < 0)
		return r;
	r = lab_get_path(st, "build_dir", YAML_OPTIONAL, dir, &cfg->build_dir);
	if (r < 0)
		return r;
	return yaml_check_unknown(st);
}

static bool s_short_name_ok(const char *s)
{
	return lab_name_valid(s) && strlen(s) <= LAB_MAX_SUBMITTER_NAME;
}

/* policy.names: {KEY: NAME, ...}, what boards and logs call a submitter. */
static int s_load_names(yaml_val_t *pol, lab_config_t *cfg)
{
	yaml_val_t *m = NULL;
	size_t n;
	int r = yaml_get_map(pol, "names", YAML_OPTIONAL, &m);

	if (r <= 0)
		return r;
	n = yaml_len(m);
	if (n > LAB_MAX_LIST)
		return yaml_fail(m, "more than %d names", LAB_MAX_LIST);
	cfg->name_keys = xcalloc(n + 1, sizeof(char *));
	cfg->names = xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		yaml_val_t *k = yaml_pair_key(m, i), *v = yaml_pair_value(m, i);
		char *name = NULL;

		if (!lab_key_valid(yaml_str(k)))
			return yaml_fail(k, "'%.64s' is not a key id (64 hex"
					 " digits)", yaml_str(k));
		r = yaml_to_str(v, LAB_MAX_SUBMITTER_NAME, &name);
		if (r < 0)
			return r;
		if (!s_short_name_ok(name)) {
			r = yaml_fail(v, "'%.64s' is not a valid name", name);
			free(name);
			return r;
		}
		cfg->name_keys[i] = xstrdup(yaml_str(k));
		cfg->names[i] = name;
		cfg->n_names = i + 1;
	}
	s_lower_all(cfg->name_keys, cfg->n_names);
	return 0;
}

const char *lab_submitter_name(const lab_config_t *cfg, const char *hex)
{
	for (size_t i = 0; i < cfg->n_names; i++)
		if (strcasecmp(cfg->name_keys[i], hex) == 0)
			return cfg->names[i];
	return NULL;
}

/* "90s", "30m", "2h", "1d" (a number alone: seconds) in ms; -EINVAL. */
static int s_duration_ms(const char *s, long long *ret)
{
	char *end = NULL;
	long long v = strtoll(s, &end, 10), unit = 1000;

	if (end == s || v <= 0 || v > 366LL * 24 * 3600)
		return -EINVAL;
	if (*end == 'm')
		unit = 60 * 1000;
	else if (*end == 'h')
		unit = 3600 * 1000;
	else if (*end == 'd')
		unit = 24 * 3600 * 1000;
	else if (*end && *end != 's')
		return -EINVAL;
	if (*end && end[1])
		return -EINVAL;
	*ret = v * unit;
	return 0;
}

bool lab_lease_allowed(const lab_config_t *cfg, const char *hex,
		       const char *board)
{
	bool key = cfg->lease_any, b = cfg->lease_boards_any;

	for (size_t i = 0; !key && i < cfg->n_lease_keys; i++)
		key = strcasecmp(cfg->lease_keys[i], hex) == 0;
	for (size_t i = 0; !b && i < cfg->n_lease_boards; i++)
		b = strcmp(cfg->lease_boards[i], board) == 0;
	return key && b;
}

/* policy.leases: submitters, boards, max, per_submitter. */
static int s_load_leases(yaml_val_t *pol, lab_config_t *cfg)
{
	yaml_val_t *l = NULL, *v;
	char *max = NULL;
	int r = yaml_get_map(pol, "leases", YAML_OPTIONAL, &l);

	cfg->lease_max_ms = LAB_DEFAULT_LEASE_MS;
	cfg->lease_per_key = 1;
	if (r <= 0)
		return r;
	r = s_load_keys(l, "submitters", "any", &cfg->lease_any,
			&cfg->lease_keys, &cfg->n_lease_keys);
	if (r < 0)
		return r;
	cfg->lease_boards_any = true;
	v = lab_field(l, "boards", YAML_OPTIONAL);
	if (v && !(yaml_kind(v) == YAML_KIND_SCALAR &&
		   strcmp(yaml_str(v), "any") == 0)) {
		r = lab_get_list(l, "boards", LAB_MAX_LIST, LAB_MAX_NAME,
				 lab_name_valid, "board name",
				 &cfg->lease_boards, &cfg->n_lease_boards);
		if (r < 0)
			return r;
		cfg->lease_boards_any = false;
	}
	r = yaml_get_str(l, "max", YAML_OPTIONAL, 16, &max);
	if (r > 0 && (s_duration_ms(max, &cfg->lease_max_ms) < 0 ||
		      cfg->lease_max_ms > 7LL * 24 * 3600 * 1000))
		r = yaml_fail_field(l, "max", "expected a time up to 7d, like"
				    " 30m, 2h or 1d");
	free(max);
	if (r < 0)
		return r;
	r = yaml_get_int(l, "per_submitter", YAML_OPTIONAL, 1, LAB_MAX_LIST,
			 &cfg->lease_per_key);
	if (r < 0)
		return r;
	return yaml_check_unknown(l);
}

/* policy.confirm: reruns, per_day. */
static int s_load_confirm(yaml_val_t *pol, lab_config_t *cfg)
{
	yaml_val_t *c = NULL;
	int r = yaml_get_map(pol, "confirm", YAML_OPTIONAL, &c);

	if (r <= 0)
		return r;
	r = yaml_get_int(c, "reruns", YAML_OPTIONAL, 0, 10,
			 &cfg->confirm_reruns);
	if (r >= 0)
		r = yaml_get_int(c, "per_day", YAML_OPTIONAL, 0, 1000,
				 &cfg->confirm_per_day);
	if (r < 0)
		return r;
	return yaml_check_unknown(c);
}

static int s_load_policy(yaml_val_t *root, lab_config_t *cfg)
{
	static const char *const build[] = { "any", "none", NULL };
	yaml_val_t *pol = NULL;
	int b = 0, r;

	r = yaml_get_map(root, "policy", YAML_OPTIONAL, &pol);
	if (r < 0)
		return r;
	r = s_load_keys(pol, "submitters", "any", &cfg->submitters_any,
			&cfg->submitters, &cfg->n_submitters);
	if (r < 0)
		return r;
	r = yaml_get_int(pol, "quota_per_key", YAML_OPTIONAL, 0, LAB_MAX_QUOTA,
			 &cfg->quota_per_key);
	if (r < 0)
		return r;
	r = yaml_get_enum(pol, "build", YAML_OPTIONAL, "build policy", build, &b);
	if (r < 0)
		return r;
	if (r > 0)
		cfg->build_any = b == 0;
	r = s_load_keys(pol, "builds_from", "any", &cfg->builds_from_any,
			&cfg->builds_from, &cfg->n_builds_from);
	if (r == 0)
		r = s_load_names(pol, cfg);
	if (r == 0)
		r = s_load_leases(pol, cfg);
	if (r == 0)
		r = s_load_confirm(pol, cfg);
	if (r < 0)
		return r;
	return yaml_check_unknown(pol);
}

static int s_load_recipe(yaml_val_t *v, lab_recipe_t *rc)
{
	int a, r = yaml_expect(v, YAML_KIND_MAP);

	if (r < 0)
		return r;
	rc->line = yaml_line(v);
	rc->timeout_s = LAB_RECIPE_TIMEOUT_S;
	r = yaml_get_enum(v, "arch", YAML_REQUIRED, "arch", lab_arch_list(), &a);
	if (r < 0)
		return r;
	rc->arch = xstrdup(lab_arch_list()[a]);
	r = lab_get_text(v, "command", YAML_REQUIRED, LAB_MAX_COMMAND, true,
			 &rc->command);
	if (r < 0)
		return r;
	r = lab_get_checked(v, "cross_compile", YAML_OPTIONAL, 256, lab_prefix_valid,
			    "toolchain prefix", &rc->cross_compile);
	if (r < 0)
		return r;
	r = yaml_get_int(v, "timeout", YAML_OPTIONAL, 1, LAB_MAX_TIMEOUT_S,
			 &rc->timeout_s);
	if (r < 0)
		return r;
	r = lab_get_list(v, "configs", LAB_MAX_LIST, LAB_MAX_NAME,
			 lab_config_name_valid, "config name", &rc->configs,
			 &rc->n_configs);
	if (r < 0)
		return r;
	return yaml_check_unknown(v);
}

static int s_load_recipes(yaml_val_t *root, lab_config_t *cfg)
{
	yaml_val_t *seq = NULL;
	size_t n;
	int r = yaml_get_seq(root, "recipes", YAML_OPTIONAL, &seq);

	if (r <= 0)
		return r;
	n = yaml_len(seq);
	if (n > LAB_MAX_LIST)
		return yaml_fail(seq, "too many recipes (%zu, at most %d)", n,
				 LAB_MAX_LIST);
	if (!n)
		return 0;
	cfg->recipes = xcalloc(n, sizeof(*cfg->recipes));
	cfg->n_recipes = n;
	for (size_t i = 0; i < n; i++) {
		r = s_load_recipe(yaml_item(seq, i), &cfg->recipes[i]);
		if (r < 0)
			return r;
		for (size_t k = 0; k < i; k++)
			if (strcmp(cfg->recipes[k].arch, cfg->recipes[i].arch) == 0)
				return yaml_fail(yaml_map_peek(yaml_item(seq, i), "arch"),
						 "a recipe for %s is already given at line %d",
						 cfg->recipes[i].arch,
						 cfg->recipes[k].line);
	}
	return 0;
}

/* ---- entry points ------------------------------------------------------------ */

/* The directory relative paths are resolved against: the config file's,
 * absolute when it exists. */
static char *s_config_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
	char *real;

	if (!dir[0]) {
		free(dir);
		dir = xstrdup("/");
	}
	real = realpath(dir, NULL);
	if (real) {
		free(dir);
		return real;
	}
	return dir;
}

static int s_load_tree(yaml_tree_t *t, lab_config_t *cfg)
{
	yaml_val_t *root = yaml_tree_root(t);
	yaml_val_t *boards = NULL;
	char *dir;
	int r;

	if (!root)
		return -ENODATA;
	r = yaml_expect(root, YAML_KIND_MAP);
	if (r < 0)
		return r;
	dir = s_config_dir(cfg->path);
	r = s_load_lab(root, cfg);
	if (r == 0)
		r = s_load_node(root, cfg);
	if (r == 0)
		r = s_load_policy(root, cfg);
	if (r == 0)
		r = s_load_store(root, dir, cfg);
	if (r == 0)
		r = s_load_recipes(root, cfg);
	if (r == 0)
		r = yaml_get_seq(root, "boards", YAML_OPTIONAL, &boards);
	if (r >= 0 && boards)
		r = lab_load_boards(boards, dir, cfg);
	if (r >= 0)
		r = yaml_check_unknown(root);
	free(dir);
	return r < 0 ? r : 0;
}

static int s_parse_tree(yaml_tree_t *t, const char *name,
			lab_config_t **ret_cfg, char **ret_err)
{
	lab_config_t *cfg = s_config_new(name);
	int r = s_load_tree(t, cfg);

	if (r == -ENODATA) {
		*ret_err = xasprintf("%s:1: the file is empty (expected lab, node, "
				     "policy, recipes and boards)", name);
		lab_config_destroy(&cfg);
		return -EINVAL;
	}
	if (r < 0 || yaml_tree_error(t)) {
		*ret_err = yaml_tree_take_error(t);
		if (!*ret_err)
			*ret_err = xasprintf("%s:1: invalid lab configuration", name);
		lab_config_destroy(&cfg);
		return -EINVAL;
	}
	*ret_cfg = cfg;
	return 0;
}

int lab_config_parse(const char *name, const char *text, size_t len,
		     lab_config_t **ret_cfg, char **ret_err)
{
	yaml_limits_t lim = { .max_bytes = LAB_MAX_CONFIG_BYTES };
	yaml_tree_t *t = NULL;
	int r;

	if (!name)
		name = "(config)";
	r = yaml_tree_parse(name, text, len, &lim, &t, ret_err);
	if (r < 0)
		return r;
	r = s_parse_tree(t, name, ret_cfg, ret_err);
	yaml_tree_destroy(&t);
	return r;
}

int lab_config_load(const char *path, lab_config_t **ret_cfg, char **ret_err)
{
	yaml_limits_t lim = { .max_bytes = LAB_MAX_CONFIG_BYTES };
	yaml_tree_t *t = NULL;
	int r;

	r = yaml_tree_load(path, &lim, &t, ret_err);
	if (r < 0)
		return r;
	r = s_parse_tree(t, path, ret_cfg, ret_err);
	yaml_tree_destroy(&t);
	return r;
}
