/*
 * Which commands run in the serial session's shell without a subshell:
 * plain calls do; anything that could change the shell, or that the
 * shell would expand, split or redirect, does not.
 */
#include "proto/tests/check.h"
#include "transports/serial.h"

#include <stdio.h>
#include <string.h>

int check_failures;

static void s_want(const char *cmd, bool simple)
{
	bool got = serial_cmd_simple(cmd);

	if (got != simple)
		fprintf(stderr, "'%s': %s, want %s\n", cmd, got ? "simple" : "subshell",
			simple ? "simple" : "subshell");
	CHECK(got == simple);
}

static void test_simple(void)
{
	s_want("true", true);
	s_want("uname -r", true);
	s_want("  cat /proc/cmdline  ", true);
	s_want("/opt/suites/bin/a-rather-long-test-program-name --x=1 -v", true);
	s_want("dd if=/dev/zero of=/tmp/x bs=1k count=1", true);
	s_want("echo 'a; b | c > d $HOME `x` \"q\"'", true);
	s_want("echo \"plain words\" x", true);
	s_want("ls /tmp/*.log", true);
	s_want("[ -d /tmp ]", true);
	s_want("sleep 1000", true);
	s_want("labmesh-no-such-command-xyz", true);
}

static void test_subshell(void)
{
	static const char *const cmds[] = {
		"", "   ", "exit 3", "exit", "'exit' 4", "ex''it 5", "e\"xi\"t",
		"cd /", "set -e", "umask 077", "read x", ". ./env.sh", "source x",
		"exec sh", "trap '' INT", "export A=1", "unset PATH", "shift",
		"FOO=1 true", "'A=1'", "x=1", "printf -v x 1", "wait", "ulimit -n 9",
		"alias ls=rm", "eval true", "command cd /", "true; false",
		"true && false", "a | b", "a &", "cat < f", "echo > f", "echo $HOME",
		"echo `id`", "echo $(id)", "echo \"$HOME\"", "echo \"a\\b\"",
		"echo 'unterminated", "echo \"unterminated", "echo a # comment",
		"echo a\\ b", "if true", "while :", "{ true; }", "( true )", "! true",
		"ex*t", "e?it 3", "[a-z]x", "echo !!", "echo {a,b}", "_s", "_e 1",
		"echo 'two\nlines'", "echo a\nexit 1", "echo \xc3\xa9",
	};

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		s_want(cmds[i], false);
}

int main(void)
{
	test_simple();
	test_subshell();
	if (check_failures)
		fprintf(stderr, "%d checks failed\n", check_failures);
	return check_failures ? 1 : 0;
}
