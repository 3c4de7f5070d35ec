#!/bin/sh
# fork-exec: processes created per second with fork+exit+wait and with
# fork+exec+wait of a static binary. Page-table copying, COW, mm teardown
# and ELF loading are all kernel work; shells and build systems live on it.
cd "${LABMESH_DIR:-.}" || exit 1
exec ./forkexec-bench
