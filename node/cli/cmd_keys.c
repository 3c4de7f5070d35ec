/*
 * cmd_keys: `labmesh keygen` (a key pair, by default the submitter key in
 * the user's config directory) and `labmesh id` (this node's id, making
 * node.key in the home on first use).
 */
#include "node/cli/cli.h"
#include "node/store/wire.h"

#include "proto/buf.h"
#include "proto/json.h"
#include "proto/mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void s_keygen_usage(FILE *f)
{
	fprintf(f, "usage: labmesh keygen [--out FILE] [--force] [--json]\n"
		   "Make an Ed25519 key pair: FILE (secret, mode 0600) and"
		   " FILE.pub.\n"
		   "Default FILE: ${XDG_CONFIG_HOME:-~/.config}/labmesh/key"
		   " (your submitter key).\n"
		   "  --out FILE  where to write the secret key\n"
		   "  --force     overwrite an existing key\n"
		   "  --json      print {\"id\", \"path\"}\n");
}

static char *s_default_key_path(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	char *dir;

	if (xdg && *xdg)
		dir = xasprintf("%s/labmesh", xdg);
	else
		dir = xasprintf("%s/.config/labmesh", home && *home ? home : ".");
	cli_mkdir_p(dir, 0700); /* a failure shows when the key is written */
	free(dir);
	if (xdg && *xdg)
		return xasprintf("%s/labmesh/key", xdg);
	return xasprintf("%s/.config/labmesh/key", home && *home ? home : ".");
}

static void s_print_id(const cli_t *cli, const uint8_t *pk, const char *path)
{
	char hex[KEY_HEX_LEN + 1];
	buf_t b;
	json_t j;

	key_hex(pk, hex);
	if (!cli->json) {
		printf("%s\n", hex);
		return;
	}
	buf_init(&b, 0);
	json_init(&j, &b, JSON_PRETTY);
	json_obj_open(&j);
	json_key_str(&j, "id", hex);
	if (path)
		json_key_str(&j, "path", path);
	json_obj_close(&j);
	json_finish(&j);
	fputs(buf_str(&b), stdout);
	buf_free(&b);
}

int cmd_keygen(cli_t *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ 0 },
	};
	char *path = NULL, *err = NULL;
	bool force = false;
	wire_key_t key;
	int c, rc;

	while ((c = cli_getopt(cli, argc, argv, "o:f", opts)) != -1) {
		if (c == 'h') {
			s_keygen_usage(stdout);
			free(path);
			return CLI_EXIT_OK;
		} else if (c == 'o') {
			free(path);
			path = xstrdup(optarg);
		} else if (c == 'f') {
			force = true;
		} else {
			free(path);
			return cli_usage_error("keygen", "bad option");
		}
	}
	if (optind < argc) {
		free(path);
		return cli_usage_error("keygen", "unexpected argument '%s'",
				       argv[optind]);
	}
	if (!path)
		path = s_default_key_path();
	rc = wire_key_generate(path, force, &key, &err);
	if (rc < 0) {
		if (rc == -EEXIST)
			rc = cli_fail("keygen", "%s exists (use --force to"
				      " replace it)", path);
		else
			rc = cli_fail("keygen", "%s", err);
		free(err);
		free(path);
		return rc;
	}
	s_print_id(cli, key.pk, path);
	if (!cli->json)
		fprintf(stderr, "labmesh keygen: wrote %s and %s.pub\n", path,
			path);
	wire_key_wipe(&key);
	free(path);
	return CLI_EXIT_OK;
}

int cmd_id(cli_t *cli, int argc, char **argv)
{
	char *path, *err = NULL;
	wire_key_t key;
	bool fresh, made;
	int c, rc;

	while ((c = cli_getopt(cli, argc, argv, "", NULL)) != -1) {
		if (c == 'h') {
			printf("usage: labmesh id [--home DIR] [--json]\n"
			       "Print this node's id (its public key), making"
			       " HOME/node.key on first use.\n"
			       "Give it to other labs as the key of a seed.\n");
			return CLI_EXIT_OK;
		}
		return cli_usage_error("id", "bad option");
	}
	if (optind < argc)
		return cli_usage_error("id", "unexpected argument '%s'",
				       argv[optind]);
	fresh = access(cli->home, F_OK) != 0;
	rc = cli_make_home(cli);
	if (rc < 0)
		return cli_fail("id", "cannot make %s: %s", cli->home,
				strerror(-rc));
	path = cli_path(cli, "node.key");
	made = access(path, F_OK) != 0;
	rc = wire_key_load_or_make(path, &key, &err);
	if (rc == 0 && fresh)
		fprintf(stderr, "labmesh id: %s did not exist: made it, with"
			" a new node key (%s)\n", cli->home, path);
	else if (rc == 0 && made)
		fprintf(stderr, "labmesh id: made a new node key: %s\n", path);
	free(path);
	if (rc < 0) {
		rc = cli_fail("id", "%s", err);
		free(err);
		return rc;
	}
	s_print_id(cli, key.pk, NULL);
	wire_key_wipe(&key);
	return CLI_EXIT_OK;
}
