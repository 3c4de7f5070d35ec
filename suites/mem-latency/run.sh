#!/bin/sh
# mem-latency: ns per dependent load (pointer chase over a random cyclic
# permutation) at 16 KiB, 256 KiB, 4 MiB and 64 MiB. Page size, THP and
# page-table/TLB handling are kernel choices that set the DRAM figure.
cd "${LABMESH_DIR:-.}" || exit 1
exec ./memlat-bench
