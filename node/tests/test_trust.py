#!/usr/bin/env python3
"""A plaintext (non-CURVE) connection gets nothing; a node key not on a
closed trust list is refused and logged, a listed one is accepted.

The plaintext client speaks real ZMTP (the NULL mechanism) and sends the
well-formed hello an honest node sends, signed with a key on the trust
list; the same hello from the same key over CURVE gets an answer, so the
silence over plaintext is the node refusing plaintext, not a hello it
could not read.

A refusal names the peer by the hex node id the trust list takes, exactly
as `labmesh id` prints it, once the closed node knows that id (here: the
refused node's feed reached it through the trusted peer); a node it never
heard of is named by its CURVE key and said to be unknown."""
import os
import subprocess
import time
import lmtest
from lmtest import check, wait_for

BASE = 17300


def test(net):
    base = net.base(BASE)
    hostile = net.tools[0]
    x = net.node('trusted', base + 1)
    # a node key on the trust list that no node uses: the hello client's
    hk_home = os.path.join(net.dir, 'hello-client')
    os.makedirs(hk_home, mode=0o700)
    hk = type('Key', (), {'id': net.run('--home', hk_home,
                                        'id').stdout.strip()})
    t = net.node('closed', base, trust=[x, hk])
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
    check('not on the trust list' in line and 'not known here' in line and
          'CURVE key' in line and y.id not in line,
          'a never seen node is named by its CURVE key, said unknown')
    p = subprocess.run([hostile, 'plain', t.endpoint], capture_output=True,
                       text=True, timeout=30)
    print(p.stdout.strip())
    check(p.returncode == 0, 'plaintext client got nothing')

    def hello(mode, port):
        p = subprocess.run([hostile, 'hello', t.endpoint, t.id,
                            os.path.join(hk_home, 'node.key'), str(port),
                            mode], capture_output=True, text=True,
                           timeout=30)
        print(p.stdout.strip(), p.stderr.strip())
        check(p.returncode == 0, 'hostile hello %s ran' % mode)
        return int(p.stdout.split(':')[1].split()[0])

    def hk_peer():
        return [p for p in t.peers() if p['id'] == hk.id]
    # the honest hello over plaintext: no answer, no peer
    n = hello('plain', base + 3)
    check(n == 0, 'the plaintext hello got no answer (got %d)' % n)
    check(not hk_peer(), 'the plaintext client is not a peer')
    check(all(b['lab'] != 'hostile' for b in t.boards_json()),
          'nothing of the plaintext client stored')
    # the same hello, same key, over CURVE: answered, a peer
    n = hello('curve', base + 4)
    check(n > 0, 'the same hello over CURVE was answered')
    check(hk_peer(), 'the CURVE client became a peer')
    print('the closed node lists the CURVE client as %r'
          % [(p['lab'], p['state']) for p in hk_peer()])
    check(t.alive(), 'closed node still running')
    check(x_up(), 'trusted peer still up')
    test_named(net, base, t, x)


def test_named(net, base, t, x):
    """A node refused by t but taken by x: its feed reaches t through x,
    and t's refusals then name it by its node id."""
    z = net.node('learned', base + 5, seeds=[t, x])
    z.start()
    wait_for("the refused node's feed reaches the closed node",
             lambda: t.seq(z.id) > 0, 30)

    def named():
        return [l for l in t.logtext().splitlines()
                if 'refused connection' in l and '(node %s)' % z.id in l]
    wait_for('a refusal names the node by its id', named, 40)
    print('logged:', named()[0])
    check('not on the trust list' in named()[0],
          'the line says why: %s' % named()[0])
    check(all(p['id'] != z.id or p['state'] != 'up' for p in t.peers()),
          'the named node is still refused')


lmtest.main(test)
