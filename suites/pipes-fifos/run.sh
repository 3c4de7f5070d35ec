#!/bin/sh
# pipes-fifos: anonymous pipes and named FIFOs.
# Pipes carry every shell pipeline; EOF, EPIPE/SIGPIPE, PIPE_BUF atomicity
# and poll readiness are contracts user space depends on. The cases are in
# the C helper (TAP); FIFOs are made in the scratch dir.
cd "${LABMESH_DIR:-.}" || exit 1
exec ./pipes-test "${LABMESH_TMP:-/tmp}"
