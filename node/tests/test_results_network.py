#!/usr/bin/env python3
"""The result matrix is the same on every node of a network.

Node A's store is filled beforehand with two labs' feeds of synthetic signed
run records (3 commits x 2 boards each), and a third feed whose second record
is of a kind a newer version would make (then a run after it: an older node
must store and pass on what it cannot read, or that feed stops at it); three
real `labmesh node` processes
(A - B - C in a line) replicate them; then `labmesh query` (matrix, text and
JSON), `labmesh compare` and `labmesh export --kcidb` are asked on each
running node and must print byte-identical answers. Each node's index is
built by the query itself from the replicated records, while the node runs.

usage: test_results_network.py LABMESH LM_RESULTS LM_MKRUNS
"""
import hashlib
import json
import os
import subprocess
import lmtest
from lmtest import check, wait_for

BASE = 17950


def commit(i):
    return hashlib.blake2b(b"commit-%d" % i, digest_size=32).hexdigest()[:40]


C1, C2 = 'c' * 40, 'd' * 40
FUTURE = (
    'run 200 lab-future fb x86_64 t main %s 1000000\n'
    'suite smoke PASS\ncase smoke.a PASS\nend\n'
    'future 200 9 a-newer-kind 1000500\n'
    'run 200 lab-future fb x86_64 t main %s 1001000\n'
    'suite smoke FAIL\ncase smoke.a FAIL\nend\n' % (C1, C2))


def ask(net, node, *args, rc=0):
    p = subprocess.run([net.labmesh, '--home', node.home, *args],
                       capture_output=True, timeout=60)
    check(p.returncode == rc, 'labmesh %s on %s: exit %d %s' %
          (args[0], node.name, p.returncode, p.stderr.decode()[:300]))
    return p.stdout


def test(net):
    tool = net.tools[0]
    a = net.node('resa', BASE, max_peers=2)
    b = net.node('resb', BASE + 1, seeds=[a], max_peers=2)
    c = net.node('resc', BASE + 2, seeds=[b], max_peers=2)
    subprocess.run([tool, 'synth', '--home', a.home, '--no-index'],
                   check=True, capture_output=True)
    ids = subprocess.run([net.tools[1], a.home], input=FUTURE, check=True,
                         capture_output=True, text=True).stdout.split()
    check(len(ids) == 3, 'a run, a future record and a run laid out: %r' %
          ids)
    for n in (a, b, c):
        n.start()
    nodes = {a.id, b.id, c.id}
    feeds = {k: v['seq'] for k, v in a.feeds().items() if k not in nodes}
    check(len(feeds) == 3 and sorted(feeds.values()) == [3, 6, 6],
          'A holds two lab feeds of 6 runs and one of 3 records: %r' % feeds)

    def has_all(n):
        got = n.feeds()
        return all(got.get(k, {}).get('seq') == s for k, s in feeds.items())
    for n in (b, c):
        wait_for('%s has every run record' % n.name, lambda: has_all(n), 60)
    answers = {}
    for n in (a, b, c):
        answers[n.name] = (
            ask(net, n, 'query', '--commit', commit(0)),
            ask(net, n, 'query', '--commit', commit(2)[:10], '--json'),
            ask(net, n, 'compare', commit(0), commit(1), '--json', rc=1),
            ask(net, n, 'export', '--kcidb', '--origin', 'net'),
        )
    m = answers['resa'][0].decode()
    print(m)
    check('board-0-0' in m and 'lab-b' in m, 'matrix shows boards and labs')
    check(json.loads(answers['resc'][1])['boards'], 'JSON matrix on C')
    for name in ('resb', 'resc'):
        for i, what in enumerate(('matrix', 'matrix json', 'compare',
                                  'kcidb')):
            check(answers[name][i] == answers['resa'][i],
                  '%s on %s is byte-identical to A' % (what, name))
    for n in (a, b, c):
        out = ask(net, n, 'store', 'check')
        check(out.endswith(b'store ok\n'), 'store check on %s' % n.name)
    # the run after the record C cannot read is C's as well
    runs = json.loads(ask(net, c, 'query', '--list', '--json', '--lab',
                          'lab-future'))
    got = {x['run'] for x in runs['cases']}
    check(got == {ids[0], ids[2]},
          'C lists both runs of the feed with a future record: %r' % got)


lmtest.main(test)
