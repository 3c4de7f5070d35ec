#!/usr/bin/env python3
"""A running node keeps its blobs within the lab's store.blob_budget by
itself, least recently used first, and `labmesh log` marks what it reads.

Node A (budget 5K) holds four 2000-byte logs L0..L3 of four signed runs,
last used 4, 3, 2 and 1 hours ago. `labmesh log` of L0's run (node not yet
running) reads L0 and so marks it used. Started, A evicts L1 and L2 on its
own and says so in its log at info; L0 (read) and L3 stay. B holds a copy
of L1 only. `labmesh log` on A then prints L1 again, fetched from B (whose
copy is marked used by serving it), and for L2, which no node holds, fails
saying so (after the node's fetch wait). The fetched L1 puts A over budget again: A evicts its least
recently used blob (L3) soon after, without being asked. Records stay.

usage: test_results_gc_node.py LABMESH LM_LOGRUN
"""
import os
import subprocess
import time
import lmtest
from lmtest import check, wait_for

BASE = 17300
SIZE = 2000


def blob_path(node, hexid):
    return os.path.join(node.home, 'blobs', hexid[:2], hexid)


def with_budget(node, budget):
    plain = node.config

    def config():
        path = plain()
        with open(path, 'a') as f:
            f.write('store: {blob_budget: %s}\n' % budget)
        return path
    node.config = config


def log_cmd(net, node, run):
    return subprocess.run([net.labmesh, '--home', node.home, 'log', run],
                          capture_output=True, timeout=90)


def test(net):
    tool = net.tools[0]
    base = net.base(BASE)
    a = net.node('gca', base, max_peers=2)
    b = net.node('gcb', base + 1, seeds=[a], max_peers=2)
    with_budget(a, '5K')

    # a bad budget is refused with the field named
    bad = os.path.join(net.dir, 'bad.yaml')
    with open(a.config()) as f:
        text = f.read().replace('blob_budget: 5K', 'blob_budget: 5X')
    with open(bad, 'w') as f:
        f.write(text)
    p = subprocess.run([net.labmesh, 'node', '--home', a.home, '--config',
                        bad], capture_output=True, text=True, timeout=30)
    check(p.returncode != 0 and 'store.blob_budget' in p.stderr,
          'a bad blob_budget is refused: %d %r' % (p.returncode, p.stderr))

    files = []
    for i in range(4):
        path = os.path.join(net.dir, 'L%d.log' % i)
        with open(path, 'w') as f:
            f.write(('log %d: ' % i + 'x' * SIZE)[:SIZE - 1] + '\n')
        files.append(path)
    out = subprocess.run([tool, a.home, '9', 'lab-x', 'board-x'] + files,
                         check=True, capture_output=True, text=True).stdout
    runs, blobs = zip(*(line.split() for line in out.splitlines()))
    check(len(blobs) == 4 and len(set(blobs)) == 4, 'four log blobs')
    now = time.time()
    for i, h in enumerate(blobs):
        t = now - 3600 * (4 - i)
        os.utime(blob_path(a, h), (t, t))
    os.makedirs(os.path.dirname(blob_path(b, blobs[1])), exist_ok=True)
    with open(files[1], 'rb') as src, open(blob_path(b, blobs[1]), 'wb') as d:
        d.write(src.read())
    old = now - 3 * 3600
    os.utime(blob_path(b, blobs[1]), (old, old))

    # reading L0's log marks it used (no node running: read in place)
    p = log_cmd(net, a, runs[0])
    check(p.returncode == 0 and b'log 0: ' in p.stdout,
          'labmesh log of L0: %d %r' % (p.returncode, p.stderr))
    check(os.stat(blob_path(a, blobs[0])).st_mtime > now - 60,
          'labmesh log marked L0 used')

    a.start()
    b.start()
    held = lambda i: os.path.exists(blob_path(a, blobs[i]))
    _, secs = wait_for('A evicts L1 and L2 by itself',
                       lambda: not held(1) and not held(2), 30)
    print('A evicted L1 and L2 %.1f s after start' % secs)
    check(held(0) and held(3), 'A keeps L0 (read) and L3 (newest)')
    logtext = a.logtext()
    for i in (1, 2):
        check('info' in logtext and 'evicted blob %s' % blobs[i] in logtext,
              'A logs the eviction of L%d' % i)
    for i in (0, 3):
        check('evicted blob %s' % blobs[i] not in logtext,
              'A does not log L%d as evicted' % i)
    check(subprocess.run([net.labmesh, '--home', a.home, 'store', 'check'],
                         capture_output=True).returncode == 0,
          'records intact after eviction')

    wait_for('A and B peered', lambda: len(a.peers()) >= 1, 30)

    # L2 is on no node: asked now, answered at the end (the node keeps
    # asking its peers for a while before `labmesh log` gives up)
    t_l2 = time.time()
    l2 = subprocess.Popen([net.labmesh, '--home', a.home, 'log', runs[2]],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    # L1 is on B: fetched again, B's copy marked used by serving it
    p = log_cmd(net, a, runs[1])
    check(p.returncode == 0 and open(files[1], 'rb').read() in p.stdout,
          'labmesh log of L1 fetched from B: %d %r' %
          (p.returncode, p.stderr))
    check(held(1), 'A holds L1 again')
    check(os.stat(blob_path(b, blobs[1])).st_mtime > now - 60,
          'B marked L1 used when serving it')

    # now over budget again (L0, L1, L3): the least recently used goes
    _, secs = wait_for('A evicts L3 after storing L1',
                       lambda: not held(3), 30)
    print('A evicted L3 %.1f s after the fetch' % secs)
    check(held(0) and held(1), 'A keeps L0 and the fetched L1')

    try:
        # every peer answers that it does not hold L2: one round of
        # asking, not the 180 s a command waits for a silent network
        out, err = l2.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        l2.kill()
        l2.communicate()
        raise lmtest.Fail('labmesh log of L2 did not give up within 60 s')
    err = err.decode()
    print('labmesh log of L2 after %.0f s: %s' % (time.time() - t_l2,
                                                 err.strip()))
    check(l2.returncode != 0 and 'no reachable node' in err and
          not out.startswith(b'log 2'),
          'labmesh log of an evicted log no node holds: %d %r' %
          (l2.returncode, err))
    check(not held(2), 'L2 is still not held')


lmtest.main(test)
