#!/bin/sh
# timer-latency: how late clock_nanosleep wakes a thread (absolute 1 ms
# deadlines, ~1500 samples): min/avg/p99/max in us and a histogram in
# comments. hrtimers, timer slack, idle states and interrupt handling set
# these numbers; a regression hurts every latency-sensitive workload.
cd "${LABMESH_DIR:-.}" || exit 1
exec ./timerlat-bench
