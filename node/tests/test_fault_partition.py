#!/usr/bin/env python3
"""Partition: five nodes, each in its own network namespace with a veth
into a bridge, are cut in two ({0,1,2} | {3,4}: their bridge ports go to
two bridges, so no packet crosses) for a while (15 s; 90 s with
LM_TEST_LONG=1). During the cut both sides submit requests (run on the
local boards of the labs they reach) and write records. After healing,
every request is answered by all five labs and every store holds the same
records; the time this takes is measured and must stay under BOUND.
Finally each store passes `labmesh store check`."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from faultlib import LONG, Fail, Netns, check, main, \
    stop_and_check_equal, wait_for  # noqa: E402

PORT = 19600
CUT_S = 90 if LONG else 15
BOUND_S = 120  # convergence after healing, the figure this test promises
SIDE_A, SIDE_B = (0, 1, 2), (3, 4)


def answered(node, req, labs):
    st = node.req_status(req)
    got = [lab for lab in (st or {}).get('labs', [])
           if lab['answer'] not in ('', 'waiting')]
    return len(got) == labs and all(b['final'] for lab in got
                                    for b in lab['boards'])


def same_everywhere(nodes):
    ids = [n.record_ids() for n in nodes]
    feeds = [n.feeds() for n in nodes]
    return (all(i == ids[0] for i in ids) and all(f == feeds[0] for f in feeds)
            and all(n.status()['appending'] == 0 for n in nodes) and ids[0])


def test(net):
    ns = Netns('part', 5)
    ns.setup()
    try:
        run(net, ns)
    finally:
        for n in net.nodes:
            n.kill()
        ns.cleanup()


def run(net, ns):
    nodes = []
    for i in range(5):
        nodes.append(net.node('part-%d' % i, PORT, seeds=nodes[:],
                              host=ns.addr(i), netns=ns.names[i]))
    for n in nodes:
        n.start()
    wait_for('full mesh', lambda: all(n.peers_up() == 4 for n in nodes), 60,
             0.5)
    first = nodes[0].submit()
    wait_for('first request everywhere', lambda: all(
        answered(n, first, 5) for n in nodes), 60, 0.5)
    print('five nodes up in namespaces %s..%s, full mesh' % (
        ns.names[0], ns.names[-1]))

    ns.partition(SIDE_B)
    t_cut = time.time()
    wait_for('the cut is felt', lambda: all(
        nodes[i].peers_up() == len(SIDE_A) - 1 for i in SIDE_A) and all(
        nodes[i].peers_up() == len(SIDE_B) - 1 for i in SIDE_B), 60, 0.5)
    print('partition %s | %s felt after %.1f s' % (
        SIDE_A, SIDE_B, time.time() - t_cut))
    reqs_a = [nodes[0].submit(), nodes[2].submit()]
    reqs_b = [nodes[3].submit(), nodes[4].submit()]
    nodes[1].cli('debug', 'append-records', '500')
    nodes[4].cli('debug', 'append-records', '500')
    for side, reqs in ((SIDE_A, reqs_a), (SIDE_B, reqs_b)):
        for r in reqs:
            try:
                wait_for('side %s answers' % (side,), lambda: all(
                    answered(nodes[i], r, len(side)) for i in side), 60, 0.5)
            except Fail:
                print(nodes[side[0]].req_status(r))
                raise
    ha = nodes[0].record_ids()
    hb = nodes[3].record_ids()
    check(ha != hb, 'the sides diverged during the cut')
    left = CUT_S - (time.time() - t_cut)
    if left > 0:
        time.sleep(left)
    print('during the cut: side A %d records, side B %d, %d only on A, %d'
          ' only on B' % (len(ha), len(hb), len(ha - hb), len(hb - ha)))

    ns.heal()
    t_heal = time.time()
    _, t_mesh = wait_for('mesh again', lambda: all(
        n.peers_up() == 4 for n in nodes), BOUND_S, 0.5)
    for r in [first] + reqs_a + reqs_b:
        wait_for('all five labs answer %s' % r[:12], lambda: all(
            answered(n, r, 5) for n in nodes), BOUND_S, 0.5)
    ids, _ = wait_for('stores converge', lambda: same_everywhere(nodes),
                      BOUND_S, 0.5)
    conv = time.time() - t_heal
    check(conv < BOUND_S, 'converged in %.1f s, bound %d s' % (conv, BOUND_S))
    check(ha | hb <= ids, 'records of the cut survive the heal')
    print('after healing: mesh in %.1f s; all 5 stores hold the same %d'
          ' records and all %d requests are answered by 5 labs %.1f s after'
          ' the heal (bound %d s)' % (t_mesh, len(ids), 1 + len(reqs_a) +
                                       len(reqs_b), conv, BOUND_S))
    stop_and_check_equal(net, nodes)


main(test)
