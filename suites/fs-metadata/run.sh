#!/bin/sh
# fs-metadata: create, stat, rename, unlink and mkdir+rmdir operations per
# second on up to 5000 names in the scratch dir. The dentry and inode
# caches, directory indexing and journaling set these rates; builds and
# package managers depend on them.
cd "${LABMESH_DIR:-.}" || exit 1
exec ./fsmeta-bench "${LABMESH_TMP:-/tmp}"
