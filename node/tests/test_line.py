#!/usr/bin/env python3
"""Five nodes in a line, each seeded only with its neighbour: within 5 s of
starting the last node, node 1 lists node 5's boards and every node's peers
shows all the others (one clock for both). Node 1's boards list carries
each lab's configured arch and tags, and the state and queue each node
publishes."""
import time
import lmtest
from lmtest import check, wait_for

BASE = 17100
BOUND_S = 5.0
ARCHES = ['x86_64', 'aarch64', 'riscv64', 'armv7l', 'ppc64le']


def test(net):
    base = net.base(BASE)
    nodes = []
    for i in range(5):
        seeds = [nodes[-1]] if nodes else []
        name = 'line%d' % (i + 1)
        # distinct arch and two tags per lab: a field taken from the wrong
        # board or lab shows
        boards = [{'name': name + '-board', 'arch': ARCHES[i],
                   'tags': ['t-' + name, 'n%d' % (i * 7)]}]
        nodes.append(net.node(name, base + i, seeds=seeds, boards=boards))
    for n in nodes:
        n.start()
    t0 = time.time()  # the last node is up: the one clock starts

    def has_n5_boards():
        return any(b['lab'] == 'line5' and b['board'] == 'line5-board'
                   for b in nodes[0].boards_json())

    def all_peers():
        for n in nodes:
            up = {p['id'] for p in n.peers() if p['state'] == 'up'}
            want = {m.id for m in nodes if m is not n}
            if up != want:
                return False
        return True
    seen = {}
    while len(seen) < 2:
        now = time.time() - t0
        if 'boards' not in seen and has_n5_boards():
            seen['boards'] = now
        if 'peers' not in seen and all_peers():
            seen['peers'] = now
        check(time.time() - t0 <= BOUND_S, 'within %.0f s of the last start:'
              ' %s' % (BOUND_S, ', '.join(
                  '%s after %.2f s' % kv for kv in seen.items()) or
                  'neither boards nor peers'))
        time.sleep(0.05)
    print('after the last node started: node 1 lists node 5 boards at %.2f s,'
          ' all peers up at %.2f s (bound %.0f s for both)'
          % (seen['boards'], seen['peers'], BOUND_S))
    boards = nodes[0].boards_json()
    check(len(boards) == 5, 'node 1 lists 5 boards, got %d' % len(boards))
    for i, n in enumerate(nodes):
        b = [x for x in boards if x['lab'] == n.name]
        check(len(b) == 1, 'one board of %s' % n.name)
        b = b[0]
        want = n.boards[0]
        got = (b['node'], b['board'], b['arch'], b['tags'], b['state'],
               b['queue'])
        exp = (n.id, want['name'], want['arch'], want['tags'], 'idle', 0)
        check(got == exp, 'board of %s: %r, want %r' % (n.name, got, exp))
    for n in nodes:
        text = n.cmd('peers')
        check(len(text.strip().splitlines()) == 5, 'peers table of %s' % n.name)
    # a state and queue other than the defaults, published by node 5,
    # reach node 1 as they were set
    nodes[4].cmd('debug', 'set-board', 'line5-board', 'maintenance', '3')

    def n5_changed():
        b = [x for x in nodes[0].boards_json() if x['lab'] == 'line5'][0]
        return (b['state'], b['queue']) == ('maintenance', 3)
    _, dt = wait_for('node 5 board state and queue on node 1', n5_changed, 5)
    print('node 5 state maintenance, queue 3 on node 1 after %.2f s' % dt)


lmtest.main(test)
