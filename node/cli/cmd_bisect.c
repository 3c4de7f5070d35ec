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
 * Layout: options; the tree's commits; boards; one step (submit, wait,
 * verdict); the loop; the command.
 */
#include "node/cli/bisect_cli.h"
#include "node/cli/jobs_cli.h"

#include "node/net/ctl.h"
#include "node/results/reqview.h"
#include "node/store/store.h"
#include "node/store/wire.h"
#include "proto/mem.h"
#include "proto/record.h"
#include "proto/request.h"
#include "proto/types.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BISECT_POLL_MS 500
#define BISECT_MAX_OUT (64u << 20)      /* bytes of git output read */
#define BISECT_MAX_TRIES 3		/* answers lost for one commit */
#define BISECT_DEFAULT_SILENCE_MS (10LL * 60 * 1000)
#define BISECT_DEFAULT_STEP_MS (6LL * 3600 * 1000)

static int64_t s_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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

/* Run git with argv (no shell), its output into *ret_out (NUL ended,
 * the caller's): 0, or -EIO when it fails. */
static int s_git(char *const argv[], char **ret_out)
{
	size_t cap = 4096, n = 0;
	char *out = xmalloc(cap);
	int fds[2], status = 0;
	ssize_t k;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0) {
		free(out);
		return -EIO;
	}
	pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);

		dup2(fds[1], STDOUT_FILENO);
		dup2(nul, STDERR_FILENO);
		dup2(nul, STDIN_FILENO);
		execvp("git", argv);
		_exit(127);
	}
	close(fds[1]);
	while (pid > 0 && (k = read(fds[0], out + n, cap - n - 1)) > 0) {
		n += (size_t)k;
		if (cap - n - 1 == 0 && cap < BISECT_MAX_OUT)
			out = xrealloc(out, cap *= 2);
		else if (cap - n - 1 == 0)
			break;
	}
	out[n] = '\0';
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		free(out);
		return -EIO;
	}
	*ret_out = out;
	return 0;
}

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
	cli_mkdir_p(cli->home, 0700);
	free(out);
	if (stat(dir, &st) != 0) {
		char *sub = xasprintf("%s/bisect", cli->home);
		char *argv[] = { "git", "clone", "-q", "--bare", "--",
				 (char *)b->url, dir, NULL };

		cli_mkdir_p(sub, 0700);
		free(sub);
		fprintf(stderr, "cloning %s for its history...\n", b->url);
		if (s_git(argv, &out) < 0)
			goto fail;
	} else {
		char *argv[] = { "git", "-C", dir, "fetch", "-q", "origin",
				 "+refs/heads/*:refs/heads/*", NULL };

		if (s_git(argv, &out) < 0)
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
	int rc = s_git(argv, &text);

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
	int rc = s_git(argv, &out);
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
	if (s_git(argv, &out) == 0 && *out)
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

/* ---- boards ---- */

typedef struct {
	char lab[PROTO_MAX_NAME + 1];
	char board[PROTO_MAX_NAME + 1];
} s_spot_t;

/* The boards of the latest advert of each lab that fit --board/--arch,
 * boot a kernel and are not offline or in maintenance. */
typedef struct {
	const bisect_t *b;
	s_spot_t *v;
	size_t n, from; /* from: where the current author's boards start */
	uint8_t author[32];
} s_spots_t;

static int s_spot_advert(void *arg, uint64_t seq, const uint8_t *bytes,
			 size_t len)
{
	s_spots_t *s = arg;
	record_t *r = NULL;

	(void)seq;
	if (wire_record_decode(bytes, len, &r) < 0 ||
	    r->head.kind != RECORD_ADVERT) {
		record_destroy(&r);
		return 0;
	}
	if (s->n && !memcmp(s->author, r->head.author, 32))
		s->n = s->from; /* a newer advert of the same lab */
	else
		s->from = s->n;
	memcpy(s->author, r->head.author, 32);
	for (size_t i = 0; i < r->advert.n_boards; i++) {
		const record_board_t *bd = &r->advert.boards[i];

		if ((s->b->board && strcmp(bd->name, s->b->board)) ||
		    (s->b->arch && strcmp(bd->arch, s->b->arch)) ||
		    !strcmp(bd->boot, "none") || bd->state == BOARD_OFFLINE ||
		    bd->state == BOARD_MAINTENANCE)
			continue;
		s->v = xreallocarray(s->v, s->n + 1, sizeof(*s->v));
		snprintf(s->v[s->n].lab, sizeof(s->v->lab), "%s",
			 r->advert.lab);
		snprintf(s->v[s->n].board, sizeof(s->v->board), "%s",
			 bd->name);
		s->n++;
	}
	record_destroy(&r);
	return 0;
}

static bool s_skip_none(void *arg, const uint8_t *id)
{
	(void)arg, (void)id;
	return false;
}

static int s_spot_cmp(const void *x, const void *y)
{
	const s_spot_t *a = x, *b = y;
	int c = strcmp(a->lab, b->lab);

	return c ? c : strcmp(a->board, b->board);
}

/* How many answers lab (any, if NULL) lost in this bisection (for
 * commit, if given). */
static size_t s_lost(const bisect_t *b, const char *lab, const char *commit)
{
	size_t n = 0;

	for (size_t i = 0; i < b->n_steps; i++)
		n += b->steps[i].verdict == BISECT_LOST &&
		     (!lab || !strcmp(b->steps[i].lab, lab)) &&
		     (!commit || !strcmp(b->steps[i].commit, commit));
	return n;
}

/* The board where the bad end failed, if any. */
static const bisect_step_state_t *s_failing(const bisect_t *b)
{
	for (size_t i = 0; i < b->n_steps; i++)
		if (b->steps[i].verdict == BISECT_BAD &&
		    !strcmp(b->steps[i].commit, b->bad))
			return &b->steps[i];
	return NULL;
}

/* Where to test commit: the board that showed the failure while its lab
 * answers; else the first board (by lab, board) of a lab that lost
 * nothing in this bisection; else of one that lost nothing of commit. */
static int s_pick(const cli_t *cli, const bisect_t *b, const char *commit,
		  s_spot_t *ret)
{
	const bisect_step_state_t *f = s_failing(b);
	s_spots_t s = { .b = b };
	sqlite3 *db;
	int rc = -ENOENT;

	if (store_open_readonly(cli->home, &db) == 0) {
		store_db_records_of_kind(db, RECORD_ADVERT, s_skip_none,
					 s_spot_advert, &s);
		sqlite3_close(db);
	}
	qsort(s.v, s.n, sizeof(*s.v), s_spot_cmp);
	for (size_t i = 0; f && i < s.n && rc < 0; i++)
		if (!strcmp(s.v[i].lab, f->lab) &&
		    !strcmp(s.v[i].board, f->board) && !s_lost(b, f->lab, NULL))
			*ret = s.v[i], rc = 0;
	for (size_t i = 0; i < s.n && rc < 0; i++)
		if (!s_lost(b, s.v[i].lab, NULL))
			*ret = s.v[i], rc = 0;
	for (size_t i = 0; i < s.n && rc < 0; i++)
		if (!s_lost(b, s.v[i].lab, commit))
			*ret = s.v[i], rc = 0;
	free(s.v);
	return rc;
}

/* ---- one step ---- */

static int s_send(const cli_t *cli, bisect_t *b, const char *commit,
		  const s_spot_t *at, uint8_t ret_id[32])
{
	const char *suites[1] = { b->suite }, *labs[1] = { at->lab };
	const char *boards[1] = { at->board }, *args[1];
	request_t req = { 0 };
	uint8_t *bytes = NULL;
	size_t len = 0;
	char *body = NULL;
	bool ok = false;
	int rc;

	req.kernel = (request_kernel_t){ .type = REQUEST_KERNEL_GIT,
		.url = b->url, .branch = b->branch, .commit = commit,
		.config = b->config ? b->config : "", .describe = "",
		.arch = "" };
	req.created_ms = (uint64_t)s_now_ms();
	req.expires_ms = req.created_ms + (uint64_t)b->step_ms;
	randombytes_buf(req.nonce, sizeof(req.nonce));
	req.priority = 50;
	req.suites = suites;
	req.n_suites = 1;
	req.select = (request_selector_t){ .arch = b->arch ? b->arch : "",
		.labs = labs, .n_labs = 1, .boards = boards, .n_boards = 1,
		.max_per_lab = 1 };
	rc = wire_request_sign(&req, &b->kp, &bytes, &len, ret_id);
	if (rc < 0)
		return cli_fail("bisect", "the request is not valid: %s",
				wire_strerror(rc)), -EINVAL;
	args[0] = (const char *)bytes;
	rc = ctl_call(cli->home, "submit-raw", false, 1, args, &len,
		      CTL_TIMEOUT_MS, &ok, &body);
	free(bytes);
	if (rc < 0 || !ok)
		cli_fail("bisect", "the node did not take the request: %s",
			 rc < 0 ? strerror(-rc) : body ? body : "refused");
	free(body);
	return rc < 0 || !ok ? -EIO : 0;
}

/* Send commit to a board and publish the step as pending. */
static int s_submit(const cli_t *cli, bisect_t *b, const char *commit)
{
	bisect_step_state_t *st = &b->steps[b->n_steps];
	char hex[65];
	s_spot_t at;

	if (s_pick(cli, b, commit, &at) < 0) {
		snprintf(b->text, sizeof(b->text), "no board%s%s to test"
			 " %.12s on (labmesh boards)", b->board ? " " :
			 b->arch ? " of arch " : "", b->board ? b->board :
			 b->arch ? b->arch : "", commit);
		return -ENOENT;
	}
	memset(st, 0, sizeof(*st));
	if (s_send(cli, b, commit, &at, st->request) < 0)
		return -EIO;
	snprintf(st->commit, sizeof(st->commit), "%s", commit);
	st->verdict = BISECT_PENDING;
	st->has_request = true;
	memcpy(st->lab, at.lab, sizeof(at.lab));
	memcpy(st->board, at.board, sizeof(at.board));
	b->n_steps++;
	if (bisect_publish(cli, b) < 0)
		return -EIO;
	proto_hex(st->request, 32, hex);
	printf("step %zu: testing %.12s on %s/%s (request %.12s)\n",
	       b->n_steps, commit, at.lab, at.board, hex);
	fflush(stdout);
	return 0;
}

/*
 * The verdict of one run for the test: GOOD (it passed), BAD (it
 * failed) or LOST (no verdict: the build failed, the suite or case is
 * missing, or it could not run), with why into why.
 *
 * This is where a step's result is read and the one place to confirm it
 * before the bisection moves on (run it again, on another board, and
 * tell a flaky or board-specific failure from the regression).
 */
static int s_run_verdict(const bisect_t *b, const record_run_t *run,
			 char *why, size_t n)
{
	const run_suite_t *s = NULL;
	int status = 0;

	if (run->kernel.build == BUILD_FAIL || run->kernel.build == BUILD_ERROR)
		return snprintf(why, n, "the build failed"), BISECT_LOST;
	for (size_t i = 0; i < run->n_suites && !s; i++)
		if (!strcmp(run->suites[i].name, b->suite))
			s = &run->suites[i];
	if (!s)
		return snprintf(why, n, "the run has no suite %s", b->suite),
		       BISECT_LOST;
	status = b->path ? 0 : s->status;
	for (size_t i = 0; b->path && i < s->n_cases && !status; i++)
		if (!strcmp(s->cases[i].path, b->path))
			status = s->cases[i].status;
	if (!status)
		return snprintf(why, n, "the run has no case %s", b->path),
		       BISECT_LOST;
	snprintf(why, n, "%s", proto_status_name(status));
	if (status == PROTO_PASS)
		return BISECT_GOOD;
	return status == PROTO_FAIL ? BISECT_BAD : BISECT_LOST;
}

static int s_take_run(void *arg, uint64_t seq, const uint8_t *bytes,
		      size_t len)
{
	(void)seq;
	return wire_record_decode(bytes, len, arg) < 0 ? -EBADMSG : 0;
}

/* The verdict of the run named by hex (from the store db). */
static int s_verdict_of(sqlite3 *db, const bisect_t *b, const char *hex,
			char *why, size_t n)
{
	record_t *r = NULL;
	int v;

	if (store_db_find_record(db, RECORD_RUN, hex, s_take_run, &r) < 0 ||
	    !r)
		return snprintf(why, n, "its run record cannot be read"),
		       BISECT_LOST;
	v = s_run_verdict(b, &r->run, why, n);
	record_destroy(&r);
	return v;
}

/* Follow a pending step through the view of its request. */
typedef struct {
	int64_t start, change;
	unsigned said;
	size_t printed;
	char why[256];
} s_follow_t;

static const reqview_lab_t *s_lab_of(const reqview_t *v, const char *lab)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->labs[i].name, lab))
			return &v->labs[i];
	return NULL;
}

/* One look: a verdict, or 0 to look again. */
static int s_look(sqlite3 *db, const bisect_t *b, bisect_step_state_t *st,
		  s_follow_t *f)
{
	const reqview_lab_t *l;
	reqview_t v = { 0 };
	int verdict = 0;

	if (reqview_collect(db, st->request, &v) < 0)
		return 0;
	for (; f->printed < v.n_events; f->printed++)
		printf("  %s\n", v.events[f->printed].line);
	fflush(stdout);
	l = s_lab_of(&v, st->lab);
	if (l && l->n_said != f->said)
		f->said = l->n_said, f->change = s_now_ms();
	if (l && l->answer == REQVIEW_DECLINED) {
		snprintf(f->why, sizeof(f->why), "declined: %s", l->decline);
		verdict = BISECT_LOST;
	}
	for (size_t i = 0; l && !verdict && i < l->n_boards; i++) {
		const reqview_board_t *bd = &l->boards[i];

		if (strcmp(bd->name, st->board))
			continue;
		if (bd->has_run) {
			proto_unhex(bd->run, st->run, 32);
			st->has_run = true;
			verdict = s_verdict_of(db, b, bd->run, f->why,
					       sizeof(f->why));
		} else if (reqview_final(bd) && bd->state != JOB_DONE) {
			snprintf(f->why, sizeof(f->why), "%s: %s",
				 job_state_name(bd->state), bd->text);
			verdict = BISECT_LOST;
		}
	}
	reqview_free(&v);
	return verdict;
}

/* Wait for the verdict of the last (pending) step: 0 with it set, or
 * -ENOTCONN when the node stopped. */
static int s_wait(const cli_t *cli, bisect_t *b)
{
	bisect_step_state_t *st = &b->steps[b->n_steps - 1];
	s_follow_t f = { .start = s_now_ms(), .change = s_now_ms() };
	sqlite3 *db = NULL;
	int verdict = 0;

	for (unsigned i = 0; !verdict; i++) {
		int64_t now = s_now_ms();

		if (!db && store_open_readonly(cli->home, &db) < 0)
			db = NULL;
		if (db)
			verdict = s_look(db, b, st, &f);
		if (verdict)
			break;
		if (now - f.change > b->silence_ms || now - f.start > b->step_ms) {
			snprintf(f.why, sizeof(f.why), "%s said nothing for"
				 " %llds", st->lab, (long long)((now - f.change)
								/ 1000));
			verdict = BISECT_LOST;
			break;
		}
		if (i % 20 == 19 && !ctl_running(cli->home)) {
			sqlite3_close(db);
			return cli_fail("bisect", "the node in %s stopped; start"
					" it and run the same command again to"
					" resume", cli->home), -ENOTCONN;
		}
		usleep(BISECT_POLL_MS * 1000);
	}
	sqlite3_close(db);
	st->verdict = verdict;
	printf("step %zu: %.12s is %s on %s/%s (%s)\n", b->n_steps, st->commit,
	       bisect_verdict_name(verdict), st->lab, st->board, f.why);
	fflush(stdout);
	return 0;
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
		if (s_lost(b, NULL, b->steps[i].commit) >= BISECT_MAX_TRIES)
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
	if (s_git(argv, &text) == 0)
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
			if (s_wait(cli, b) < 0)
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
		next = s_submit(cli, b, commit);
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
