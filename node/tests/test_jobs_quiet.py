#!/usr/bin/env python3
"""Only accepts travel network-wide: a lab whose boards cannot serve a
request says nothing to the network, unless the request names it.

Four labs on loopback in a line (lab-a - lab-b - lab-c - lab-d), one
local board each, tagged with its lab's letter. From lab-d, a request
for `--tag a`, which only lab-a's board fits: `submit --wait` ends when
that board finished, saying one lab accepted; once every node holds
every feed, each store has exactly one accept record and no decline
record; lab-b keeps why it said nothing, which `status` on its own node
shows (and no other node's does). Then a request naming lab-b's board
(`--board b-board`) with a tag that board lacks: lab-b, named, answers
the submitter with a signed decline, and `submit --wait` prints its
reason and ends (exit 1) without waiting for the labs it did not name."""
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import Net, check, local_board, main, wait_for  # noqa: E402

RECORD_ACCEPT, RECORD_DECLINE = 2, 3


def answers(n):
    """(accept, decline) records in n's store.db (WAL: safe beside it)."""
    db = sqlite3.connect('file:%s?mode=ro' % os.path.join(n.home, 'store.db'),
                         uri=True, timeout=5)
    try:
        return tuple(db.execute('SELECT count(*) FROM records WHERE kind=?',
                                (k,)).fetchone()[0]
                     for k in (RECORD_ACCEPT, RECORD_DECLINE))
    finally:
        db.close()


def in_sync(nodes):
    """Every node holds every feed to the same seq: none is on its way."""
    def same():
        seqs = [{a: f['seq'] for a, f in n.feeds().items()} for n in nodes]
        return seqs[0] if len(seqs[0]) == len(nodes) and all(
            s == seqs[0] for s in seqs) else None
    return wait_for('every feed on every node', same, 60, 0.3)[0]


def lab(st, name):
    return [x for x in (st or {}).get('labs', []) if x['lab'] == name]


def test(net):
    base = net.base(18530)
    nodes = []
    for i, c in enumerate('abcd'):
        n = net.node('lab-' + c, base + i,
                     [local_board('%s-board' % c, tags=(c,))],
                     'policy:\n  submitters: any\n',
                     seeds=nodes[-1:])
        n.start()
        nodes.append(n)
    a, b, d = nodes[0], nodes[1], nodes[3]
    wait_for('every board on lab-d', lambda: len(d.json('boards')) == 4,
             60, 0.2)

    p = d.cli('submit', '--suite', 'smoke', '--tag', 'a', '--wait',
              check_rc=False, timeout=180)
    print(p.stdout, p.stderr)
    req = p.stdout.split()[1]
    check(p.returncode == 0 and 'accepted by 1 lab, on 1 board' in p.stdout,
          'submit --wait: one lab accepted and passed: exit %d'
          % p.returncode)
    check('lab-a: accepted on 1 board(s)' in p.stdout and
          'lab-a/a-board: done: PASS' in p.stdout and
          'lab-b' not in p.stdout and 'lab-c' not in p.stdout,
          'only lab-a answered, and lab-d its own reason: %r' % p.stdout)
    check(lab(d.req_status(req), 'lab-d')[0]['answer'] == 'declined',
          'lab-d\'s status shows why its own lab did not take it')
    in_sync(nodes)
    counts = {n.name: answers(n) for n in nodes}
    print('accept and decline records per node: %s' % counts)
    check(all(c == (1, 0) for c in counts.values()),
          'one accept and no decline on every node: %s' % counts)

    kept = lab(b.req_status(req), 'lab-b')
    check(kept and kept[0]['answer'] == 'declined' and
          'no board matches' in kept[0]['reason'],
          'lab-b\'s own status shows why it said nothing: %r' % kept)
    check(not lab(a.req_status(req), 'lab-b'),
          'lab-b\'s reason reached lab-a: %r' % a.req_status(req))
    print('lab-b kept its reason: %s' % kept[0]['reason'])

    p = d.cli('submit', '--suite', 'smoke', '--board', 'b-board', '--tag',
              'a', '--wait', check_rc=False, timeout=180)
    print(p.stdout, p.stderr)
    check(p.returncode == 1 and
          'lab-b: declined: no-board: no board matches: b-board (no tag a)'
          in p.stdout and 'no lab accepted it' in p.stdout,
          'submit --wait naming b-board prints lab-b\'s reason: %r'
          % p.stdout)
    in_sync(nodes)
    counts = {n.name: answers(n) for n in nodes}
    check(all(c == (1, 1) for c in counts.values()),
          'only the named lab signed a decline: %s' % counts)
    print('named: lab-b declined, its reason shown: %s' % counts)
    return 0


if __name__ == '__main__':
    main(test, Net)
