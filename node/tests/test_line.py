#!/usr/bin/env python3
"""Five nodes in a line, each seeded only with its neighbour: within 5 s
node 1 lists node 5's boards and every node's peers shows all the others."""
import time
import lmtest
from lmtest import check, wait_for

BASE = 17100


def test(net):
    base = net.base(BASE)
    nodes = []
    for i in range(5):
        seeds = [nodes[-1]] if nodes else []
        nodes.append(net.node('line%d' % (i + 1), base + i, seeds=seeds))
    t0 = time.time()
    for n in nodes:
        n.start()
    start_s = time.time() - t0

    def has_n5_boards():
        return any(b['lab'] == 'line5' and b['board'] == 'line5-board'
                   for b in nodes[0].boards_json())
    _, t_boards = wait_for('node 1 lists node 5 boards', has_n5_boards, 5)
    print('node 1 lists node 5 boards after %.2f s (starting took %.2f s)'
          % (t_boards, start_s))

    def all_peers():
        for n in nodes:
            up = {p['id'] for p in n.peers() if p['state'] == 'up'}
            want = {m.id for m in nodes if m is not n}
            if up != want:
                return False
        return True
    _, t_peers = wait_for('every node sees the other four', all_peers, 5)
    print('every node has the other 4 as peers after %.2f s more' % t_peers)
    boards = nodes[0].boards_json()
    check(len(boards) == 5, 'node 1 lists 5 boards, got %d' % len(boards))
    for n in nodes:
        text = n.cmd('peers')
        check(len(text.strip().splitlines()) == 5, 'peers table of %s' % n.name)


lmtest.main(test)
