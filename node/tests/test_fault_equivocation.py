#!/usr/bin/env python3
"""Equivocation evidence travels. Honest nodes in a line J - M - F (peer
tables kept small so the line holds); a lying peer signs two different
records at seq 1 and sends both to J only. J flags it (both records kept,
`labmesh peers` shows it as text and JSON); the evidence pair reaches M
and F, two hops away, which flag the author too; a node L that joins F
later learns it on connect. Other feeds are unaffected: records J and M
write afterwards reach F and L in full, and every store passes `labmesh
store check`."""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from faultlib import check, main, port_block, store_check, \
    wait_for  # noqa: E402

HOSTILE = None


def flagged(n, liar):
    return n.feeds().get(liar, {}).get('flagged')


def test(net):
    base = port_block(19760)
    j = net.node('eq-j', base, max_peers=2)
    m = net.node('eq-m', base + 1, seeds=[j], max_peers=2)
    f = net.node('eq-f', base + 2, seeds=[m], max_peers=1)
    # a node admits peers that dial it beyond its own max_peers: F's trust
    # list keeps J (which learns of F from M) out, so the line stays a line
    f.extra = '  trust: [%s]\n' % m.id
    for n in (j, m, f):
        n.start()
    try:
        wait_for('the line is up', lambda: j.peers_up() == 1 and
                 m.peers_up() == 2 and f.peers_up() == 1, 30, 0.1)
    except Exception:
        print([(n.name, n.peers()) for n in (j, m, f)])
        raise
    check(not any(p['id'] == f.id and p['state'] == 'up'
                  for p in j.peers()), 'J is not connected to F')
    p = subprocess.run([HOSTILE, 'equivocate', j.endpoint, j.id],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode == 0, 'the lying peer ran: %s' % p.stderr)
    liar = p.stdout.strip()
    t0 = time.time()
    wait_for('J flags the liar', lambda: flagged(j, liar), 10, 0.1)
    t_j = time.time() - t0
    _, t_f = wait_for('F, two hops away, flags the liar',
                      lambda: flagged(f, liar) and flagged(m, liar), 20)
    print('liar %s flagged by J in %.2f s; by M and F (two hops) %.2f s'
          ' after that' % (liar[:12], t_j, t_f))
    row = [q for q in j.peers() if q['id'] == liar]
    check(row and row[0]['equivocation'], 'peers --json flags the liar')
    text = [ln for ln in j.cli('peers').stdout.splitlines()
            if ln.startswith(liar[:12])]
    check(text and 'EQUIVOCATION' in text[0], 'peers (text) flags the liar')
    print('J peers:', text[0])
    for n in (j, m, f):
        ev = n.status()['evidence']
        check(ev >= 1, '%s keeps evidence' % n.name)
        check(n.seq(liar) <= 1, '%s took nothing past the fork' % n.name)
        check(any('equivocated' in ln for ln in n.logtext().splitlines()),
              '%s logs the equivocation' % n.name)
    print('evidence rows: J %d, M %d, F %d' % tuple(
        n.status()['evidence'] for n in (j, m, f)))

    f.stop()  # room in F's table for a newcomer
    f.max_peers = 2
    f.extra = ''  # and an open door
    f.start()
    late = net.node('eq-l', base + 3, seeds=[f], max_peers=1)
    late.start()
    _, t_l = wait_for('a node joining later learns it',
                      lambda: flagged(late, liar), 30, 0.1)
    print('a node joining F later flagged the liar %.2f s after start' % t_l)

    j.cli('debug', 'append-records', '300')
    m.cli('debug', 'append-records', '300')
    nodes = (j, m, f, late)
    wait_for('other feeds replicate in full', lambda: all(
        n.seq(j.id) == j.seq(j.id) and n.seq(m.id) == m.seq(m.id)
        for n in nodes), 60, 0.5)
    print('other feeds unaffected: J at %d, M at %d on all four' % (
        j.seq(j.id), m.seq(m.id)))
    for n in nodes:
        n.stop()
    counts = [store_check(net, n) for n in nodes]
    print('records checked: %s; store check ok on all' % counts)


HOSTILE = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
main(test)
