#!/usr/bin/env python3
"""An author that serves its feed to one peer and not to another: the
node it does not serve takes the feed from the relay that holds it.

A node (target) and a relay seeded with it. An author (`adversary
mute-author`) peers with both under the key it signs with, writes
RECORDS records of its own feed, claims them to both, serves the relay's
wants and never the target's. The author's word on its own feed comes
first; once it fails to deliver, the target must not wait for it to
speak again (it said its head once): it pulls from the relay, whose
claim it holds. The target holds the whole feed within BOUND_S, while the
author stays in session with it; `labmesh store check` passes.

The same holds for an honest author starved of CPU while a network
forms: it misses the deadline of its first records, and its claim is
dropped.
"""
import subprocess

import lmtest
from lmtest import check, wait_for

RECORDS = 300
BOUND_S = 30   # want timeout (5 s) and a pull from the relay, with margin
RUN_S = 60


def test(net):
    base = net.base(17720)
    t = net.node('target', base)
    r = net.node('relay', base + 1, seeds=[t])
    t.start()
    r.start()
    wait_for('relay and target in session', lambda: t.peers_up() >= 1, 20)
    adv = subprocess.Popen([net.tools[0], 'mute-author', t.endpoint, t.id,
                            str(base + 4), str(RUN_S), r.id, r.endpoint,
                            str(RECORDS)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    try:
        def author():
            """The author's id once the relay holds its whole feed."""
            for a, f in r.feeds().items():
                if a not in (t.id, r.id) and f['seq'] >= RECORDS:
                    return a
            return None
        a, dt = wait_for('the relay holds the author\'s feed', author, 20)
        print('relay holds %d records of %.12s after %.1f s' % (
            RECORDS, a, dt))
        _, dt = wait_for('the target holds the author\'s feed',
                         lambda: t.seq(a) >= RECORDS, BOUND_S, 0.2)
        print('target holds them %.1f s later (bound %d s)' % (dt, BOUND_S))
        st = [p['state'] for p in t.peers() if p['id'] == a]
        print('the author at the target: %s' % st)
        check(st == ['up'], 'the author is in session with the target'
              ' (%s): its word was dropped, not its session' % st)
        check(adv.poll() is None, 'the author is still running')
    finally:
        adv.terminate()
        out = adv.communicate(timeout=20)[0]
        print(out.strip())
    check('none answered' in out, 'the author ran: %s' % out)
    wants = int(out.split('the node ')[1].split()[0])
    check(wants >= 1, 'the target asked the author first (%d wants)' % wants)
    for n in (t, r):
        n.stop()
        p = n.cli('store', 'check', check_rc=False, timeout=120)
        check(p.returncode == 0, 'store check %s: %s' % (n.name, p.stdout))


lmtest.main(test)
