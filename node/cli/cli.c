/*
 * cli: shared option handling and helpers of the `labmesh` subcommands.
 */
#include "node/cli/cli.h"
#include "node/net/ctl.h"
#include "node/results/query.h"

#include "proto/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CLI_MAX_OPTS 64

void cli_set_home(cli_t *cli, const char *dir)
{
	const char *env = getenv("LABMESH_HOME");
	const char *home = getenv("HOME");

	free(cli->home);
	if (dir && *dir)
		cli->home = xstrdup(dir);
	else if (env && *env)
		cli->home = xstrdup(env);
	else
		cli->home = xasprintf("%s/.local/share/labmesh",
				      home && *home ? home : ".");
}

int cli_mkdir_p(const char *path, mode_t mode)
{
	char *p = xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST) {
			rc = -errno;
			break;
		}
		*s = '/';
	}
	if (rc == 0 && mkdir(p, mode) < 0 && errno != EEXIST)
		rc = -errno;
	free(p);
	return rc;
}

int cli_make_home(const cli_t *cli)
{
	return cli_mkdir_p(cli->home, 0700);
}

char *cli_path(const cli_t *cli, const char *name)
{
	return xasprintf("%s/%s", cli->home, name);
}

int cli_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "labmesh %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_EXIT_FAIL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "labmesh %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'labmesh %s --help')\n", cmd);
	return CLI_EXIT_USAGE;
}

int cli_getopt(cli_t *cli, int argc, char **argv, const char *shortopts,
	       const struct option *longopts)
{
	struct option all[CLI_MAX_OPTS];
	char so[64];
	size_t n = 0;
	int c;

	for (; longopts && longopts[n].name && n < CLI_MAX_OPTS - 4; n++)
		all[n] = longopts[n];
	all[n++] = (struct option){ "home", required_argument, NULL,
				    CLI_OPT_HOME };
	all[n++] = (struct option){ "json", no_argument, NULL, CLI_OPT_JSON };
	all[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	all[n] = (struct option){ 0 };
	snprintf(so, sizeof(so), "+h%s", shortopts ? shortopts : "");
	for (;;) {
		c = getopt_long(argc, argv, so, all, NULL);
		if (c == CLI_OPT_HOME)
			cli_set_home(cli, optarg);
		else if (c == CLI_OPT_JSON)
			cli->json = true;
		else
			return c;
	}
}

int cli_ctl_command(const char *cmdname, const char *home, const char *command,
		    bool json, size_t nargs, const char *const *args)
{
	char *body = NULL;
	bool ok = false;
	int rc;

	rc = ctl_call(home, command, json, nargs, args, NULL, CTL_TIMEOUT_MS,
		      &ok, &body);
	if (rc == -ECONNREFUSED)
		return cli_fail(cmdname, "no node is running in %s", home);
	if (rc < 0)
		return cli_fail(cmdname, "control socket: %s", strerror(-rc));
	if (!ok) {
		rc = cli_fail(cmdname, "%s", body);
		free(body);
		return rc;
	}
	fputs(body, stdout);
	free(body);
	return CLI_EXIT_OK;
}

/* ---- git ---------------------------------------------------------------- */

int cli_git(char *const argv[], size_t max, char **ret_out)
{
	size_t cap = max < 4096 ? max + 1 : 4096, n = 0;
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
		if (n + 1 < cap)
			continue;
		if (cap > max)
			break; /* max read: git gets EPIPE and fails */
		cap = cap > max / 2 ? max + 1 : cap * 2;
		out = xrealloc(out, cap);
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

/* ---- times ---------------------------------------------------------------- */

int64_t cli_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int cli_time_ahead(const char *s, int64_t *ret)
{
	int64_t now = cli_now_ms(), t;

	if (query_parse_since(s, now, &t) < 0)
		return -EINVAL;
	if (!strchr(s, '-'))
		t = now + (now - t);
	if (t <= now)
		return -ERANGE;
	*ret = t;
	return 0;
}
