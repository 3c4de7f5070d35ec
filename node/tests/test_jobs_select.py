#!/usr/bin/env python3
"""Which boards a request runs on, and in what order, on one lab with
three local boards (boot none). `--tag` picks only the tagged board;
`--max-per-lab 2` runs on two of three matching boards; with the board
busy, a high-priority request queued after a low-priority one runs
first; a request that expires while it waits for a busy board never
runs and ends in error saying so; a request without a kernel records the
kernel the board runs (`uname -r` here) in its run record and in
the KCIDB export. A one-case suite `hold` (in a suite directory of the
test, next to a link to smoke) keeps a board busy for a few seconds."""
import json
import os
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import (Net, check, local_board, main, wait_for,  # noqa: E402
                      write_suite)

HOLD_S = 8
HOLD_SH = '#!/bin/sh\necho "1..1"\nsleep %d\necho "ok 1 - held"\n' % HOLD_S
HOLD_YAML = ('name: hold\nversion: 1\nkind: functional\n'
             'description: keeps the board busy\ntimeout: 60\nparser: tap\n')


def suites_dir(root, d):
    write_suite(d, 'hold', HOLD_YAML, HOLD_SH)
    os.symlink(os.path.join(root, 'suites', 'smoke'),
               os.path.join(d, 'smoke'))
    return d


def boards(n, req):
    st = n.req_status(req) or {}
    return {b['board']: b for lab in st.get('labs', [])
            for b in lab['boards']}


def final(n, req, count=1, timeout=120):
    return wait_for('%s final' % req[:12], lambda: (
        lambda bs: bs if len(bs) >= count and all(
            b['final'] for b in bs.values()) else None)(boards(n, req)),
        timeout, 0.1)[0]


def answered(n, req):
    def ans():
        st = n.req_status(req) or {}
        labs = [x for x in st.get('labs', []) if x['answer'] != 'waiting']
        return labs[0] if labs else None
    return wait_for('an answer to %s' % req[:12], ans, 30, 0.2)[0]


def submit(n, *args):
    return n.cli('submit', *args).stdout.split()[1]


def test(net):
    try:
        net.env['LABMESH_SUITES'] = suites_dir(
            net.root, os.path.join(net.dir, 'suites'))
        n = net.node('lab-sel', 17201, [
            local_board('host-1', ('local', 'special')),
            local_board('host-2'), local_board('host-3')]).start()

        # --tag: only the tagged board
        r = submit(n, '--suite', 'smoke', '--tag', 'special')
        bs = final(n, r)
        check(sorted(bs) == ['host-1'], '--tag special ran on %s' % sorted(bs))
        check(bs['host-1']['status'] == 'PASS', 'tagged run: %s' % bs)
        print('--tag: ran on %s' % sorted(bs))

        # --max-per-lab 2: two of the three matching boards
        r = submit(n, '--suite', 'smoke', '--max-per-lab', '2')
        lab = answered(n, r)
        check(lab['answer'] == 'accepted', 'max-per-lab: %s' % lab)
        bs = final(n, r, 2)
        time.sleep(1)  # a third board would have shown by now
        bs = boards(n, r)
        check(len(bs) == 2, '--max-per-lab 2 ran on %s' % sorted(bs))
        print('--max-per-lab 2: ran on %s' % sorted(bs))

        # the no-kernel form records the kernel the board runs
        release = os.uname().release
        r = submit(n, '--suite', 'smoke', '--board', 'host-3')
        bs = final(n, r)
        run = bs['host-3']['run']
        check(run and bs['host-3']['status'] == 'PASS', 'run: %s' % bs)
        export = json.loads(n.cli('export', '--kcidb', '--request',
                                  r).stdout)
        names = [x.get('git_commit_name') for x in export['checkouts']]
        check(names == [release], 'export: the checkout names %s, not the'
              ' running kernel %s' % (names, release))
        db = sqlite3.connect(os.path.join(n.home, 'store.db'))
        rec = db.execute('SELECT describe FROM res_runs WHERE hex(request)'
                         ' = upper(?)', (r,)).fetchall()
        db.close()
        check(rec == [(release,)], 'run record: %s' % rec)
        print('no kernel: the run record and export name %s' % release)

        # priority: host-2 busy; a low then a high request queue behind
        busy = submit(n, '--suite', 'hold', '--board', 'host-2')
        wait_for('host-2 busy', lambda: (boards(n, busy).get('host-2') or
                                         {}).get('state') == 'running', 30,
                 0.05)
        low = submit(n, '--suite', 'smoke', '--board', 'host-2',
                     '--priority', '10')
        high = submit(n, '--suite', 'smoke', '--board', 'host-2',
                      '--priority', '90')
        answered(n, low)
        answered(n, high)
        # expiry: queued behind the hold, expires before the board is free
        # (the first to be picked when the board frees: the highest
        # priority)
        late = submit(n, '--suite', 'smoke', '--board', 'host-2',
                      '--expires', '3s', '--priority', '95')
        answered(n, late)
        order = []

        def progress():
            for name, req in (('high', high), ('low', low)):
                b = boards(n, req).get('host-2') or {}
                if b.get('state') not in (None, 'queued') and \
                        name not in order:
                    order.append(name)
            return len(order) == 2
        wait_for('both prioritised requests start', progress, 120, 0.02)
        check(order == ['high', 'low'], 'priority order: %s' % order)
        final(n, high)
        final(n, low)
        print('priority: %s' % ' before '.join(order))
        # (the request itself leaves the store when it expires; the
        # lab's events about it stay)
        b = final(n, late, timeout=60)['host-2']
        check(b['state'] == 'error' and 'expired' in b['text'] and
              not b['run'], 'a request expired in the queue: %s' % b)
        hist = n.cli('status', late).stdout
        check('expired before a board was free' in hist,
              'status does not say why: %s' % hist)
        print('expired in the queue: %s: %s' % (b['state'], b['text']))
        print('selection OK')
    finally:
        net.close()
    return 0


if __name__ == '__main__':
    main(test, Net)
