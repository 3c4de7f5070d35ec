#!/usr/bin/env python3
"""The result matrix is the same on every node of a network.

Node A's store is filled beforehand with two labs' feeds of synthetic signed
run records (3 commits x 2 boards each); three real `labmesh node` processes
(A - B - C in a line) replicate them; then `labmesh query` (matrix, text and
JSON), `labmesh compare` and `labmesh export --kcidb` are asked on each
running node and must print byte-identical answers. Each node's index is
built by the query itself from the replicated records, while the node runs.

usage: test_results_network.py LABMESH LM_RESULTS
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
    for n in (a, b, c):
        n.start()
    nodes = {a.id, b.id, c.id}
    feeds = {k: v['seq'] for k, v in a.feeds().items() if k not in nodes}
    check(len(feeds) == 2 and all(s == 6 for s in feeds.values()),
          'A holds two lab feeds of 6 runs: %r' % feeds)

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


lmtest.main(test)
