#!/bin/sh
# tcp-throughput: TCP over 127.0.0.1 (port 0) with 128 KiB and 1 KiB
# writes, MB/s at the receiver. Exercises socket buffers, TCP segmentation
# and the copy paths without a NIC; SKIPs when lo is down.
cd "${LABMESH_DIR:-.}" || exit 1
exec ./tcptput-bench
