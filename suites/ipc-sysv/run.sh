#!/bin/sh
# ipc-sysv: System V message queues (type selection, ENOMSG, IPC_RMID),
# semaphores (SETVAL/GETVAL, EAGAIN, SEM_UNDO on exit) and shared memory
# (attach, sharing across fork, nattch). Databases and legacy daemons still
# use these; SKIPs on kernels without CONFIG_SYSVIPC. C helper, TAP.
cd "${LABMESH_DIR:-.}" || exit 1
exec ./sysv-test
