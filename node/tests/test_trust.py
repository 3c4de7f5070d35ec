#!/usr/bin/env python3
"""A plaintext (non-CURVE) connection gets nothing; a node key not on a
closed trust list is refused and logged, a listed one is accepted."""
import subprocess
import time
import lmtest
from lmtest import check, wait_for

BASE = 17300


def test(net):
    base = net.base(BASE)
    hostile = net.tools[0]
    x = net.node('trusted', base + 1)
    t = net.node('closed', base, trust=[x])
    x.seeds = [t]
    y = net.node('stranger', base + 2, seeds=[t])
    for n in (t, x, y):
        n.start()

    def x_up():
        return any(p['id'] == x.id and p['state'] == 'up' for p in t.peers())
    wait_for('the trusted node is up on the closed node', x_up, 5)
    wait_for('the refusal is logged',
             lambda: 'not on the trust list' in t.logtext(), 5)
    time.sleep(1.5)
    check(all(p['id'] != y.id for p in t.peers()),
          'the stranger is not a peer of the closed node')
    check(all(p['state'] != 'up' for p in y.peers()),
          'the stranger has no peer up')
    check(all(b['lab'] != 'stranger' for b in t.boards_json()),
          'no stranger boards on the closed node')
    check(all(b['lab'] != 'closed' for b in y.boards_json()),
          'no closed-lab boards on the stranger')
    line = [l for l in t.logtext().splitlines() if 'refused' in l][0]
    print('logged:', line)
    p = subprocess.run([hostile, 'plain', t.endpoint], capture_output=True,
                       text=True, timeout=30)
    print(p.stdout.strip())
    check(p.returncode == 0, 'plaintext client got nothing')
    check(t.alive(), 'closed node still running')
    check(x_up(), 'trusted peer still up')


lmtest.main(test)
