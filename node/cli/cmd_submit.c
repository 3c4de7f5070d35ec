/*
 * cmd_submit: `labmesh submit` (sign a test request with the submitter's
 * key and hand it to the local node, which floods it), `status`,
 * `cancel` (a signed cancel, the submitter's key only) and `log` (a run's
 * logs, fetched through the local node from whichever node holds them).
 */
#include "node/cli/jobs_cli.h"

#include "node/results/reqview.h"
#include "node/store/blob.h"
#include "node/store/file.h"
#include "node/store/store.h"
#include "node/store/wire.h"
#include "node/net/ctl.h"
#include "proto/error.h"
#include "proto/keys.h"
#include "proto/mem.h"
#include "proto/record.h"
#include "proto/request.h"
#include "proto/types.h"
#include "suites/catalog.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define SUBMIT_MAX_LIST 64 /* items in one comma list option */
#define SUBMIT_DEFAULT_EXPIRY_MS (24LL * 3600 * 1000)
#define SUBMIT_BLOB_WAIT_MS (180 * 1000)

static int64_t s_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "90", "90s", "30m", "12h", "7d" into milliseconds; -EINVAL. */
static int s_duration(const char *s, int64_t *ret)
{
	char *end;
	long long v;
	int64_t mul = 1000;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || v <= 0 || v > 365LL * 86400)
		return -EINVAL;
	if (*end == 'm')
		mul = 60000;
	else if (*end == 'h')
		mul = 3600000;
	else if (*end == 'd')
		mul = 86400000;
	else if (*end != 's' && *end != '\0')
		return -EINVAL;
	if (*end && end[1])
		return -EINVAL;
	*ret = v * mul;
	return 0;
}

/* Split a comma list in place (appending to list, at most the cap). */
static int s_split(char *s, const char **list, size_t *n)
{
	for (char *t = strtok(s, ","); t; t = strtok(NULL, ",")) {
		if (*n >= SUBMIT_MAX_LIST)
			return -E2BIG;
		list[(*n)++] = t;
	}
	return 0;
}

static char *s_default_key(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");

	if (xdg && *xdg)
		return xasprintf("%s/labmesh/key", xdg);
	return xasprintf("%s/.config/labmesh/key", home && *home ? home : ".");
}

static int s_load_key(const char *cmd, const char *opt, key_pair_t *kp)
{
	char *path = opt ? xstrdup(opt) : s_default_key();
	char err[512];
	size_t n = strlen(path);
	int rc = key_load(path, kp, err, sizeof(err));

	if (rc < 0 && n > 4 && !strcmp(path + n - 4, ".pub"))
		cli_fail(cmd, "--key %s is a public key: give the secret key"
			 " file that signs (%.*s)", path, (int)(n - 4), path);
	else if (rc < 0)
		cli_fail(cmd, "%s%s", err, rc == -ENOENT ? " (make one with"
		       " 'labmesh keygen')" : "");
	free(path);
	return rc;
}

int submit_load_key(const char *cmd, const char *opt, key_pair_t *kp)
{
	return s_load_key(cmd, opt, kp);
}

typedef struct {
	const char *git, *branch, *commit, *config, *kernel, *initrd;
	const char *describe, *arch, *key;
	const char *save, *nonce; /* testing aids */
	bool no_send;
	const char *suites[SUBMIT_MAX_LIST], *tags[SUBMIT_MAX_LIST];
	const char *labs[SUBMIT_MAX_LIST], *boards[SUBMIT_MAX_LIST];
	size_t n_suites, n_tags, n_labs, n_boards;
	long max_per_lab, priority;
	int64_t expires_ms, wait_ms, silence_ms;
	bool wait;
	char commit_hex[41]; /* --commit as resolved */
} s_submit_t;

static void s_submit_usage(FILE *f)
{
	fprintf(f,
		"usage: labmesh submit [--git URL --branch B --commit SHA"
		" [--config C] |\n"
		"                       --kernel FILE [--initrd FILE] --describe"
		" TEXT]\n"
		"                      --suite S[,S...] [--arch A] [--tag T]"
		" [--lab L] [--board B]\n"
		"                      [--max-per-lab N] [--priority P]"
		" [--expires DURATION]\n"
		"                      [--key FILE] [--wait [--timeout DURATION]"
		" [--silence D]]"
		" [--home DIR] [--json]\n"
		"Sign a test request with your key and send it to every lab"
		" through the local\nnode. Without --git or --kernel the boards"
		" are tested as they are.\n"
		"  --git URL --branch B --commit SHA [--config C]  build this"
		" commit\n"
		"  --kernel FILE [--initrd FILE] --describe TEXT   boot this"
		" image\n"
		"                   (with --git, --branch, --commit, --config:"
		" what it was\n                   built from)\n"
		"  --suite S,...    suites to run\n"
		"  --arch A         boards of this arch (and the image's arch)\n"
		"  --tag T,...      boards with all these tags\n"
		"  --lab L,...      only these labs; --board B,... only these"
		" boards\n"
		"  --max-per-lab N  at most N boards per lab\n"
		"  --priority P     0..100, higher first (default 50)\n"
		"  --expires D      give up after D (90s, 30m, 12h, 7d;"
		" default 24h)\n"
		"  --key FILE       submitter key (default"
		" ${XDG_CONFIG_HOME:-~/.config}/labmesh/key)\n"
		"  --wait           follow progress, end with the result matrix;"
		" exit 0\n"
		"                   only if everything passed\n"
		"  --timeout D      stop following after D (default 6h)\n"
		"  --silence D      stop waiting for a lab that accepted and then"
		" said\n                   nothing for D (default 10m; a running"
		" job speaks\n                   every minute)\n"
		"Testing aids: --save FILE (the signed request's bytes),"
		" --no-send,\n--nonce HEX (32 hex digits: reuse a nonce).\n");
}

/* What a bad option value should have been. */
static int s_bad_value(int c, const char *arg)
{
	switch (c) {
	case 'e':
	case 'T':
		return cli_usage_error("submit", "--%s '%s': give a duration"
				       " like 90s, 30m, 12h or 7d",
				       c == 'e' ? "expires" : "timeout", arg);
	case 'm':
		return cli_usage_error("submit", "--max-per-lab '%s': give a"
				       " number of boards, 1 to %d", arg,
				       PROTO_MAX_BOARDS);
	case 'p':
		return cli_usage_error("submit", "--priority '%s': give 0 to"
				       " %d (default 50)", arg,
				       PROTO_MAX_PRIORITY);
	default:
		return cli_usage_error("submit", "too many names in a list"
				       " ('%.40s'): at most %d", arg,
				       SUBMIT_MAX_LIST);
	}
}

typedef struct {
	char **v;
	size_t n;
} s_names_t;

static void s_name_add(s_names_t *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], name))
			return;
	s->v = xreallocarray(s->v, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = xstrdup(name);
}

static int s_advert_suites(void *arg, uint64_t seq, const uint8_t *bytes,
			   size_t len)
{
	record_t *r = NULL;

	(void)seq;
	if (wire_record_decode(bytes, len, &r) == 0 && r->head.kind == RECORD_ADVERT)
		for (size_t i = 0; i < r->advert.n_suites; i++)
			s_name_add(arg, r->advert.suites[i]);
	record_destroy(&r);
	return 0;
}

static bool s_skip_none(void *arg, const uint8_t *id)
{
	(void)arg, (void)id;
	return false;
}

/* The suites anyone here knows: the local catalog and every lab's
 * advert in the store. */
static void s_known_suites(const cli_t *cli, s_names_t *ret)
{
	char *dir = catalog_default_dir(NULL), *err = NULL;
	catalog_t *c = NULL;
	sqlite3 *db;

	if (dir && catalog_load(dir, &c, &err) == 0)
		for (size_t i = 0; i < catalog_count(c); i++)
			s_name_add(ret, catalog_get(c, i)->name);
	catalog_destroy(&c);
	free(dir), free(err);
	if (store_open_readonly(cli->home, &db) == 0) {
		store_db_records_of_kind(db, RECORD_ADVERT, s_skip_none,
					 s_advert_suites, ret);
		sqlite3_close(db);
	}
}

/* A suite that no lab's advert nor the local catalog knows, within two
 * edits of one that is known, is a typo caught here with the nearest
 * name, rather than a decline from every lab. Farther from every known
 * name it may be a suite of a lab not heard of yet: said, then sent. */
static int s_check_suites(const cli_t *cli, const s_submit_t *o)
{
	s_names_t known = { 0 };
	int rc = 0;

	s_known_suites(cli, &known);
	for (size_t i = 0; known.n && i < o->n_suites && rc == 0; i++) {
		size_t best = SIZE_MAX, bi = 0, d;
		bool found = false;

		for (size_t k = 0; k < known.n && !found; k++) {
			found = !strcmp(known.v[k], o->suites[i]);
			d = proto_name_distance(known.v[k], o->suites[i]);
			if (d < best)
				best = d, bi = k;
		}
		if (found)
			continue;
		if (best <= 2 && best < strlen(o->suites[i])) {
			rc = -ENOENT;
			cli_usage_error("submit", "--suite %s: no lab knows a"
					" suite of that name; did you mean %s?"
					" ('labmesh suites' lists them)",
					o->suites[i], known.v[bi]);
		} else {
			fprintf(stderr, "labmesh submit: warning: no lab this"
				" node has heard of runs a suite '%s'; sending"
				" it anyway\n", o->suites[i]);
		}
	}
	for (size_t k = 0; k < known.n; k++)
		free(known.v[k]);
	free(known.v);
	return rc;
}

static bool s_hex40(const char *s)
{
	size_t n = strlen(s);

	if (n != 40)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
		      (s[i] >= 'A' && s[i] <= 'F')))
			return false;
	return true;
}

/* `git -C dir rev-parse --verify NAME^{commit}` (no shell): 0 and the id
 * in out, or -ENOENT. */
static int s_git_resolve(const char *dir, const char *name, char out[41])
{
	char *spec = xasprintf("%s^{commit}", name), *res = NULL;
	char *const argv[] = { "git", "-C", (char *)dir, "rev-parse",
			       "--verify", "--quiet", "--end-of-options",
			       spec, NULL };
	int r = cli_git(argv, 63, &res);

	free(spec);
	if (r == 0 && strlen(res) >= 40) {
		res[40] = '\0';
		if (s_hex40(res))
			memcpy(out, res, 41);
		else
			r = -ENOENT;
	} else {
		r = -ENOENT;
	}
	free(res);
	return r;
}

/*
 * --commit: a full id, or (with --git a local repository) whatever git
 * resolves there: a branch, a tag, a short id. Says why not otherwise.
 */
static int s_commit(s_submit_t *o)
{
	struct stat st;
	bool local = o->git && stat(o->git, &st) == 0 && S_ISDIR(st.st_mode);

	if (s_hex40(o->commit)) {
		for (size_t i = 0; i < 40; i++)
			o->commit_hex[i] = (char)tolower((unsigned char)o->commit[i]);
		o->commit_hex[40] = '\0';
		o->commit = o->commit_hex;
		return 0;
	}
	if (local && s_git_resolve(o->git, o->commit, o->commit_hex) == 0) {
		o->commit = o->commit_hex;
		return 0;
	}
	if (local)
		return cli_usage_error("submit", "--commit '%.64s': not a commit"
				       " of %s (git rev-parse cannot resolve"
				       " it)", o->commit, o->git), -EINVAL;
	return cli_usage_error("submit", "--commit '%.64s': give the whole"
			       " commit id, 40 hex digits (a branch name or"
			       " short id only when --git is a local"
			       " repository)", o->commit), -EINVAL;
}

static int s_submit_opts(cli_t *cli, int argc, char **argv, s_submit_t *o)
{
	static const struct option opts[] = {
		{ "git", required_argument, NULL, 'g' },
		{ "branch", required_argument, NULL, 'b' },
		{ "commit", required_argument, NULL, 'c' },
		{ "config", required_argument, NULL, 'C' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "initrd", required_argument, NULL, 'i' },
		{ "describe", required_argument, NULL, 'd' },
		{ "suite", required_argument, NULL, 's' },
		{ "arch", required_argument, NULL, 'a' },
		{ "tag", required_argument, NULL, 't' },
		{ "lab", required_argument, NULL, 'l' },
		{ "board", required_argument, NULL, 'B' },
		{ "max-per-lab", required_argument, NULL, 'm' },
		{ "priority", required_argument, NULL, 'p' },
		{ "expires", required_argument, NULL, 'e' },
		{ "key", required_argument, NULL, 'K' },
		{ "wait", no_argument, NULL, 'w' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "silence", required_argument, NULL, 'Q' },
		{ "save", required_argument, NULL, 'S' },
		{ "no-send", no_argument, NULL, 'N' },
		{ "nonce", required_argument, NULL, 'n' },
		{ 0 },
	};
	int c = 0, rc = 0;
	char *end;

	o->priority = 50;
	o->expires_ms = SUBMIT_DEFAULT_EXPIRY_MS;
	o->wait_ms = SUBMIT_DEFAULT_WAIT_MS;
	o->silence_ms = SUBMIT_DEFAULT_SILENCE_MS;
	while (rc == 0 && (c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		switch (c) {
		case 'h':
			s_submit_usage(stdout);
			return 1;
		case 'g': o->git = optarg; break;
		case 'b': o->branch = optarg; break;
		case 'c': o->commit = optarg; break;
		case 'C': o->config = optarg; break;
		case 'k': o->kernel = optarg; break;
		case 'i': o->initrd = optarg; break;
		case 'd': o->describe = optarg; break;
		case 'a': o->arch = optarg; break;
		case 'K': o->key = optarg; break;
		case 'w': o->wait = true; break;
		case 'S': o->save = optarg; break;
		case 'N': o->no_send = true; break;
		case 'n': o->nonce = optarg; break;
		case 's': rc = s_split(optarg, o->suites, &o->n_suites); break;
		case 't': rc = s_split(optarg, o->tags, &o->n_tags); break;
		case 'l': rc = s_split(optarg, o->labs, &o->n_labs); break;
		case 'B': rc = s_split(optarg, o->boards, &o->n_boards); break;
		case 'm': o->max_per_lab = strtol(optarg, &end, 10);
			  rc = *optarg && !*end && o->max_per_lab > 0 &&
			       o->max_per_lab <= PROTO_MAX_BOARDS ? 0 : -EINVAL;
			  break;
		case 'p': o->priority = strtol(optarg, &end, 10);
			  rc = *optarg && !*end && o->priority >= 0 &&
			       o->priority <= PROTO_MAX_PRIORITY ? 0 : -EINVAL;
			  break;
		case 'e': rc = s_duration(optarg, &o->expires_ms); break;
		case 'T': rc = s_duration(optarg, &o->wait_ms); break;
		case 'Q': rc = s_duration(optarg, &o->silence_ms); break;
		default: return -EINVAL;
		}
	}
	if (rc < 0)
		return s_bad_value(c, optarg), -EINVAL;
	if (optind < argc || !o->n_suites)
		return cli_usage_error("submit", "%s", optind < argc ?
				       "unexpected argument" :
				       "--suite is required"), -EINVAL;
	if (o->git && !o->kernel && (!o->commit || !o->branch))
		return cli_usage_error("submit", "--git needs --branch and"
				       " --commit"), -EINVAL;
	if (o->kernel && !o->describe)
		return cli_usage_error("submit", "--kernel needs --describe"),
		       -EINVAL;
	if (o->commit && s_commit(o) < 0)
		return -EINVAL;
	if (s_check_suites(cli, o) < 0)
		return -EINVAL;
	return 0;
}

static const char *s_host_arch(void)
{
	static struct utsname u;

	if (uname(&u) < 0)
		return "x86_64";
	return u.machine;
}

/* Put an image into the local node's blob store. */
static int s_blob(const cli_t *cli, const char *file, uint8_t id[32])
{
	int rc = blob_put_file(cli->home, file, id);

	if (rc < 0)
		return cli_fail("submit", "%s: %s", file, strerror(-rc)), rc;
	return 0;
}

static int s_fill_kernel(const cli_t *cli, const s_submit_t *o,
			 request_kernel_t *k)
{
	k->url = "";
	k->branch = "";
	k->commit = "";
	k->config = "";
	k->describe = "";
	k->arch = "";
	if (o->git && !o->kernel) {
		k->type = REQUEST_KERNEL_GIT;
		k->url = o->git;
		k->branch = o->branch;
		k->commit = o->commit;
		k->config = o->config ? o->config : "";
	} else if (o->kernel) {
		/* --git/--branch/--commit/--config, when given, say where the
		 * image was built from */
		k->type = REQUEST_KERNEL_ARTIFACT;
		k->url = o->git ? o->git : "";
		k->branch = o->branch ? o->branch : "";
		k->commit = o->commit ? o->commit : "";
		k->config = o->config ? o->config : "";
		k->describe = o->describe;
		k->arch = o->arch ? o->arch : s_host_arch();
		if (s_blob(cli, o->kernel, k->kernel_blob) < 0)
			return -EIO;
		if (o->initrd) {
			if (s_blob(cli, o->initrd, k->initrd_blob) < 0)
				return -EIO;
			k->has_initrd_blob = true;
		}
	}
	return 0;
}

/* What Ctrl-C during --wait prints: the request goes on without us. */
static char s_interrupt_msg[512];

static void s_interrupted(int sig)
{
	ssize_t w = write(STDERR_FILENO, s_interrupt_msg,
			  strlen(s_interrupt_msg));

	(void)w;
	_exit(128 + sig);
}

static void s_on_interrupt(const char *hex)
{
	struct sigaction sa;

	snprintf(s_interrupt_msg, sizeof(s_interrupt_msg),
		 "\nlabmesh submit: stopped following; request %s goes on in"
		 " the network.\n  follow it:   labmesh status %.12s\n"
		 "  withdraw it: labmesh cancel %.12s\n", hex, hex, hex);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = s_interrupted;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int cmd_submit(cli_t *cli, int argc, char **argv)
{
	s_submit_t o = { 0 };
	request_t req = { 0 };
	key_pair_t kp;
	uint8_t *bytes = NULL, id[32];
	size_t len = 0;
	char hex[65], *body = NULL;
	const char *args[1];
	bool ok = false;
	int rc = s_submit_opts(cli, argc, argv, &o);

	if (rc)
		return rc > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	if (!ctl_running(cli->home))
		return cli_fail("submit", "no node runs in %s (start one with"
				" 'labmesh node')", cli->home);
	if (s_load_key("submit", o.key, &kp) < 0)
		return CLI_EXIT_FAIL;
	if (s_fill_kernel(cli, &o, &req.kernel) < 0) {
		key_wipe(&kp);
		return CLI_EXIT_FAIL;
	}
	req.created_ms = (uint64_t)s_now_ms();
	req.expires_ms = req.created_ms + (uint64_t)o.expires_ms;
	randombytes_buf(req.nonce, sizeof(req.nonce));
	if (o.nonce && proto_unhex(o.nonce, req.nonce, sizeof(req.nonce)) < 0) {
		key_wipe(&kp);
		return cli_usage_error("submit", "--nonce: 32 hex digits");
	}
	req.priority = (uint32_t)o.priority;
	req.suites = o.suites;
	req.n_suites = o.n_suites;
	req.select.arch = o.arch ? o.arch : "";
	req.select.tags = o.tags;
	req.select.n_tags = o.n_tags;
	req.select.labs = o.labs;
	req.select.n_labs = o.n_labs;
	req.select.boards = o.boards;
	req.select.n_boards = o.n_boards;
	req.select.max_per_lab = (uint32_t)o.max_per_lab;
	rc = wire_request_sign(&req, &kp, &bytes, &len, id);
	key_wipe(&kp);
	if (rc < 0)
		return cli_fail("submit", "the request is not valid: %s",
				proto_strerror(rc));
	if (o.save && file_write(o.save, bytes, len) < 0) {
		free(bytes);
		return cli_fail("submit", "cannot write %s", o.save);
	}
	proto_hex(id, 32, hex);
	if (o.no_send) {
		free(bytes);
		printf("request %s\n", hex);
		return CLI_EXIT_OK;
	}
	args[0] = (const char *)bytes;
	rc = ctl_call(cli->home, "submit-raw", false, 1, args, &len,
		      CTL_TIMEOUT_MS, &ok, &body);
	free(bytes);
	if (rc < 0 || !ok) {
		rc = cli_fail("submit", "%s", rc < 0 ? strerror(-rc) :
			      body ? body : "refused");
		free(body);
		return rc;
	}
	free(body);
	if (cli->json && !o.wait)
		printf("{\"request\": \"%s\"}\n", hex);
	else if (!cli->json) /* --json --wait: the final object names it */
		printf("request %s\n", hex);
	fflush(stdout);
	if (!o.wait)
		return CLI_EXIT_OK;
	s_on_interrupt(hex);
	return submit_follow(cli, id, true, o.wait_ms, o.silence_ms);
}

/* ---- status and cancel ---------------------------------------------------- */

/* Options may follow the one positional argument ("log RUN --suite S"):
 * move a leading positional to the end for getopt's "+" ordering. */
static void s_positional_last(int argc, char **argv)
{
	char *pos;

	if (argc < 3 || argv[1][0] == '-')
		return;
	pos = argv[1];
	memmove(&argv[1], &argv[2], (size_t)(argc - 2) * sizeof(*argv));
	argv[argc - 1] = pos;
}

static int s_one_arg(cli_t *cli, int argc, char **argv, const char *name,
		     const char *usage, const char **ret_key)
{
	static const struct option opts[] = {
		{ "key", required_argument, NULL, 'K' },
		{ 0 },
	};
	int c;

	s_positional_last(argc, argv);
	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return CLI_EXIT_OK;
		}
		if (c != 'K' || !ret_key)
			return cli_usage_error(name, "bad option");
		*ret_key = optarg;
	}
	if (optind + 1 != argc && !(optind == argc && !ret_key &&
				   !strcmp(name, "status")))
		return cli_usage_error(name, "need one REQUEST id");
	return -1;
}

/* The request id argv names, or the reason it names none (printed). */
static int s_request_arg(const cli_t *cli, const char *cmd, const char *arg,
			 uint8_t id[32])
{
	int rc = reqview_find(cli->home, arg, id);

	/* an expired request leaves the store, but the answers and events
	 * of the labs (why it never ran) stay: a whole id still finds them */
	if (rc == -ENOENT && strlen(arg) == 64 && key_parse_hex(arg, id) == 0)
		return 0;
	if (rc == -ENOENT)
		cli_fail(cmd, "no request %.64s in this node's store ('labmesh"
			 " status' lists the latest)", arg);
	else if (rc == -EINVAL)
		cli_fail(cmd, "'%.64s' matches several requests: give more of"
			 " the id", arg);
	else if (rc < 0)
		cli_fail(cmd, "'%.64s' is not a request id: give %d to 64 hex"
			 " digits of one", arg, REQVIEW_MIN_PREFIX);
	return rc;
}

/* `status` alone: the latest requests of this user's key (all, without
 * a key). */
static int s_status_list(const cli_t *cli)
{
	char *path = s_default_key();
	char err[512];
	key_pair_t kp;
	int rc;

	if (key_load(path, &kp, err, sizeof(err)) < 0) {
		free(path);
		return submit_list_requests(cli, NULL);
	}
	free(path);
	rc = submit_list_requests(cli, kp.pk);
	key_wipe(&kp);
	return rc;
}

int cmd_status(cli_t *cli, int argc, char **argv)
{
	uint8_t id[32];
	int rc = s_one_arg(cli, argc, argv, "status",
			   "usage: labmesh status [REQUEST] [--home DIR] [--json]\n"
			   "Where a request stands, per lab and board, from the"
			   " records this node holds.\nREQUEST: the request id"
			   " or a unique prefix of it (6 hex digits or more).\n"
			   "Without REQUEST: your latest requests (those of your"
			   " key; all without one).\n", NULL);

	if (rc >= 0)
		return rc;
	if (optind == argc)
		return s_status_list(cli);
	if (s_request_arg(cli, "status", argv[optind], id) < 0)
		return CLI_EXIT_FAIL;
	return submit_follow(cli, id, false, 0, 0);
}

int cmd_cancel(cli_t *cli, int argc, char **argv)
{
	const char *keyfile = NULL, *args[1];
	uint8_t id[32], cid[32], *bytes = NULL;
	size_t len = 0;
	key_pair_t kp;
	char *body = NULL;
	bool ok = false, done = false;
	size_t boards = 0;
	int rc = s_one_arg(cli, argc, argv, "cancel",
			   "usage: labmesh cancel REQUEST [--key FILE] [--home DIR]\n"
			   "Cancel a request everywhere: signed with your key,"
			   " which must be the key\nthat submitted it.\n"
			   "  --key FILE  submitter key (default"
			   " ${XDG_CONFIG_HOME:-~/.config}/labmesh/key)\n",
			   &keyfile);

	if (rc >= 0)
		return rc;
	if (s_request_arg(cli, "cancel", argv[optind], id) < 0)
		return CLI_EXIT_FAIL;
	if (submit_request_done(cli->home, id, &done, &boards) == 0 && done) {
		printf("request %.12s had already finished on %s %zu board%s:"
		       " nothing to cancel\n", argv[optind],
		       boards == 1 ? "its" : "all", boards,
		       boards == 1 ? "" : "s");
		return CLI_EXIT_OK;
	}
	if (s_load_key("cancel", keyfile, &kp) < 0)
		return CLI_EXIT_FAIL;
	rc = wire_cancel_sign(id, (uint64_t)s_now_ms(), &kp, &bytes, &len,
			      cid);
	key_wipe(&kp);
	if (rc < 0)
		return cli_fail("cancel", "cannot sign: %s", proto_strerror(rc));
	args[0] = (const char *)bytes;
	rc = ctl_call(cli->home, "cancel", false, 1, args, &len, CTL_TIMEOUT_MS,
		      &ok, &body);
	free(bytes);
	if (rc < 0 || !ok) {
		rc = cli_fail("cancel", "%s", rc < 0 ? strerror(-rc) :
			      body ? body : "refused");
		free(body);
		return rc;
	}
	fputs(body ? body : "", stdout);
	free(body);
	return CLI_EXIT_OK;
}

/* ---- log ----------------------------------------------------------------- */

static int s_decode_run(void *arg, uint64_t seq, const uint8_t *bytes,
			size_t len)
{
	return wire_record_decode(bytes, len, arg);
}

/* The run record whose id starts with prefix; caller frees *ret. */
static int s_find_run(const char *home, const char *prefix, record_t **ret)
{
	sqlite3 *db;
	int rc;

	if (strlen(prefix) < 8 || strlen(prefix) > 64 ||
	    strspn(prefix, "0123456789abcdefABCDEF") != strlen(prefix))
		return -EINVAL;
	if (store_open_readonly(home, &db) < 0)
		return -ENOENT;
	rc = store_db_find_record(db, RECORD_RUN, prefix, s_decode_run, ret);
	sqlite3_close(db);
	if (rc == -EINVAL)
		record_destroy(ret);
	return rc < 0 ? rc : 0;
}

/* The local path of a blob, fetched through the node when needed. */
static char *s_fetch(const cli_t *cli, const uint8_t id[32])
{
	char hex[65], *body = NULL;
	const char *args[1] = { hex };
	int64_t until = s_now_ms() + SUBMIT_BLOB_WAIT_MS;
	bool ok;

	if (blob_have(cli->home, id))
		return blob_path(cli->home, id);
	proto_hex(id, 32, hex);
	while (s_now_ms() < until) {
		ok = false;
		if (ctl_call(cli->home, "blob-fetch", false, 1, args, NULL,
			     CTL_TIMEOUT_MS, &ok, &body) < 0 || !ok) {
			free(body);
			return NULL;
		}
		free(body);
		body = NULL;
		if (blob_have(cli->home, id))
			return blob_path(cli->home, id);
		usleep(200 * 1000);
	}
	return NULL;
}

static int s_print_log(const cli_t *cli, const char *what, const uint8_t *id,
		       bool header)
{
	char *path = s_fetch(cli, id), buf[65536];
	ssize_t n;
	int fd;

	if (!path)
		return cli_fail("log", "%s: the log blob is on no reachable"
				" node", what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return cli_fail("log", "%s: %s", what, strerror(errno));
	if (header)
		printf("==> %s <==\n", what);
	fflush(stdout);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	close(fd);
	if (header)
		printf("\n");
	return CLI_EXIT_OK;
}

int cmd_log(cli_t *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "suite", required_argument, NULL, 's' },
		{ 0 },
	};
	const char *suite = NULL;
	record_t *rec = NULL;
	int c, rc = CLI_EXIT_OK, shown = 0;

	s_positional_last(argc, argv);
	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		if (c == 'h') {
			printf("usage: labmesh log RUN [--suite S] [--home DIR]\n"
			       "A run's logs (the boot console, the build, each"
			       " suite's output), fetched\nfrom whichever node"
			       " holds them. RUN: a run record id or a unique\n"
			       "prefix ('labmesh status REQUEST' shows them).\n"
			       "  --suite S   only that suite's output\n");
			return CLI_EXIT_OK;
		}
		if (c != 's')
			return cli_usage_error("log", "bad option");
		suite = optarg;
	}
	if (optind + 1 != argc)
		return cli_usage_error("log", "need one RUN id");
	if (s_find_run(cli->home, argv[optind], &rec) < 0)
		return cli_fail("log", "no single run record with id %s in"
				" this node's store", argv[optind]);
	for (size_t i = 0; !suite && i < rec->run.n_logs; i++, shown++)
		if (s_print_log(cli, rec->run.logs[i].name,
				rec->run.logs[i].blob_id, true) != 0)
			rc = CLI_EXIT_FAIL;
	for (size_t i = 0; i < rec->run.n_suites; i++) {
		const run_suite_t *s = &rec->run.suites[i];

		if (suite && strcmp(suite, s->name) != 0)
			continue;
		for (size_t k = 0; k < s->n_logs; k++, shown++) {
			char what[160];

			/* the selftests a build shipped: an archive, no log */
			if (!strcmp(s->name, "build") &&
			    !strcmp(s->logs[k].name, "kselftest"))
				continue;

			snprintf(what, sizeof(what), "%s %s", s->name,
				 s->logs[k].name);
			if (s_print_log(cli, what, s->logs[k].blob_id,
					!suite) != 0)
				rc = CLI_EXIT_FAIL;
		}
	}
	record_destroy(&rec);
	if (!shown)
		return cli_fail("log", "no %s log in that run", suite ? suite :
				"");
	return rc;
}
