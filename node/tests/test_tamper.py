#!/usr/bin/env python3
"""A record tampered with in transit by a relaying node is rejected at the
next hop: A -> R (flips a byte of every record it serves) -> C."""
import time
import lmtest
from lmtest import check, wait_for

BASE = 17400


def test(net):
    base = net.base(BASE)
    relay_prog = net.tools[1]
    a = net.node('honest', base, max_peers=1)
    r = net.node('liar', base + 1, seeds=[a], max_peers=2)
    c = net.node('victim', base + 2, seeds=[r], max_peers=1)
    a.start()
    r.start(program=relay_prog)
    c.start()
    wait_for('C and R up', lambda: any(p['state'] == 'up'
                                       for p in c.peers()), 5)
    a.cmd('debug', 'append-records', '5')
    wait_for('R holds A feed', lambda: r.feeds().get(a.id, {}).get('seq') == 6,
             10)
    wait_for('C rejects', lambda: 'record rejected' in c.logtext(), 10)
    time.sleep(1)
    check(a.id not in c.feeds(), 'C stored none of A records')
    check(r.id not in c.feeds(), 'C stored none of R records')
    print('C log:', [l for l in c.logtext().splitlines()
                     if 'rejected' in l][0])
    check(c.alive() and r.alive(), 'nodes still up')


lmtest.main(test)
