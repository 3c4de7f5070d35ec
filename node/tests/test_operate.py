#!/usr/bin/env python3
"""Operating a lab: `labmesh board LAB/BOARD maintenance|online` on two
labs on loopback (ports 27200-27299). Maintenance keeps its reason across
a restart, shows in `boards` on the other lab, declines new requests with
the reason and holds queued jobs back; `online` and `--until` put the
board back; another lab's board is refused naming that lab. A busy board
shows its request, submitter (with its name from policy.names) and since
when, in `boards` on both labs and
in the node log."""
import datetime
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import (Net, check, local_board, main, wait_for,  # noqa: E402
                      write_suite)

HOLD_SH = '#!/bin/sh\necho "1..1"\nsleep 6\necho "ok 1 - held"\n'
HOLD_YAML = ('name: hold\nversion: 1\nkind: functional\n'
             'description: keeps the board busy\ntimeout: 60\nparser: tap\n')
REASON = 'new PSU, back after lunch'


def board(n, lab, name):
    for b in n.boards_json():
        if b['lab'] == lab and b['board'] == name:
            return b
    return None


def wait_board(n, lab, name, what, fn, timeout=30):
    return wait_for('%s/%s %s on %s' % (lab, name, what, n.name),
                    lambda: (lambda b: b if b and fn(b) else None)(
                        board(n, lab, name)), timeout, 0.1)[0]


def answer(n, req, lab='lab-op'):
    def ans():
        st = n.req_status(req) or {}
        labs = [x for x in st.get('labs', []) if x['answer'] != 'waiting'
                and x['lab'] == lab]
        return labs[0] if labs else None
    return wait_for('an answer to %s' % req[:12], ans, 30, 0.2)[0]


def final(n, req, name, timeout=90):
    def done():
        st = n.req_status(req) or {}
        for lab in st.get('labs', []):
            for b in lab['boards']:
                if b['board'] == name and b['final']:
                    return b
        return None
    return wait_for('%s final' % req[:12], done, timeout, 0.2)[0]


def submit(n, *args):
    return n.cli('submit', *args).stdout.split()[1]


def test_maintenance(net, op, far):
    # another lab's board: refused, naming that lab
    p = op.cli('board', 'lab-far/far-1', 'maintenance', '--reason', 'x',
               check_rc=False)
    check(p.returncode != 0 and "lab 'lab-far' is not this node's lab"
          in p.stderr, 'other lab: %d %s' % (p.returncode, p.stderr))
    p = op.cli('board', 'lab-op/op-1', 'maintenance', check_rc=False)
    check(p.returncode == 2 and '--reason' in p.stderr,
          'no reason: %s' % p.stderr)

    op.cmd('board', 'lab-op/op-1', 'maintenance', '--reason', REASON)
    b = wait_board(op, 'lab-op', 'op-1', 'in maintenance',
                   lambda b: b['state'] == 'maintenance')
    check(b.get('reason') == REASON and 'until' not in b, 'own: %s' % b)
    text = op.cmd('boards')
    check('maintenance: "%s"' % REASON in text, 'boards text: %s' % text)

    # a new request is declined with the reason
    r = submit(op, '--suite', 'smoke', '--board', 'op-1')
    a = answer(op, r)
    check(a['answer'] == 'declined' and REASON in str(a),
          'request during maintenance: %s' % a)
    print('maintenance: shown with its reason, a request declined')

    # kept across a restart, and seen by the other lab
    op.stop()
    op.start()
    b = wait_board(op, 'lab-op', 'op-1', 'still in maintenance',
                   lambda b: b['state'] == 'maintenance')
    check(b.get('reason') == REASON, 'after restart: %s' % b)
    wait_board(far, 'lab-op', 'op-1', 'in maintenance with its reason',
               lambda b: b['state'] == 'maintenance' and
               b.get('reason') == REASON)
    print('maintenance: kept across a restart, shown on lab-far')

    op.cmd('board', 'lab-op/op-1', 'online')
    wait_board(far, 'lab-op', 'op-1', 'online',
               lambda b: b['state'] == 'idle' and 'reason' not in b)
    r = submit(op, '--suite', 'smoke', '--board', 'op-1')
    check(final(op, r, 'op-1')['status'] == 'PASS', 'run after online')
    print('online: back in service, a request runs')

    # --until: back online by itself
    until = (datetime.datetime.now(datetime.timezone.utc) +
             datetime.timedelta(seconds=4)).strftime('%Y-%m-%dT%H:%M:%S')
    op.cmd('board', 'lab-op/op-1', 'maintenance', '--reason', 'reflash',
           '--until', until)
    b = wait_board(far, 'lab-op', 'op-1', 'in maintenance until a time',
                   lambda b: b['state'] == 'maintenance' and
                   b.get('until', '').startswith(until))
    wait_board(far, 'lab-op', 'op-1', 'back online by itself',
               lambda b: b['state'] == 'idle', 30)
    print('--until: back online by itself at %sZ' % until)


def test_busy(net, op, far):
    # a queued job waits out a maintenance that starts while another runs
    r = submit(op, '--suite', 'hold', '--board', 'op-2')
    b = wait_board(op, 'lab-op', 'op-2', 'busy with the request',
                   lambda b: b.get('request') == r[:12])
    check(b['submitter'] == net.submitter[:12] and b.get('since') and
          b.get('submitter_name') == 'alice', 'busy: %s' % b)
    wait_board(far, 'lab-op', 'op-2', 'busy on lab-far',
               lambda b: b.get('request') == r[:12])
    text = op.cmd('boards')
    check('request %s by %s (alice) since' % (r[:12], net.submitter[:12])
          in text, 'boards text: %s' % text)
    log = op.logtext()
    check('request %s from submitter %s (alice)' % (
        r[:12], net.submitter[:12]) in log,
        'the log names request and submitter')
    print('busy: request %s by %s shown' % (r[:12], net.submitter[:12]))

    r2 = submit(op, '--suite', 'smoke', '--board', 'op-2')
    check(answer(op, r2)['answer'] == 'accepted', 'queued behind hold')
    op.cmd('board', 'lab-op/op-2', 'maintenance', '--reason', 'cable')
    check(final(op, r, 'op-2')['status'] == 'PASS',
          'the running job finishes in maintenance')
    time.sleep(2)
    st = op.req_status(r2)
    bs = [b for lab in st['labs'] for b in lab['boards']]
    check(all(not b['final'] for b in bs), 'queued job started: %s' % bs)
    op.cmd('board', 'lab-op/op-2', 'online')
    check(final(op, r2, 'op-2')['status'] == 'PASS', 'queued job after online')
    print('maintenance: the running job finished, the queued one waited')


def test(net):
    try:
        d = os.path.join(net.dir, 'suites')
        write_suite(d, 'hold', HOLD_YAML, HOLD_SH)
        os.symlink(os.path.join(net.root, 'suites', 'smoke'),
                   os.path.join(d, 'smoke'))
        net.env['LABMESH_SUITES'] = d
        op = net.node('lab-op', 27201, [local_board('op-1'),
                                        local_board('op-2')],
                      extra='policy:\n  names: {%s: alice}\n' %
                      net.submitter).start()
        far = net.node('lab-far', 27202, [local_board('far-1')],
                       seeds=[op]).start()
        wait_for('peers up', lambda: op.peers_up() == 1, 30)
        test_maintenance(net, op, far)
        test_busy(net, op, far)
    finally:
        net.close()


if __name__ == '__main__':
    main(test, Net)
