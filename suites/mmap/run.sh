#!/bin/sh
# mmap: mmap/mprotect/munmap semantics. PROT_NONE and read-only pages must
# fault (caught by a SIGSEGV handler), MAP_SHARED must be visible across
# fork and reach the file, MAP_PRIVATE must copy on write, access past EOF
# must SIGBUS. Memory-management regressions show here first.
cd "${LABMESH_DIR:-.}" || exit 1
exec ./mmap-test "${LABMESH_TMP:-/tmp}"
