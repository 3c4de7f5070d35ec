#!/bin/sh
# clocks: monotonic never goes back, sleeps never end early and end within
# a bound, REALTIME advances with MONOTONIC, CPU clocks and itimers work.
# Timekeeping regressions (clocksource, hrtimers, vDSO) break everything
# from timeouts to logs. The cases are in the C helper (TAP).
cd "${LABMESH_DIR:-.}" || exit 1
exec ./clocks-test
