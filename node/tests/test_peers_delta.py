#!/usr/bin/env python3
"""Peers messages after the first of a session carry what changed.

A, B and C start (B and C seeded with A) and peer with each other. D
joins, then C is killed. Each node's view of each peer's table (its
peers JSON, its_peers: the ids that peer's messages named) must follow
the real tables: D in everywhere once D is up, C out of A's and B's and
D's within its liveness. After the first table of each session the
changes travel as peers-delta messages, smaller than the tables they
update.

usage: test_peers_delta.py LABMESH
"""
import lmtest
from lmtest import check, wait_for

BASE = 18000


def up_ids(node):
    return {p['id'] for p in node.peers()
            if p['state'] == 'up' and p['rtt_ms'] is not None}


def views_match(nodes):
    """Every node's view of each live peer's table is that peer's own
    table of answered peers, less the viewer (a table leaves out the peer
    it goes to)."""
    real = {n.id: up_ids(n) for n in nodes}
    for n in nodes:
        for p in n.peers():
            if p['state'] != 'up' or p['id'] not in real:
                continue
            want = real[p['id']] - {n.id}
            if set(p['its_peers']) != want:
                return False
    return True


def sent(node, kind):
    k = node.status()['sent_by_kind'][kind]
    return k['msgs'], k['bytes']


def test(net):
    base = net.base(BASE)
    a = net.node('pd-a', base)
    b = net.node('pd-b', base + 1, seeds=[a])
    c = net.node('pd-c', base + 2, seeds=[a])
    for n in (a, b, c):
        n.start()
    abc = [a, b, c]
    wait_for('A, B and C peer', lambda: all(len(up_ids(n)) == 2
                                            for n in abc), 60, 0.2)
    _, dt = wait_for('views of A, B, C', lambda: views_match(abc), 20, 0.2)
    print('A, B, C: each view of each table right %.1f s after' % dt)

    before = {n.name: sent(n, 'peers') for n in abc}
    d = net.node('pd-d', base + 3, seeds=[a])
    d.start()
    abcd = abc + [d]
    wait_for('D peers with all', lambda: len(up_ids(d)) == 3, 60, 0.2)
    _, dt = wait_for('views with D', lambda: views_match(abcd), 20, 0.2)
    print('D joined: every view right %.1f s after' % dt)
    for n in abc:
        check(d.id in {i for p in n.peers() for i in p['its_peers']},
              '%s heard of D from no peer' % n.name)
        msgs, _ = sent(n, 'peers')
        # D's session is new: its table goes whole; the others' news of
        # D goes as a delta
        check(msgs - before[n.name][0] <= 1, '%s sent %d whole tables,'
              ' not one (to D)' % (n.name, msgs - before[n.name][0]))
        dm, db = sent(n, 'peers-delta')
        check(dm >= 1, '%s sent no peers-delta' % n.name)

    c.kill()
    abd = [a, b, d]
    wait_for('C gone at A, B, D', lambda: all(c.id not in up_ids(n)
                                              for n in abd), 30, 0.2)
    _, dt = wait_for('views without C', lambda: views_match(abd), 20, 0.2)
    print('C killed: every view right %.1f s after' % dt)
    for n in abd:
        for p in n.peers():
            if p['state'] == 'up':
                check(c.id not in p['its_peers'], '%s still has C in the'
                      ' table of %s' % (n.name, p['lab']))
    tm, tb = sent(a, 'peers')
    dm, db = sent(a, 'peers-delta')
    print('A sent %d tables (%d B), %d deltas (%d B)' % (tm, tb, dm, db))
    check(dm >= 2 and db / dm < tb / tm, 'deltas (%d B in %d) no smaller'
          ' than tables (%d B in %d)' % (db, dm, tb, tm))
    for n in abd:
        check(n.status()['bad_messages'] == 0, '%s: no garbage' % n.name)


lmtest.main(test)
