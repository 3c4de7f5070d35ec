#!/usr/bin/env python3
"""A lab that accepts and then goes silent. Two labs, each with a local
board running a suite that naps 20 s; lab-b is SIGSTOPped as soon as it
has accepted. `submit --wait --silence 30s` ends when lab-a is done and
lab-b has said nothing for 30 s, naming lab-b, well before its timeout;
`status` then shows lab-b's job stale once its last word is older than
three minutes (a running job speaks every minute), while lab-a's, done,
is not. Resumed, lab-b finishes the job and it is no longer stale."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import (Net, check, local_board, main, wait_for,  # noqa: E402
                      write_suite)

NAP_YAML = ('name: nap\nversion: 1\nkind: functional\n'
            'description: naps, then passes\ntimeout: 300\nparser: tap\n')
NAP_SH = '#!/bin/sh\necho "1..1"\nsleep 20\necho "ok 1 - napped"\n'


def lab_view(n, req, name):
    st = n.req_status(req) or {}
    for lab in st.get('labs', []):
        if lab['lab'] == name:
            return lab
    return None


def test(net):
    net.env['LABMESH_SUITES'] = write_suite(os.path.join(net.dir, 'suites'),
                                            'nap', NAP_YAML, NAP_SH)
    a = net.node('lab-a', net.base(18480), [local_board('host-a')]).start()
    b = net.node('lab-b', a.port + 1, [local_board('host-b')],
                 seeds=[a]).start()
    wait_for('peers', lambda: a.peers_up() == 1 and b.peers_up() == 1, 60,
             0.2)
    wait_for('both adverts', lambda: len(a.boards_json()) == 2, 60, 0.2)
    t0 = time.time()
    import subprocess
    p = subprocess.Popen([net.labmesh, '--home', a.home, 'submit', '--suite',
                          'nap', '--wait', '--silence', '30s', '--timeout',
                          '30m'], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=net.env)
    req = wait_for('the request id', lambda: [
        r['id'] for r in a.json('debug', 'requests')] or None, 30, 0.1)[0][0]
    wait_for('lab-b accepted', lambda: (lambda v: v and v['answer'] ==
                                        'accepted')(lab_view(a, req, 'lab-b')),
             60, 0.1)
    b.pause()
    stopped = time.time()
    out, err = p.communicate(timeout=600)
    took = time.time() - stopped
    print(out[-1500:])
    print(err)
    check('lab-b' in err and 'stopped waiting' in err and 'lab-a' not in
          err.split('stopped waiting')[1],
          '--wait does not name lab-b alone: %r' % err)
    check(30 <= took + 1 and took < 30 + 45,
          '--wait ended %.0f s after lab-b stopped (silence 30 s)' % took)
    check(p.returncode != 0, '--wait passed without lab-b\'s result')
    va = lab_view(a, req, 'lab-a')
    check(va and all(x['final'] and not x['stale'] for x in va['boards']),
          'lab-a: %s' % va)
    print('--wait: ended %.0f s after lab-b stopped, naming it (%.0f s in'
          ' all)' % (took, time.time() - t0))
    vb, waited = wait_for('lab-b stale', lambda: (
        lambda v: v if v and v['boards'] and v['boards'][0]['stale']
        else None)(lab_view(a, req, 'lab-b')), 400, 2)
    table = a.cmd('status', req)
    print(table)
    check('stale' in table, 'status does not show the job stale')
    print('status: lab-b stale %.0f s after it stopped' % (
        time.time() - stopped))
    b.resume()
    wait_for('lab-b done', lambda: (
        lambda v: v and v['boards'][0]['final'] and not
        v['boards'][0]['stale'])(lab_view(a, req, 'lab-b')), 120, 0.5)
    print('resumed: lab-b finished, not stale')
    print('silence OK')
    return 0


if __name__ == '__main__':
    main(test, Net)
