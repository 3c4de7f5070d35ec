#!/bin/sh
# cpu-int: integer CPU throughput (FNV-1a hashing, table CRC-32, qsort),
# time-bounded rounds so it takes ~1.5 s anywhere. Frequency scaling,
# scheduler placement and mitigations (e.g. speculative-execution fixes)
# move these numbers; the C helper also self-checks its results.
cd "${LABMESH_DIR:-.}" || exit 1
exec ./cpuint-bench
