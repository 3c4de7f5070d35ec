#!/bin/sh
# errno-contract: a sampler of system-call error contracts (ENOENT, EISDIR,
# ENOTDIR, EEXIST, ENOTEMPTY, EBADF, ESRCH, ESPIPE, ELOOP, EACCES, ENOEXEC...).
# Programs branch on errno values; a kernel that returns a different code
# breaks them silently. The cases are in the C helper (TAP).
cd "${LABMESH_DIR:-.}" || exit 1
exec ./errno-test "${LABMESH_TMP:-/tmp}"
