#!/bin/sh
# mem-bandwidth: STREAM-like copy/scale/add/triad bandwidth over arrays
# far larger than the caches (scaled to the free memory). Page allocation,
# huge pages, NUMA placement and cache/TLB handling are kernel policy;
# their regressions show as bandwidth loss.
cd "${LABMESH_DIR:-.}" || exit 1
exec ./membw-bench
