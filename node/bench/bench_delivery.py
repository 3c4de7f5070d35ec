#!/usr/bin/env python3
"""bench-delivery: what one record costs on the wire when records are
made one at a time, as labs make them (an advert on a board's change, a
job's event).

Real nodes on loopback, in two shapes: three in a line, a - b - c (a
and c trust only b, so every record reaches c through b), and a mesh of
MESH nodes, each seeded with two earlier ones (peer exchange and the
default max_peers do the rest). One node publishes R records, one at a
time (`labmesh debug set-board`: the advert republished, through the
same path as every record the node signs), each once every node holds
the one before. Over those minutes, from each node's `labmesh debug
status` (`sent_by_kind`: messages and payload bytes sent per message
type):

  per delivery  the bytes the replication messages (vector: the
                announcement of new heads, want, records, credit) of all
                the nodes took, per record delivered (a record taken by
                each other node is one delivery each), against the
                record's own bytes: target <= 1.5 x;
  per kind      the same bytes and messages split by type, and the
                other traffic of the window (pings, pongs, peers).

Bytes are message payloads: ZeroMQ/CURVE framing adds about 40 bytes per
message. Prints one JSON object per line (scripts/bench reads them);
progress on stderr.

  bench-delivery [--records 40] [--pace 0.2] [--mesh 8]
  LM_BENCH_KEEP=1 keeps the nodes' homes.
"""
import argparse
import json
import os
import random
import sqlite3
import sys
import time

import lmtest  # copied beside this script by the build

HERE = os.path.dirname(os.path.abspath(__file__))
LABMESH = os.path.join(HERE, 'labmesh')
REPL_KINDS = ('vector', 'want', 'records', 'credit')
TARGET = 1.5


def log(*a):
    print('bench-delivery:', *a, file=sys.stderr, flush=True)


def emit(figure, value, unit, baseline=None, target=None, met=None):
    row = {'figure': figure, 'value': value, 'unit': unit}
    if baseline is not None:
        row['baseline'] = baseline
        row['ratio'] = round(value / baseline, 4) if baseline else None
    if target is not None:
        row['target'] = target
        row['met'] = bool(met)
    print(json.dumps(row), flush=True)


def line(net, _):
    """a - b - c; the publisher first."""
    base = lmtest.port_block(17900)
    b = net.node('lab-b', base + 1)
    a = net.node('lab-a', base, seeds=[b], trust=[b])
    c = net.node('lab-c', base + 2, seeds=[b], trust=[b])
    for n in (b, a, c):
        n.start(level='warn')
    lmtest.wait_for('the line a - b - c', lambda: b.peers_up() == 2 and
                    a.peers_up() == 1 and c.peers_up() == 1, 60, 0.1)
    return [a, b, c]


def mesh(net, size):
    """size nodes, each seeded with two earlier ones; the publisher first
    (the last started: its peers are the newest links)."""
    rng = random.Random(7)
    base = lmtest.port_block(17910, size=size)
    nodes = []
    for i in range(size):
        seeds = rng.sample(nodes, min(2, len(nodes)))
        nodes.append(net.node('lab-%d' % i, base + i, seeds=seeds))
        nodes[-1].start(level='warn')
    lmtest.wait_for('the mesh', lambda: all(n.peers_up() >= 2
                                            for n in nodes), 60, 0.2)
    return nodes[::-1]


def settle(nodes):
    """Wait until every node holds what the others do (the hellos'
    adverts), then a little more for their credits and vectors."""
    def same():
        return len({n.status()['records'] for n in nodes}) == 1
    lmtest.wait_for('the nodes in step', same, 60, 0.1)
    time.sleep(1.0)


def record_size(a, first_seq):
    db = sqlite3.connect('file:%s?mode=ro' % os.path.join(a.home,
                                                          'store.db'),
                         uri=True, timeout=10)
    try:
        row = db.execute('SELECT avg(length(bytes)) FROM records WHERE'
                         ' author = ? AND seq >= ?',
                         (bytes.fromhex(a.id), first_seq)).fetchone()
        return float(row[0] or 0)
    finally:
        db.close()


def publish(nodes, count, pace):
    a = nodes[0]
    first = a.seq(a.id) + 1
    for k in range(count):
        want = first + k
        a.cmd('debug', 'set-board', a.name + '-board',
              'busy' if k % 2 == 0 else 'idle', str(k + 1))
        lmtest.wait_for('record %d everywhere' % want,
                        lambda: all(n.seq(a.id) >= want
                                    for n in nodes[1:]), 60, 0.01)
        time.sleep(pace)
    return first


def measure(shape, size, records, pace):
    net = lmtest.Net(LABMESH)
    try:
        nodes = shape(net, size)
        settle(nodes)
        before = [n.status() for n in nodes]
        first = publish(nodes, records, pace)
        settle(nodes)
        after = [n.status() for n in nodes]
        size = record_size(nodes[0], first)
        net.close()
    except BaseException:
        net.close()
        raise
    finally:
        net.remove(keep=os.environ.get('LM_BENCH_KEEP') == '1')
    return before, after, size


def delta(before, after, kind, what):
    return sum(y['sent_by_kind'][kind][what] - x['sent_by_kind'][kind][what]
               for x, y in zip(before, after))


def report(tag, n_nodes, records, before, after, size):
    delivered = sum(y['records_from_peers'] - x['records_from_peers']
                    for x, y in zip(before, after))
    log('%s: %d deliveries of %d records of %.0f B' % (tag, delivered,
                                                      records, size))
    if delivered < (n_nodes - 1) * records:
        log('%s: fewer deliveries than records x other nodes' % tag)
        return 1
    repl = sum(delta(before, after, k, 'bytes') for k in REPL_KINDS)
    per = repl / delivered
    emit('%s: replication bytes sent per record delivered' % tag,
         round(per, 1), 'B', baseline=round(size, 1),
         target='ratio <= %.1f' % TARGET, met=per <= TARGET * size)
    for k in REPL_KINDS:
        emit('%s: %s per record delivered' % (tag, k),
             round(delta(before, after, k, 'bytes') / delivered, 1), 'B')
        emit('%s: %s messages per record delivered' % (tag, k),
             round(delta(before, after, k, 'msgs') / delivered, 3), 'msgs')
    kinds = after[0]['sent_by_kind'].keys()
    other = sum(delta(before, after, k, 'bytes') for k in kinds
                if k not in REPL_KINDS)
    emit('%s: other traffic of the window (pings, peers...) per record'
         ' delivered' % tag, round(other / delivered, 1), 'B')
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--records', type=int, default=40)
    ap.add_argument('--pace', type=float, default=0.2)
    ap.add_argument('--mesh', type=int, default=8)
    args = ap.parse_args()
    rc = 0
    for tag, shape, size in (
            ('one record at a time, 3 nodes in a line', line, 3),
            ('one record at a time, mesh of %d nodes' % args.mesh, mesh,
             args.mesh)):
        before, after, rsize = measure(shape, size, args.records, args.pace)
        rc |= report(tag, size, args.records, before, after, rsize)
    return rc


if __name__ == '__main__':
    sys.exit(main())
