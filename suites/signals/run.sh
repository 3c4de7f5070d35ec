#!/bin/sh
# signals: signal delivery, masking, default actions, RT queueing, altstack.
# Signals are how the kernel talks to every process (SIGCHLD, SIGSEGV,
# SIGTERM at shutdown); a regression breaks shells and init first.
# The cases are in the C helper, which prints TAP.
cd "${LABMESH_DIR:-.}" || exit 1
exec ./signals-test
