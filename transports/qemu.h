/*
 * qemu: the qemu boot method's extras beyond qemu_boot()/qemu_halt()
 * (declared in backend.h), for tests and the node's diagnostics.
 */
#ifndef LABMESH_TRANSPORTS_QEMU_H
#define LABMESH_TRANSPORTS_QEMU_H

#include "transports/transport.h"

#include <sys/types.h>

/* The running QEMU's pid, or -1 when the board's QEMU is not running. */
pid_t qemu_pid(board_t *b);
/* Milliseconds from starting QEMU to the shell answering, last boot. */
long long qemu_boot_ms(board_t *b);

#endif
