/*
 * remote: wrapper and kill scripts for board shells (see remote.h).
 */
#include "transports/remote.h"
#include "transports/proc.h"

#include "proto/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

int remote_token(char out[REMOTE_TOKEN_HEX + 1])
{
	unsigned char rnd[REMOTE_TOKEN_HEX / 2];

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return -EIO;
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(out + 2 * i, 3, "%02x", rnd[i]);
	return 0;
}

char *remote_pidfile(const char *dir, const char *deftmp, const char *token)
{
	char *q, *r;

	if (!dir)
		return xasprintf("\"${TMPDIR:-%s}/labmesh-%s.pid\"", deftmp, token);
	r = xasprintf("%s/labmesh-%s.pid", dir, token);
	q = proc_shell_quote(r);
	free(r);
	return q;
}

char *remote_wrap(const char *cmd, const char *pidfile, const char *frame)
{
	char *q = proc_shell_quote(cmd), *r, *tail;
	const char *open = "", *close = "";
	size_t half;

	if (frame) {
		/* a subshell, so that `exit` in cmd still reaches the frame */
		open = "(";
		close = ")";
		/* two halves, so the frame is never in the text we send */
		half = strlen(frame) / 2;
		tail = xasprintf("printf '%%s%%s%%d\\n' '%.*s' '%s' \"$labmesh_rc\"",
				 (int)half, frame, frame + half);
	} else
		tail = xstrdup("exit $labmesh_rc");
	r = xasprintf("{ echo $$ > %s; } 2>/dev/null; %seval %s%s; labmesh_rc=$?; "
		      "{ true > %s; } 2>/dev/null; %s",
		      pidfile, open, q, close, pidfile, tail);
	free(tail);
	free(q);
	return r;
}

char *remote_kill(const char *pidfile)
{
	return xasprintf("p=$(cat %s 2>/dev/null); [ -n \"$p\" ] || exit 0; "
			 "kill -TERM -$p 2>/dev/null; i=0; "
			 "while kill -0 -$p 2>/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done; "
			 "kill -KILL -$p 2>/dev/null; true > %s",
			 pidfile, pidfile);
}
