/*
 * lab_host: the checks of a loaded lab file against this host (the QEMU
 * binaries and serial devices it names exist). The only part of the lab
 * module that looks at the file system beyond reading the file itself.
 */
#include "labs/lab.h"
#include "proto/mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* An executable regular file at path. */
static bool s_exec_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

/* name as a shell would find it: a path as is, a bare name in PATH. */
static bool s_program_found(const char *name)
{
	const char *path = getenv("PATH");
	bool found = false;
	char *copy, *dir, *save = NULL;

	if (strchr(name, '/'))
		return s_exec_file(name);
	if (!path || !path[0])
		path = "/usr/local/bin:/usr/bin:/bin";
	copy = xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *full = xasprintf("%s/%s", dir, name);

		found = s_exec_file(full);
		free(full);
	}
	free(copy);
	return found;
}

static int s_check_board(const lab_config_t *cfg, size_t i, char **ret_err)
{
	const lab_board_t *b = &cfg->boards[i];
	const lab_transport_t *t = &b->transport;
	struct stat st;

	if (b->boot.method == LAB_BOOT_QEMU && b->boot.qemu &&
	    !s_program_found(b->boot.qemu)) {
		*ret_err = xasprintf("%s:%d: boards[%zu].boot.qemu: '%.64s' is "
				     "not installed (no such executable%s)",
				     cfg->path, b->boot.qemu_line, i, b->boot.qemu,
				     strchr(b->boot.qemu, '/') ? "" : " in PATH");
		return -ENOENT;
	}
	if (t->type == LAB_TRANSPORT_SERIAL && t->serial_kind == LAB_SERIAL_TTY &&
	    t->device && stat(t->device, &st) < 0) {
		*ret_err = xasprintf("%s:%d: boards[%zu].transport.device: "
				     "'%.64s': %s", cfg->path, t->device_line, i,
				     t->device, strerror(errno));
		return -ENOENT;
	}
	return 0;
}

int lab_config_check_host(const lab_config_t *cfg, char **ret_err)
{
	for (size_t i = 0; i < cfg->n_boards; i++) {
		int r = s_check_board(cfg, i, ret_err);

		if (r < 0)
			return r;
	}
	return 0;
}
