#!/bin/sh
# file-io: sequential write (including fsync) and read-back (page cache
# dropped for the file, data verified) throughput of a file under the
# scratch dir. Writeback, the block layer, I/O schedulers and filesystem
# allocation are kernel code; their regressions show as MB/s.
cd "${LABMESH_DIR:-.}" || exit 1
exec ./fileio-bench "${LABMESH_TMP:-/tmp}"
