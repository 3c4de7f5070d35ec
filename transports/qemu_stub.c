/*
 * Placeholders for the serial transport and the qemu boot method until
 * serial.c and qemu.c land: they let the library link and report plainly
 * that these are not built yet. Delete this file when they arrive.
 */
#include "transports/backend.h"

#include "proto/mem.h"

#include <errno.h>

int qemu_boot(board_t *b, const board_kernel_t *k, char **ret_err)
{
	*ret_err = xstrdup("qemu boot method not built in");
	return -ENOTSUP;
}

void qemu_halt(board_t *b)
{
}
