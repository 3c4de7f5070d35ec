#!/usr/bin/env python3
"""A pull leaves a peer behind on its reading: each record comes once.

A node (target) and a relay seeded with it. An author (`adversary
lagging-author`) peers with both, writes RECORDS records of its own
feed and claims them to both. It serves the relay at once; the target's
messages it reads LAG_MS after they came, and it answers the target's
want with one record every TRICKLE_MS. The target asks the author first
(its word on its own feed comes first), finds it too slow, and leaves
it for the relay: it tells the author to stop and pings it. The author
reads that stop LAG_MS late, and sends records of the range meanwhile.

Had the target asked the relay at once, the relay would send those
records too. The target waits for the author's pong instead (it shows
the stop was read, and a link keeps order), then asks the relay for the
rest. So:

- the author sent records with the stop unread (the case is met);
- the target handed the pull over, and its pong ended the handover;
- the target holds the whole feed, and received no record twice;
- `labmesh store check` passes on both nodes.

Run RUNS times: the timing of one run decides what is in flight.
"""
import subprocess
import time

import lmtest
from lmtest import check, wait_for

RECORDS = 400
LAG_MS = 1500       # the author reads the target's messages this late
TRICKLE_MS = 400    # one record this often: below the rate a pull is due
BOUND_S = 40        # the trickle's verdict, the handover, the relay's pull
RUN_S = 60
LATE_S = 2 * LAG_MS / 1000
RUNS = 2


def dups(st):
    return st['duplicates_pulled'] + st['duplicates_other']


def one_run(net, base, k):
    t = net.node('target%d' % k, base)
    r = net.node('relay%d' % k, base + 1, seeds=[t])
    t.start()
    r.start()
    wait_for('relay and target in session', lambda: t.peers_up() >= 1, 20)
    before = t.status()
    adv = subprocess.Popen([net.tools[0], 'lagging-author', t.endpoint, t.id,
                            str(base + 4), str(RUN_S), r.id, r.endpoint,
                            str(RECORDS), str(LAG_MS), str(TRICKLE_MS)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
    try:
        def author():
            """The author's id once the target knows of its feed."""
            for a, f in list(t.feeds().items()) + list(r.feeds().items()):
                if a not in (t.id, r.id) and f['seq'] >= 1:
                    return a
            return None
        a, _ = wait_for('a node holds a record of the author', author, 20)
        _, dt = wait_for('the target holds the author\'s feed',
                         lambda: t.seq(a) >= RECORDS, BOUND_S, 0.2)
        print('run %d: target holds %d records of %.12s after %.1f s' % (
            k, RECORDS, a, dt))
        time.sleep(LATE_S)  # what would come twice has come by then
    finally:
        adv.terminate()
        out = adv.communicate(timeout=20)[0]
        print(out.strip())
    st = t.status()
    check('lagging-author:' in out, 'the author ran: %s' % out)
    stopped = int(out.split(' with a stop unread')[0].split('(')[-1])
    wants = int(out.split('the node ')[1].split()[0])
    got = {k2: st[k2] - before[k2] for k2 in (
        'handovers', 'handovers_read', 'handovers_timed', 'pulls_stalled',
        'records_received', 'records_from_peers', 'duplicates_pulled',
        'duplicates_other')}
    print('run %d: %s' % (k, got))
    check(dups(st) - dups(before) == 0,
          'no record came twice (%d duplicates)' % (dups(st) - dups(before)))
    check(got['records_received'] == got['records_from_peers'],
          'every record received was new (%d received, %d new)' % (
              got['records_received'], got['records_from_peers']))
    check(got['handovers'] >= 1 and got['handovers_read'] >= 1,
          'the target handed the pull over and the pong ended it (%s)' % got)
    check(wants >= 1, 'the target asked the author first (%d wants)' % wants)
    check(stopped >= 1, 'the author sent records with the stop unread'
          ' (%d): the case is met' % stopped)
    for n in (t, r):
        n.stop()
        p = n.cli('store', 'check', check_rc=False, timeout=120)
        check(p.returncode == 0, 'store check %s: %s' % (n.name, p.stdout))


def test(net):
    for k in range(RUNS):
        one_run(net, net.base(17800 + 10 * k), k)


lmtest.main(test)
