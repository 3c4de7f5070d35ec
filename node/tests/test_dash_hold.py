#!/usr/bin/env python3
"""The dashboard keeps serving while one client holds many half-sent
requests.

One node serves the dashboard (`labmesh node --http 127.0.0.1:PORT`). A
client on 127.0.0.1 opens HOLD connections, sends each the first line of
a request and never the rest, and keeps them open. Meanwhile, from the
same address, an honest GET of / and of /api/status must be answered
(200) within ANSWER_MAX_S each, every time, and the node's control
socket must answer. Then the held connections are let go and the node
stops on SIGTERM within STOP_MAX_S.

usage: test_dash_hold.py LABMESH
"""
import http.client
import signal
import socket
import subprocess
import time

import lmtest
from lmtest import check

ZMQ = 25030
HTTP = 25031
HOLD = 1000
ROUNDS = 5
ANSWER_MAX_S = 2.0
STOP_MAX_S = 2.0


def hold(n):
    """n connections, each with a request line and no end of headers."""
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.settimeout(2)
        try:
            s.connect(('127.0.0.1', HTTP))
            s.sendall(b'GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n')
        except OSError:
            s.close()
            continue
        socks.append(s)
    return socks


def get(path):
    t0 = time.time()
    c = http.client.HTTPConnection('127.0.0.1', HTTP, timeout=10)
    try:
        c.request('GET', path)
        r = c.getresponse()
        body = r.read()
        return r.status, len(body), time.time() - t0
    except (OSError, http.client.HTTPException) as e:
        return repr(e), 0, time.time() - t0
    finally:
        c.close()


def test(net):
    n = net.node('dash', ZMQ)
    n.start(args=['--http', '127.0.0.1:%d' % HTTP])
    st, _, _ = get('/')
    check(st == 200, 'the dashboard answers before: %r' % st)
    held = []
    for r in range(ROUNDS):
        held += hold(HOLD // ROUNDS)
        for path in ('/', '/api/status'):
            st, size, took = get(path)
            check(st == 200 and size > 0 and took <= ANSWER_MAX_S,
                  'round %d, %d connections held: GET %s answered %r'
                  ' (%d bytes) in %.2f s' % (r, len(held), path, st, size,
                                             took))
        t0 = time.time()
        n.status()
        took = time.time() - t0
        check(took <= 1.0, 'control socket answers in %.2f s' % took)
    print('held %d half-sent requests; GETs answered throughout' %
          len(held))
    for s in held:
        s.close()
    t0 = time.time()
    n.proc.send_signal(signal.SIGTERM)
    try:
        rc = n.proc.wait(10)
    except subprocess.TimeoutExpired:
        rc = None
    took = time.time() - t0
    check(rc == 0 and took <= STOP_MAX_S,
          'stops on SIGTERM in %.2f s: %r' % (took, rc))


lmtest.main(test)
