#!/usr/bin/env python3
"""The LAN beacon (zbeacon, UDP NODE_BEACON_PORT): off by default, and when
a lab turns it on, two nodes with no seeds find each other through it.

Two network namespaces on one bridge (faultlib.Netns): a LAN of their own,
since zbeacon broadcasts on the first interface that can broadcast and
loopback cannot. A UDP listener in the second namespace, on the beacon
port, counts what arrives:
1. both nodes with the default config (no `beacon:`): nothing for
   QUIET_S, and neither node has a peer;
2. both with `beacon: true`: beacons from the first node's address reach
   the listener (so phase 1's listener could have heard them), and each
   node lists the other as up within FIND_S."""
import json
import subprocess
import sys
import time
import faultlib
from faultlib import check, wait_for

BEACON_PORT = 7709   # NODE_BEACON_PORT, node/net/node_int.h
BEACON_MAGIC = b'LMB1'
QUIET_S = 5
FIND_S = 15
PORT = 17130

LISTENER = r'''
import json, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
s.bind(('0.0.0.0', int(sys.argv[1])))
s.settimeout(0.2)
end = time.time() + float(sys.argv[2])
got = []
print('ready', flush=True)
while time.time() < end:
    try:
        d, a = s.recvfrom(2048)
    except socket.timeout:
        continue
    got.append([a[0], d[:4].hex(), len(d)])
print(json.dumps(got), flush=True)
'''


def listen(ns, seconds):
    """Start the UDP listener in ns; returns the running process."""
    p = subprocess.Popen(['ip', 'netns', 'exec', ns, sys.executable, '-c',
                          LISTENER, str(BEACON_PORT), str(seconds)],
                         stdout=subprocess.PIPE, text=True)
    check(p.stdout.readline().strip() == 'ready', 'UDP listener up in %s'
          % ns)
    return p


def heard(p):
    out, _ = p.communicate(timeout=60)
    return json.loads(out.strip().splitlines()[-1])


def up_peers(n):
    return [p['id'] for p in n.json('peers') if p['state'] == 'up']


def test(net):
    ns = faultlib.Netns('bcn', 2)
    ns.setup()
    try:
        # broadcast addresses on the LAN: zbeacon sends to them
        for i, name in enumerate(ns.names):
            ns._ip('addr', 'del', ns.addr(i) + '/24', 'dev', 'eth0', ns=name)
            ns._ip('addr', 'add', ns.addr(i) + '/24', 'brd', '+', 'dev',
                   'eth0', ns=name)
        a = net.node('bcn-a', PORT, host=ns.addr(0), netns=ns.names[0])
        b = net.node('bcn-b', PORT, host=ns.addr(1), netns=ns.names[1])
        # 1. default config: no beacon
        a.start()
        b.start()
        lis = listen(ns.names[1], QUIET_S)
        got = heard(lis)
        print('default config: %d datagrams on UDP %d in %d s, peers: a %d,'
              ' b %d' % (len(got), BEACON_PORT, QUIET_S, len(up_peers(a)),
                         len(up_peers(b))))
        check(got == [], 'no beacon by default: heard %r' % got[:3])
        check(not up_peers(a) and not up_peers(b),
              'no seeds, no beacon: no peers')
        check('LAN beacon' not in a.tail() + b.tail(),
              'no beacon logged by default')
        a.stop()
        b.stop()
        # 2. beacon: true
        for n in (a, b):
            n.extra = '  beacon: true\n'
        lis = listen(ns.names[1], QUIET_S)
        t0 = time.time()
        a.start()
        b.start()
        _, dt = wait_for('a and b find each other by beacon', lambda:
                         up_peers(a) == [b.id] and up_peers(b) == [a.id],
                         FIND_S, 0.1)
        print('beacon on: each node lists the other as up %.1f s after'
              ' start' % (time.time() - t0))
        got = heard(lis)
        from_a = [g for g in got if g[0] == ns.addr(0) and
                  g[1] == BEACON_MAGIC.hex()]
        print('beacon on: %d datagrams heard in %d s, %d from a (%s), e.g.'
              ' %r' % (len(got), QUIET_S, len(from_a), ns.addr(0),
                       got[:2]))
        check(from_a, 'the listener hears the beacon of a')
        logs = a.tail() + b.tail()
        check('LAN beacon on' in logs and 'beacon hint' in logs,
              'the beacon and the hint are logged')
        print([l for l in logs.splitlines() if 'beacon' in l][:4])
    finally:
        for n in net.nodes:
            n.kill()
        ns.cleanup()


faultlib.main(test)
