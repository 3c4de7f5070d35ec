/*
 * cmd_bisect: `labmesh bisect` finds the first bad commit of a regression
 * through the network. Each step is a signed git request for one commit,
 * sent to one board (so the commit is built once, by that board's lab,
 * and any other lab that needs it boots that build): first the bad end,
 * on a board where the test then fails; then the good end and the
 * midpoints on that same board, while its lab answers. A lab that says
 * nothing for --silence, declines, or ends the job without a verdict
 * loses the step: the commit goes to another lab's board. After each
 * change the node publishes the bisection as a bisect record
 * (bisect_state.c), which is also what a second run of the same command
 * resumes from.
 *
 * Layout: options; the tree's commits; the loop; the command. One step
 * (a board, the request, its verdict) is bisect_step.c's.
 */
#include "node/cli/bisect_cli.h"
#include "node/cli/jobs_cli.h"

#include "node/net/ctl.h"
#include "proto/mem.h"
#include "proto/record.h"
#include "proto/types.h"

#include <errno.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define BISECT_MAX_OUT (64u << 20)      /* bytes of git output read */
#define BISECT_MAX_TRIES 3		/* answers lost for one commit */
#define BISECT_DEFAULT_SILENCE_MS (10LL * 60 * 1000)
#define BISECT_DEFAULT_STEP_MS (6LL * 3600 * 1000)

/* ---- options ---- */

static void s_usage(FILE *f)
{
	fprintf(f,
		"usage: labmesh bisect --git URL --good A --bad B --test"
		" SUITE[.PATH]\n"
		"                      [--board B | --arch A] [--config C]"
		" [--branch BR]\n"
		"                      [--silence D] [--step-timeout D]"
		" [--key FILE] [--home DIR]\n"
		"       labmesh bisect --show ID | --list [--json]\n"
		"Find the first bad commit between A (good) and B (bad) through"
		" the network:\neach step builds one commit once, on one lab,"
		" and runs the test on a board\nwhere B failed. The node"
		" publishes the bisection as a signed record after\neach step;"
		" run the same command again to resume it (after a restart).\n"
		"  --git URL        the tree (a local repository, or a URL"
		" this node clones)\n"
		"  --good A --bad B commits (ids, or names git resolves in a"
		" local repository)\n"
		"  --test S[.P]     the suite S, or its test case P, that fails"
		" at B\n"
		"  --board B        test on this board; --arch A: on a board of"
		" this arch\n"
		"  --config C       the config spec of the build (as submit's)\n"
		"  --branch BR      a branch that holds B (default: the"
		" tree's HEAD)\n"
		"  --silence D      a lab that says nothing about a step for D"
		" has lost it;\n                   the commit goes to another"
		" board (default 10m)\n"
		"  --step-timeout D give up on a commit after D (default 6h)\n"
		"  --key FILE       submitter key (as submit's)\n"
		"  --show ID        a bisection from this node's store (any"
		" node's)\n"
		"  --list           every bisection in this node's store\n"
		"Exit 0 with the first bad commit; 1 when it cannot be"
		" found.\n");
}

static int s_duration(const char *s, int64_t *ret)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	int64_t mul = 1000;

	if (end == s || v <= 0 || v > 365LL * 86400)
		return -EINVAL;
	if (*end == 'm')
		mul = 60000;
	else if (*end == 'h')
		mul = 3600000;
	else if (*end != 's' && *end != '\0')
		return -EINVAL;
	if (*end && end[1])
		return -EINVAL;
	*ret = v * mul;
	return 0;
}

/* --test SUITE[.PATH]: the suite a name, the path the test case. */
static int s_test(bisect_t *b)
{
	const char *dot = strchr(b->test, '.');
	size_t n = dot ? (size_t)(dot - b->test) : strlen(b->test);

	if (n == 0 || n > PROTO_MAX_NAME || !proto_path_ok(b->test) ||
	    (dot && !dot[1]))
		return cli_usage_error("bisect", "--test '%.80s': give a suite"
				       " name, or SUITE.PATH for one of its"
				       " test cases", b->test), -EINVAL;
	memcpy(b->suite, b->test, n);
	b->suite[n] = '\0';
	if (!proto_name_ok(b->suite))
		return cli_usage_error("bisect", "--test: '%s' is not a suite"
				       " name", b->suite), -EINVAL;
	b->path = dot ? dot + 1 : NULL;
	return 0;
}

static int s_opts(cli_t *cli, int argc, char **argv, bisect_t *b,
		  const char **ret_show, const char **ret_good,
		  const char **ret_bad)
{
	static const struct option opts[] = {
		{ "git", required_argument, NULL, 'g' },
		{ "good", required_argument, NULL, 'G' },
		{ "bad", required_argument, NULL, 'X' },
		{ "test", required_argument, NULL, 't' },
		{ "board", required_argument, NULL, 'B' },
		{ "arch", required_argument, NULL, 'a' },
		{ "config", required_argument, NULL, 'C' },
		{ "branch", required_argument, NULL, 'b' },
		{ "silence", required_argument, NULL, 'Q' },
		{ "step-timeout", required_argument, NULL, 'T' },
		{ "key", required_argument, NULL, 'K' },
		{ "show", required_argument, NULL, 'S' },
		{ "list", no_argument, NULL, 'L' },
		{ 0 },
	};
	int c, rc = 0;

	b->silence_ms = BISECT_DEFAULT_SILENCE_MS;
	b->step_ms = BISECT_DEFAULT_STEP_MS;
	while (rc == 0 && (c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		switch (c) {
		case 'h': s_usage(stdout); return 1;
		case 'g': b->url = optarg; break;
		case 'G': *ret_good = optarg; break;
		case 'X': *ret_bad = optarg; break;
		case 't': b->test = optarg; break;
		case 'B': b->board = optarg; break;
		case 'a': b->arch = optarg; break;
		case 'C': b->config = optarg; break;
		case 'b': b->branch = optarg; break;
		case 'K': b->key = optarg; break;
		case 'S': *ret_show = optarg; break;
		case 'L': *ret_show = ""; break;
		case 'Q':
		case 'T':
			rc = s_duration(optarg, c == 'Q' ? &b->silence_ms :
							   &b->step_ms);
			if (rc < 0)
				return cli_usage_error("bisect", "--%s '%s':"
					" give a duration like 90s, 30m or"
					" 12h", c == 'Q' ? "silence" :
					"step-timeout", optarg), -EINVAL;
			break;
		default: return -EINVAL;
		}
	}
	if (optind < argc)
		return cli_usage_error("bisect", "unexpected argument '%.64s'",
				       argv[optind]), -EINVAL;
	if (*ret_show)
		return 0;
	if (!b->url || !*ret_good || !*ret_bad || !b->test)
		return cli_usage_error("bisect", "give --git, --good, --bad and"
				       " --test (or --show ID)"), -EINVAL;
	if (b->board && b->arch)
		return cli_usage_error("bisect", "give --board or --arch, not"
				       " both"), -EINVAL;
	if ((b->board && !proto_name_ok(b->board)) ||
	    (b->arch && !proto_name_ok(b->arch)))
		return cli_usage_error("bisect", "--%s: not a name",
				       b->board ? "board" : "arch"), -EINVAL;
	return s_test(b);
}

/* ---- the tree's commits ---- */

/* A local repository of the tree: --git itself when it is one, else a
 * bare clone of it kept in HOME/bisect/ (fetched again each run). */
static int s_repo(const cli_t *cli, bisect_t *b)
{
	struct stat st;
	unsigned char h[16];
	char hex[33], *dir, *out = NULL;

	if (stat(b->url, &st) == 0 && S_ISDIR(st.st_mode)) {
		b->repo = xstrdup(b->url);
		return 0;
	}
	crypto_generichash(h, sizeof(h), (const unsigned char *)b->url,
			   strlen(b->url), NULL, 0);
	proto_hex(h, sizeof(h), hex);
	dir = xasprintf("%s/bisect/%s.git", cli->home, hex);
	if (stat(dir, &st) != 0) {
		char *sub = xasprintf("%s/bisect", cli->home);
		char *argv[] = { "git", "clone", "-q", "--bare", "--",
				 (char *)b->url, dir, NULL };

		cli_mkdir_p(sub, 0700);
		free(sub);
		fprintf(stderr, "cloning %s for its history...\n", b->url);
		if (cli_git(argv, BISECT_MAX_OUT, &out) < 0)
			goto fail;
	} else {
		char *argv[] = { "git", "-C", dir, "fetch", "-q", "origin",
				 "+refs/heads/*:refs/heads/*", NULL };

		if (cli_git(argv, BISECT_MAX_OUT, &out) < 0)
			goto fail;
	}
	free(out);
	b->repo = dir;
	return 0;
fail:
	cli_fail("bisect", "cannot clone or fetch %s into %s", b->url, dir);
	free(dir);
	return -EIO;
}

static int s_resolve(const bisect_t *b, const char *name, const char *opt,
		     char out[41])
{
	char *spec = xasprintf("%s^{commit}", name), *text = NULL;
	char *argv[] = { "git", "-C", b->repo, "rev-parse", "--verify", "-q",
			 "--end-of-options", spec, NULL };
	int rc = cli_git(argv, BISECT_MAX_OUT, &text);

	free(spec);
	if (rc < 0 || strlen(text) < 40 || (text[40] && text[40] != '\n')) {
		free(text);
		return cli_usage_error("bisect", "--%s '%.64s': not a commit of"
				       " %s", opt, name, b->url), -EINVAL;
	}
	memcpy(out, text, 40);
	out[40] = '\0';
	free(text);
	return 0;
}

/* The commits after good up to bad, oldest first (first parents: the
 * line a regression travelled), and the branch to name in requests. */
static int s_commits(bisect_t *b)
{
	char *range = xasprintf("%s..%s", b->good, b->bad), *out = NULL;
	char *argv[] = { "git", "-C", b->repo, "rev-list", "--reverse",
			 "--first-parent", range, NULL };
	int rc = cli_git(argv, BISECT_MAX_OUT, &out);
	size_t cap = 64;

	free(range);
	if (rc < 0)
		return cli_fail("bisect", "git rev-list %.12s..%.12s failed in"
				" %s", b->good, b->bad, b->repo), -EIO;
	b->commits = xcalloc(cap, sizeof(*b->commits));
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		if (strlen(l) != 40)
			continue;
		if (b->n == cap)
			b->commits = xreallocarray(b->commits, cap *= 2,
						   sizeof(*b->commits));
		memcpy(b->commits[b->n++], l, 41);
	}
	free(out);
	if (!b->n || strcmp(b->commits[b->n - 1], b->bad) != 0)
		return cli_fail("bisect", "%.12s is not a descendant of %.12s"
				" in %s: nothing to bisect", b->bad, b->good,
				b->url), -EINVAL;
	return 0;
}

static void s_branch(bisect_t *b, char *buf, size_t n)
{
	char *argv[] = { "git", "-C", b->repo, "symbolic-ref", "-q",
			 "--short", "HEAD", NULL };
	char *out = NULL;

	if (b->branch)
		return;
	snprintf(buf, n, "main");
	if (cli_git(argv, BISECT_MAX_OUT, &out) == 0 && *out)
		snprintf(buf, n, "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
	b->branch = buf;
}

/* The bisection's id: what was asked, and by whom. */
static void s_bisection_id(bisect_t *b)
{
	crypto_generichash_state st;
	const char *parts[] = { b->url, b->good, b->bad, b->test,
				b->config ? b->config : "",
				b->arch ? b->arch : "",
				b->board ? b->board : "" };

	crypto_generichash_init(&st, NULL, 0, 32);
	crypto_generichash_update(&st, (const unsigned char *)"bisect", 7);
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		crypto_generichash_update(&st, (const unsigned char *)parts[i],
					  strlen(parts[i]) + 1);
	crypto_generichash_update(&st, b->kp.pk, 32);
	crypto_generichash_final(&st, b->id, 32);
}

/* ---- the loop ---- */

/* The latest verdict (not lost) of commit, or 0. */
static int s_verdict(const bisect_t *b, const char *commit,
		     const bisect_step_state_t **ret)
{
	for (size_t i = b->n_steps; i-- > 0;) {
		const bisect_step_state_t *st = &b->steps[i];

		if (!strcmp(st->commit, commit) && st->verdict != BISECT_LOST &&
		    st->verdict != BISECT_PENDING) {
			*ret = st;
			return st->verdict;
		}
	}
	return 0;
}

static long s_index(const bisect_t *b, const char *commit)
{
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(b->commits[i], commit))
			return (long)i;
	return -1; /* good itself, or a commit off the line */
}

/* What to test next into *ret_commit (0); 1 when the first bad commit
 * is known; -1 when the bisection cannot go on (b->text says why). */
static int s_next(bisect_t *b, const char **ret_commit)
{
	const bisect_step_state_t *st = NULL;
	long lo = -1, hi = (long)b->n - 1;

	for (size_t i = 0; i < b->n_steps; i++)
		if (bisect_lost(b, NULL, b->steps[i].commit) >= BISECT_MAX_TRIES)
			return snprintf(b->text, sizeof(b->text), "%.12s could"
					" not be tested %d times", b->steps[i].commit,
					BISECT_MAX_TRIES), -1;
	if (!s_verdict(b, b->bad, &st))
		return *ret_commit = b->bad, 0;
	if (st->verdict == BISECT_GOOD)
		return snprintf(b->text, sizeof(b->text), "the bad commit"
				" %.12s passes %s on %s/%s: nothing to bisect",
				b->bad, b->test, st->lab, st->board), -1;
	if (!s_verdict(b, b->good, &st))
		return *ret_commit = b->good, 0;
	if (st->verdict == BISECT_BAD)
		return snprintf(b->text, sizeof(b->text), "the good commit"
				" %.12s fails %s too on %s/%s: the regression"
				" is older", b->good, b->test, st->lab,
				st->board), -1;
	for (size_t i = 0; i < b->n_steps; i++) {
		long k = s_index(b, b->steps[i].commit);

		if (k < 0 || s_verdict(b, b->steps[i].commit, &st) == 0)
			continue;
		if (st->verdict == BISECT_GOOD && k > lo)
			lo = k;
		else if (st->verdict == BISECT_BAD && k < hi)
			hi = k;
	}
	if (lo >= hi)
		return snprintf(b->text, sizeof(b->text), "the verdicts"
				" disagree: %.12s passed after %.12s failed",
				b->commits[lo], b->commits[hi]), -1;
	if (hi - lo == 1) {
		memcpy(b->first_bad, b->commits[hi], 41);
		return 1;
	}
	*ret_commit = b->commits[lo + (hi - lo) / 2];
	return 0;
}

static void s_subject(const bisect_t *b, const char *commit, char *out,
		      size_t n)
{
	char *argv[] = { "git", "-C", b->repo, "log", "-1", "--format=%s",
			 (char *)commit, NULL };
	char *text = NULL;

	*out = '\0';
	if (cli_git(argv, BISECT_MAX_OUT, &text) == 0)
		snprintf(out, n, "%.*s", (int)strcspn(text, "\n"), text);
	free(text);
}

static void s_print_end(const bisect_t *b);

static int s_end(const cli_t *cli, bisect_t *b, int next)
{
	b->state = next == 1 ? BISECT_DONE : BISECT_FAILED;
	if (b->state == BISECT_DONE)
		snprintf(b->text, sizeof(b->text), "%zu steps", b->n_steps);
	if (bisect_publish(cli, b) < 0)
		return CLI_EXIT_FAIL;
	s_print_end(b);
	return b->state == BISECT_DONE ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

static int s_drive(const cli_t *cli, bisect_t *b)
{
	const char *commit = NULL;
	int next;

	for (;;) {
		if (b->n_steps && b->steps[b->n_steps - 1].verdict ==
				  BISECT_PENDING) {
			if (bisect_wait(cli, b) < 0)
				return CLI_EXIT_FAIL;
			if (bisect_publish(cli, b) < 0)
				return CLI_EXIT_FAIL;
			continue;
		}
		next = s_next(b, &commit);
		if (next == 0 && b->n_steps >= PROTO_MAX_BISECT_STEPS) {
			snprintf(b->text, sizeof(b->text), "too many steps");
			next = -1;
		}
		if (next != 0)
			return s_end(cli, b, next);
		next = bisect_submit(cli, b, commit);
		if (next == -ENOENT)
			return s_end(cli, b, -1);
		if (next < 0)
			return CLI_EXIT_FAIL;
	}
}

/* ---- the command ---- */

/* Everything a bisection needs before its first step: 0 or the exit
 * status (the reason printed). */
static int s_prepare(const cli_t *cli, bisect_t *b, const char *good,
		     const char *bad, char *branch, size_t n)
{
	if (!ctl_running(cli->home))
		return cli_fail("bisect", "no node runs in %s (start one with"
				" 'labmesh node')", cli->home);
	if (submit_load_key("bisect", b->key, &b->kp) < 0 ||
	    s_repo(cli, b) < 0)
		return CLI_EXIT_FAIL;
	if (s_resolve(b, good, "good", b->good) < 0 ||
	    s_resolve(b, bad, "bad", b->bad) < 0)
		return CLI_EXIT_USAGE;
	if (s_commits(b) < 0)
		return CLI_EXIT_FAIL;
	s_branch(b, branch, n);
	s_bisection_id(b);
	return 0;
}

/* ceil(log2(n)) + 2: the ends, then halving. */
static int s_steps_for(size_t n)
{
	int k = 0;

	while (((size_t)1 << k) < n)
		k++;
	return k + 2;
}

static void s_print_end(const bisect_t *b)
{
	char hex[65], subject[256];

	proto_hex(b->id, 32, hex);
	if (b->state == BISECT_FAILED) {
		cli_fail("bisect", "bisection %.12s stopped: %s", hex, b->text);
		return;
	}
	s_subject(b, b->first_bad, subject, sizeof(subject));
	printf("first bad commit: %s %s\n", b->first_bad, subject);
	printf("bisection %.12s: %zu steps (labmesh bisect --show %.12s)\n",
	       hex, b->n_steps, hex);
}

/* Start or resume the bisection b names. */
static int s_run(const cli_t *cli, bisect_t *b)
{
	char hex[65];
	int rc = bisect_load(cli->home, b);

	if (rc < 0)
		return cli_fail("bisect", "cannot read the store in %s: %s",
				cli->home, strerror(-rc));
	proto_hex(b->id, 32, hex);
	if (rc == 1 && b->state != BISECT_RUNNING) {
		printf("bisection %.12s ended before:\n", hex);
		s_print_end(b);
		return b->state == BISECT_DONE ? CLI_EXIT_OK : CLI_EXIT_FAIL;
	}
	if (rc == 0)
		printf("bisection %.12s: %zu commits after %.12s up to %.12s,"
		       " test %s; at most %d steps\n", hex, b->n, b->good,
		       b->bad, b->test, s_steps_for(b->n));
	else
		printf("bisection %.12s: resuming after step %zu\n", hex,
		       b->n_steps);
	fflush(stdout);
	b->state = BISECT_RUNNING;
	return s_drive(cli, b);
}

int cmd_bisect(cli_t *cli, int argc, char **argv)
{
	const char *show = NULL, *good = NULL, *bad = NULL;
	bisect_t *b = xcalloc(1, sizeof(*b));
	char branch[256];
	int rc = s_opts(cli, argc, argv, b, &show, &good, &bad);

	if (rc != 0)
		rc = rc > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	else if (show)
		rc = *show ? bisect_show(cli, show) : bisect_list(cli);
	else if (!(rc = s_prepare(cli, b, good, bad, branch, sizeof(branch))))
		rc = s_run(cli, b);
	key_wipe(&b->kp);
	free(b->repo);
	free(b->commits);
	free(b);
	return rc;
}
