/*
 * libFuzzer harness for serial_cmd_simple: any string, no crash, and the
 * answer is consistent: a command with a newline anywhere, or with an
 * operator, redirection or expansion character outside quotes, never
 * runs without a subshell; leading blanks and one more plain word do not
 * change the answer.
 */
#include "transports/serial.h"

#include "proto/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_CMD 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A byte outside any quotes that the shell would act on. */
static bool s_unquoted_special(const char *s)
{
	char quote = 0;

	for (; *s; s++) {
		if (quote) {
			quote = *s == quote ? 0 : quote;
			continue;
		}
		if (*s == '\'' || *s == '"')
			quote = *s;
		else if (strchr(";&|<>()$`\\#!{}\n", *s))
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *cmd, *more;
	bool simple;

	if (size > FUZZ_MAX_CMD)
		return 0;
	cmd = xmalloc(size + 1);
	memcpy(cmd, data, size);
	cmd[size] = '\0';
	simple = serial_cmd_simple(cmd);
	if (simple && (strchr(cmd, '\n') || s_unquoted_special(cmd)))
		abort();
	more = xasprintf("  %s", cmd);
	if (serial_cmd_simple(more) != simple)
		abort();
	free(more);
	more = xasprintf("%s x", cmd);
	if (simple && !serial_cmd_simple(more))
		abort();
	free(more);
	free(cmd);
	return 0;
}
