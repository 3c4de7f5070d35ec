/*
 * serial_cmd: which commands may run in the console's shell itself rather
 * than in a subshell. A subshell costs a fork, and on an emulated board a
 * fork costs several console round trips, while most commands are one
 * plain program call whose exit status the shell reports anyway.
 *
 * A command qualifies when it is one simple command that cannot change
 * the shell it runs in: words of plain characters, '…' strings and "…"
 * strings without expansions; no operators, redirections, expansions,
 * comments or globs in the command name; and a command name that is
 * neither an assignment, a reserved word, a builtin that changes the
 * shell (cd, exit, set, read, ...) nor one of the session's functions.
 * Anything else runs in a subshell, as before. Pure code.
 */
#include "transports/serial.h"

#include <string.h>

#define SERIAL_CMD_NAME_MAX 32

/* Reserved words, builtins that change or read the shell's own state
 * (bash and ash ones too), and the session's marker functions. */
static const char *const s_keep_out[] = {
	"!", "[[", "]]", "{", "}", "case", "coproc", "do", "done", "elif", "else",
	"esac", "fi", "for", "function", "if", "in", "select", "then", "time",
	"until", "while", ".", "alias", "bg", "bind", "break", "builtin",
	"caller", "cd", "chdir", "command", "compgen", "complete", "compopt",
	"continue", "declare", "dirs", "disown", "enable", "eval", "exec",
	"exit", "export", "fc", "fg", "getopts", "hash", "history", "jobs",
	"let", "local", "login", "logout", "mapfile", "newgrp", "popd",
	"printf", "pushd", "read", "readarray", "readonly", "return", "set",
	"setvar", "shift", "shopt", "source", "suspend", "trap", "typeset",
	"ulimit", "umask", "unalias", "unset", "wait", "_s", "_e",
};

static bool s_plain(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("_./:,+%@=~-", c));
}

static bool s_glob(char c)
{
	return c == '*' || c == '?' || c == '[' || c == ']';
}

/* The end of the quoted string that starts at p (a quote), or NULL when
 * it is unterminated or holds something the shell would expand. */
static const char *s_quoted(const char *p)
{
	const char *e = strchr(p + 1, *p);

	if (!e || memchr(p + 1, '\n', (size_t)(e - p - 1)))
		return NULL;
	if (*p == '"') {
		for (const char *q = p + 1; q < e; q++) {
			if (strchr("$`\\!", *q))
				return NULL;
		}
	}
	return e;
}

/* name: the command name's first bytes (all of it when len fits). */
static bool s_name_ok(const char *name, size_t len, bool glob, bool assign)
{
	if (len == 0 || assign)
		return false;
	if (glob && !(len == 1 && name[0] == '['))
		return false;
	if (len >= SERIAL_CMD_NAME_MAX)
		return true; /* longer than any word kept out */
	for (size_t i = 0; i < sizeof(s_keep_out) / sizeof(s_keep_out[0]); i++) {
		if (strlen(s_keep_out[i]) == len && !memcmp(s_keep_out[i], name, len))
			return false;
	}
	return true;
}

bool serial_cmd_simple(const char *cmd)
{
	char name[SERIAL_CMD_NAME_MAX];
	size_t nlen = 0;
	int words = 0;
	bool in_word = false, glob = false, assign = false;

	for (const char *p = cmd; *p;) {
		if (*p == ' ' || *p == '\t') {
			in_word = false;
			p++;
			continue;
		}
		if (!in_word) {
			in_word = true;
			words++;
		}
		if (*p == '\'' || *p == '"') {
			const char *e = s_quoted(p);
			size_t n;

			if (!e)
				return false;
			n = (size_t)(e - p - 1);
			if (words == 1 && nlen + n < sizeof(name))
				memcpy(name + nlen, p + 1, n);
			if (words == 1) {
				assign |= memchr(p + 1, '=', n) != NULL;
				nlen += n;
			}
			p = e + 1;
			continue;
		}
		if (!s_plain(*p) && !s_glob(*p))
			return false;
		if (words == 1) {
			glob |= s_glob(*p);
			assign |= *p == '=';
			if (nlen + 1 < sizeof(name))
				name[nlen] = *p;
			nlen++;
		}
		p++;
	}
	return words > 0 && s_name_ok(name, nlen, glob, assign);
}
