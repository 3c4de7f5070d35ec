#!/bin/sh
# context-switch: one byte ping-ponged over pipes between two processes;
# us per switch pinned to one CPU and unpinned. Scheduler wake-up paths,
# the cost of switching address spaces (PCID, KPTI) and IPIs between
# CPUs all show up here.
cd "${LABMESH_DIR:-.}" || exit 1
exec ./ctxsw-bench
