#!/bin/sh
# iperf3: TCP throughput over loopback with iperf3 (server and client on
# 127.0.0.1, 2 s, one stream, then four parallel streams). Loopback takes
# the NIC out and leaves the TCP/IP stack, socket buffers and the copy
# paths: their regressions show here. Needs iperf3 on the board; ports
# from 24010-24019 (the first free one). Prints metric lines (Mbit/s).

T=${LABMESH_TMP:-/tmp}
SECS=${LABMESH_IPERF_SECONDS:-2}

if [ -r /sys/class/net/lo/flags ] && [ $(( $(cat /sys/class/net/lo/flags) & 1 )) = 0 ]; then
	echo "skip: loopback interface lo is down"
	exit 0
fi

# run STREAMS: one server (-1: exits after one test) and one client
run() {
	port=24010
	while [ $port -le 24019 ]; do
		timeout $((SECS * 3 + 20)) iperf3 -s -1 -B 127.0.0.1 -p $port >"$T/iperf-s.log" 2>&1 &
		srv=$!
		sleep 1
		if kill -0 $srv 2>/dev/null; then
			timeout $((SECS * 3 + 15)) iperf3 -c 127.0.0.1 -p $port -t "$SECS" -P "$1" -f m \
				>"$T/iperf-c.log" 2>&1
			wait $srv
			# the receiver's total: the SUM line with several streams
			if [ "$1" -gt 1 ]; then pat='^\[SUM\].*receiver'; else pat='receiver'; fi
			grep -E "$pat" "$T/iperf-c.log" | tail -n 1 |
				sed -n 's/.* \([0-9][0-9.]*\) Mbits\/sec.*/\1/p'
			return 0
		fi
		wait $srv 2>/dev/null
		port=$((port + 1))
	done
	return 1
}

one=$(run 1)
if [ -n "$one" ]; then echo "tcp_1stream $one Mbit/s"; else echo "# single-stream run failed"; tail -n 3 "$T/iperf-c.log" 2>/dev/null | sed 's/^/# /'; fi
four=$(run 4)
if [ -n "$four" ]; then echo "tcp_4streams $four Mbit/s"; else echo "# four-stream run failed"; fi
rm -f "$T/iperf-s.log" "$T/iperf-c.log"
exit 0
