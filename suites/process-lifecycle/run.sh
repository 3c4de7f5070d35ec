#!/bin/sh
# process-lifecycle: fork, exec, wait, exit codes, zombies, orphans.
# The process life cycle is the kernel's oldest contract: exit codes must
# reach the parent intact, zombies must exist until reaped and then vanish,
# orphans must be re-parented. The cases are in the C helper (TAP).
cd "${LABMESH_DIR:-.}" || exit 1
exec ./lifecycle-test
