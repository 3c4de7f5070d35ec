#!/bin/sh
# net-loopback: TCP and UDP over 127.0.0.1 (connect/accept, send/recv,
# half close, refused ports, EADDRINUSE, non-blocking connect, MSG_TRUNC,
# ICMP-driven ECONNREFUSED). Exercises the whole IPv4 stack without any
# network hardware. SKIPs when lo is down. Cases are in the C helper (TAP).
cd "${LABMESH_DIR:-.}" || exit 1
exec ./loopback-test
