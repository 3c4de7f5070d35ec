#!/usr/bin/env python3
"""Requests flood with dedup: a request submitted on node 1 reaches every
node of a line once; a node that was offline gets it on connect through
the exchange of request summaries (the ids of the buckets that differ,
never whole id lists between nodes that take summaries); an expired or
forged request is refused."""
import os
import lmtest
from lmtest import check, wait_for, Fail

BASE = 17600


def ids(node):
    return {r['id'] for r in node.json('debug', 'requests')}


def test(net):
    base = net.base(BASE)
    hostile = net.tools[0]
    n1 = net.node('req1', base, max_peers=1)
    n2 = net.node('req2', base + 1, seeds=[n1], max_peers=2)
    n3 = net.node('req3', base + 2, seeds=[n2], max_peers=1)
    for n in (n1, n2, n3):
        n.start()
    wait_for('line up', lambda: any(p['state'] == 'up' for p in n3.peers()), 5)
    path = os.path.join(net.dir, 'r1.req')
    rid = net_tool(hostile, 'make-request', path, '600000')
    out = n1.cmd('debug', 'submit-raw', path)
    check(out.strip() == 'new', 'first submit is new')
    check(n1.cmd('debug', 'submit-raw', path).strip() == 'known', 'dedup')
    _, dt = wait_for('request at node 3', lambda: rid in ids(n3), 5)
    print('request flooded to node 3 in %.3f s' % dt)
    # an offline node catches up on connect
    n3.stop()
    path2 = os.path.join(net.dir, 'r2.req')
    rid2 = net_tool(hostile, 'make-request', path2, '600000')
    n1.cmd('debug', 'submit-raw', path2)
    wait_for('request 2 at node 2', lambda: rid2 in ids(n2), 5)
    n3.start()
    _, dt = wait_for('offline node gets request 2', lambda: rid2 in ids(n3), 10)
    print('restarted node 3 got the request it missed in %.3f s' % dt)
    check(len(ids(n3)) == 2, 'node 3 holds exactly 2 requests')
    for n in (n2, n3):
        k = n.status()['sent_by_kind']
        print('%s sent: summaries %d (%d B), ids-in %d (%d B), request-ids %d'
              % (n.name, k['request-summary']['msgs'],
                 k['request-summary']['bytes'], k['request-ids-in']['msgs'],
                 k['request-ids-in']['bytes'], k['request-ids']['msgs']))
        check(k['request-summary']['msgs'] >= 1, '%s sent a summary' % n.name)
        check(k['request-ids']['msgs'] == 0, '%s sent no whole id list' % n.name)
    # node 2 named the bucket that differs, with its ids in it
    k2 = n2.status()['sent_by_kind']['request-ids-in']
    check(k2['msgs'] >= 1, 'node 2 answered node 3 with the ids that differ')
    # expired and tampered requests are refused
    path3 = os.path.join(net.dir, 'r3.req')
    net_tool(hostile, 'make-request', path3, '-1')
    refused(n1, path3, 'expired')
    with open(path, 'rb') as f:
        b = bytearray(f.read())
    b[len(b) // 2] ^= 1
    path4 = os.path.join(net.dir, 'r4.req')
    with open(path4, 'wb') as f:
        f.write(b)
    refused(n1, path4, 'tampered')


def refused(node, path, what):
    try:
        node.cmd('debug', 'submit-raw', path)
    except Fail as e:
        print('%s request refused: %s' % (what, e))
        return
    raise Fail('%s request accepted' % what)


def net_tool(prog, *args):
    import subprocess
    p = subprocess.run([prog] + list(args), capture_output=True, text=True,
                       timeout=30)
    if p.returncode != 0:
        raise Fail('%s: %s' % (prog, p.stderr))
    return p.stdout.strip()


lmtest.main(test)
