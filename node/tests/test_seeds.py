#!/usr/bin/env python3
"""Seeds are knocked on only while they are needed.

A (max_peers 1) seeds from S and B, B from S. Once all three are up, S is
frozen (SIGSTOP): A finds it gone, and with B up it has its max_peers, so
it sends S no hello while S stays silent (each knock on a full seed could
push one of the seed's peers out, and costs the network a hello). Then B
stops too: A, with no peer left, knocks on its seeds again within
seconds, and has S back once S runs again.

usage: test_seeds.py LABMESH
"""
import time
import lmtest
from lmtest import check, wait_for

BASE = 17880
QUIET_S = 20


def hellos(node):
    return node.status()['sent_by_kind']['hello']['msgs']


def up(node, other):
    return any(p['id'] == other.id and p['state'] == 'up'
               for p in node.peers())


def test(net):
    base = net.base(BASE)
    s = net.node('sd-s', base)
    b = net.node('sd-b', base + 1, seeds=[s])
    a = net.node('sd-a', base + 2, seeds=[s, b], max_peers=1)
    for n in (s, b, a):
        n.start()
    wait_for('A has S and B up', lambda: up(a, s) and up(a, b), 60)

    s.pause()
    wait_for('A finds S gone', lambda: not up(a, s), 30, 0.2)
    time.sleep(1)
    before = hellos(a)
    time.sleep(QUIET_S)
    knocks = hellos(a) - before
    print('S frozen, A with B up: %d hellos in %d s' % (knocks, QUIET_S))
    check(up(a, b), 'A kept B')
    check(knocks == 0, 'A, at its max_peers, knocked on its silent seed '
          '%d times in %d s' % (knocks, QUIET_S))

    before = hellos(a)
    b.stop()
    _, dt = wait_for('A, alone, knocks on its seeds',
                     lambda: hellos(a) > before, 30, 0.2)
    print('B stopped: A knocked %.1f s later' % dt)
    s.resume()
    _, dt = wait_for('A has S back', lambda: up(a, s), 60, 0.2)
    print('S resumed: up at A %.1f s later' % dt)
    for n in (a, s):
        check(n.status()['bad_messages'] == 0, '%s: no garbage' % n.name)


lmtest.main(test)
