#!/bin/sh
# ipc-posix: POSIX message queues (priority order, EAGAIN, ETIMEDOUT),
# named and unnamed process-shared semaphores, and shm_open shared memory.
# Parts SKIP with the reason when the kernel has no mqueue or /dev/shm is
# not a tmpfs. C helper, TAP.
cd "${LABMESH_DIR:-.}" || exit 1
exec ./posixipc-test
