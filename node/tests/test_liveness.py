#!/usr/bin/env python3
"""node.liveness: how long a silent peer keeps its session.

A and B set `liveness: 20s`, C and D keep the default (5 s). Idle, A and
B ping each other after 8 s of silence (2/5 of it), C and D after 2 s:
A and B send fewer pings in the same while. Both pairs' second node is
then frozen (SIGSTOP) for 10 s: C ends D's session, A keeps B's (B last
spoke at most 8 s before). Frozen past 20 s of silence, B's session ends
at A too.

usage: test_liveness.py LABMESH
"""
import time
import lmtest
from lmtest import check, wait_for

BASE = 17900
IDLE_S = 16
LIVE = '  liveness: 20s\n'


def pings(*nodes):
    return sum(n.status()['sent_by_kind']['ping']['msgs'] for n in nodes)


def up(node, other):
    return any(p['id'] == other.id and p['state'] == 'up'
               for p in node.peers())


def test(net):
    base = net.base(BASE)
    a = net.node('lv-a', base, extra=LIVE)
    b = net.node('lv-b', base + 1, seeds=[a], extra=LIVE)
    c = net.node('lv-c', base + 2)
    d = net.node('lv-d', base + 3, seeds=[c])
    for n in (a, b, c, d):
        n.start()
    wait_for('A-B and C-D up', lambda: up(a, b) and up(b, a) and
             up(c, d) and up(d, c), 60)
    time.sleep(3)  # past the first pings and the first records

    ab, cd = pings(a, b), pings(c, d)
    time.sleep(IDLE_S)
    ab, cd = pings(a, b) - ab, pings(c, d) - cd
    print('idle %d s: pings A-B (liveness 20 s) %d, C-D (5 s) %d' %
          (IDLE_S, ab, cd))
    check(ab <= IDLE_S // 8 + 2, 'A-B pinged %d times in %d s, more than'
          ' once per 8 s of silence' % (ab, IDLE_S))
    check(cd > ab, 'C-D (default liveness) pinged no more than A-B')

    b.pause()
    d.pause()
    t0 = time.monotonic()
    wait_for('C ends the session of frozen D', lambda: not up(c, d), 30, 0.2)
    while time.monotonic() - t0 < 10:
        check(up(a, b), 'A ended the session of B, frozen %.1f s of its'
              ' 20 s liveness' % (time.monotonic() - t0))
        time.sleep(1)
    print('frozen 10 s: C ended D, A kept B')
    _, dt = wait_for('A ends the session of B, frozen past 20 s',
                     lambda: not up(a, b), 40, 0.2)
    print('B frozen: gone at A %.1f s after the freeze' %
          (time.monotonic() - t0))
    # B last spoke at most one ping interval (8 s) before the freeze
    check(time.monotonic() - t0 >= 11, 'A ended B before its liveness')
    b.resume()
    d.resume()
    wait_for('A-B and C-D up again', lambda: up(a, b) and up(c, d), 60, 0.2)
    for n in (a, b, c, d):
        check(n.status()['bad_messages'] == 0, '%s: no garbage' % n.name)


lmtest.main(test)
