#!/usr/bin/env python3
"""Records made one at a time in a mesh of 24 nodes (each seeded with two
earlier ones; peer exchange and max_peers make the rest, ~10 peers each,
so most nodes are not the author's peers).
The push tree brings each record; a node announces it to the peers the
tree did not bring it to only as a repair path, and only to about
NODE_LAZY_FANOUT (2) of them at random, not to each: every node holds
every record, and the vector messages (the announcements) per record
delivered stay under 3 (with an announcement to every such peer they
were ~4.5 here). The records go 5 s apart, past the lazy timer, so each
is announced alone."""
import random
import time

import lmtest
from lmtest import check, wait_for

WANT = 17600
SIZE = 24
RECORDS = 6
PACE_S = 5.0
MAX_VECTOR_PER_DELIVERY = 3.0


def kind(status, k, what):
    return status['sent_by_kind'].get(k, {}).get(what, 0)


def test(net):
    rng = random.Random(11)
    base = lmtest.port_block(WANT, size=30)
    nodes = []
    for i in range(SIZE):
        seeds = rng.sample(nodes, min(2, len(nodes)))
        nodes.append(net.node('lazy-%d' % i, base + i, seeds=seeds))
        nodes[-1].start(level='warn')
    wait_for('every node with 2 peers up',
             lambda: all(n.peers_up() >= 2 for n in nodes), 60, 0.2)
    wait_for('the nodes in step',
             lambda: len({n.status()['records'] for n in nodes}) == 1,
             60, 0.1)
    time.sleep(PACE_S)  # the hellos' lazy entries gone out
    a = nodes[-1]
    others = nodes[:-1]
    before = [n.status() for n in nodes]
    first = a.seq(a.id) + 1
    for k in range(RECORDS):
        want = first + k
        a.cmd('debug', 'set-board', a.name + '-board',
              'busy' if k % 2 == 0 else 'idle', str(k + 1))
        wait_for('record %d on every node' % want,
                 lambda: all(n.seq(a.id) >= want for n in others), 30, 0.02)
        time.sleep(PACE_S)
    after = [n.status() for n in nodes]
    delivered = sum(y['records_from_peers'] - x['records_from_peers']
                    for x, y in zip(before, after))
    vectors = sum(kind(y, 'vector', 'msgs') - kind(x, 'vector', 'msgs')
                  for x, y in zip(before, after))
    peers = sum(n.peers_up() for n in nodes) / len(nodes)
    per = vectors / max(1, delivered)
    print('%d records to %d nodes (%.1f peers each): %d deliveries, %d vector'
          ' messages, %.2f per delivery' % (RECORDS, len(others), peers,
                                            delivered, vectors, per))
    check(delivered >= RECORDS * len(others),
          'every record delivered to every node: %d deliveries' % delivered)
    check(per <= MAX_VECTOR_PER_DELIVERY,
          '%.2f vector messages per delivery, at most %.1f' %
          (per, MAX_VECTOR_PER_DELIVERY))


lmtest.main(test)
