#!/bin/sh
# syscall-latency: ns per getppid (a real kernel round trip), per 1-byte
# read of /dev/zero, and per clock_gettime (vDSO, no kernel entry).
# System-call entry/exit cost moves with mitigations (PTI, retpolines,
# IBRS), audit and seccomp: it is the most sensitive kernel overhead figure.
cd "${LABMESH_DIR:-.}" || exit 1
exec ./syslat-bench
