#!/usr/bin/env python3
"""Health checks: two labs on loopback (ports 27500-27599). lab-h's board
h-1 has a health check run through its transport whose result a file
decides; h-2 one run on the lab's machine (health.on: host) that must see
LABMESH_BOARD. With the file there, h-1 fails its check three times in a
row and only then goes offline: lab-p's `boards` shows it offline with
the reason, and a request or a lease for it is declined naming the
reason. With the file gone, the next check puts it back and it runs a
request. h-2 goes offline and back the same way."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import (Net, check, local_board, main,  # noqa: E402
                      wait_for)


def checked_board(name, cmd, host=False):
    return local_board(name).replace(
        'boot: {method: none}}',
        'boot: {method: none},\n      health: {command: "%s", interval: 1,'
        ' timeout: 20%s}}' % (cmd, ', on: host' if host else ''))


def board(n, name):
    for b in n.boards_json():
        if b['lab'] == 'lab-h' and b['board'] == name:
            return b
    return None


def wait_state(n, name, state, timeout=60):
    return wait_for('lab-h/%s %s on %s' % (name, state, n.name),
                    lambda: (lambda b: b if b and b['state'] == state
                             else None)(board(n, name)), timeout, 0.1)[0]


def test(net):
    net.env['LABMESH_SUITES'] = os.path.join(net.root, 'suites')
    bad1, bad2 = (os.path.join(net.dir, x) for x in ('bad1', 'bad2'))
    h = net.node('lab-h', 27501, [
        checked_board('h-1', "test ! -e %s || { echo probe says no;"
                      " exit 4; }" % bad1),
        checked_board('h-2', "[ \\\"$LABMESH_BOARD\\\" = h-2 ] &&"
                      " test ! -e %s" % bad2, host=True)],
        extra='policy:\n  leases: {submitters: any}\n').start()
    p = net.node('lab-p', 27502, [local_board('p-1')], seeds=[h]).start()
    wait_for('peers up', lambda: p.peers_up() == 1, 30, 0.1)
    wait_state(p, 'h-1', 'idle')
    wait_for('h-2 checked', lambda: 'health-h-2' in os.listdir(
        os.path.join(h.home, 'work')), 30, 0.1)
    check(board(p, 'h-2')['state'] == 'idle' and 'health' not in
          board(p, 'h-2'), 'h-2 passes its check on the host: %s' %
          board(p, 'h-2'))

    open(bad1, 'w').close()
    b = wait_state(p, 'h-1', 'offline')
    check('health check failed 3 times' in b.get('health', '') and
          'exit 4: probe says no' in b['health'], 'the reason: %s' % b)
    log = h.logtext()
    third = log.find('board h-1: health check failed (3 in a row)')
    off = log.find('board h-1: offline')
    check(0 <= log.find('(2 in a row)') < third < off,
          'offline only after the third failure')
    text = p.cmd('boards')
    check('health check failed 3 times' in text, 'boards text: %s' % text)
    print('h-1 offline on lab-p after 3 failures: %s' % b['health'])

    r = p.cli('submit', '--suite', 'smoke', '--board', 'h-1', '--wait',
              check_rc=False, timeout=120)
    check(r.returncode != 0 and 'board offline: health check failed' in
          r.stdout, 'a request for h-1 declined: %r' % r.stdout)
    print('a request for h-1: declined, naming the health check')
    r = p.cli('lease', 'lab-h/h-1', '--for', '5m', '--wait',
              check_rc=False, timeout=120)
    check(r.returncode != 0 and 'h-1 is offline: health check failed' in
          r.stderr, 'a lease of h-1 declined: %r' % r.stderr)
    print('a lease of h-1: declined, naming the health check')

    os.unlink(bad1)
    b = wait_state(p, 'h-1', 'idle')
    check('health' not in b, 'h-1 back without a reason: %s' % b)
    r = p.cli('submit', '--suite', 'smoke', '--board', 'h-1', '--wait',
              check_rc=False, timeout=180)
    check(r.returncode == 0, 'h-1 runs again: %r' % r.stdout[-800:])
    print('h-1 online again and ran smoke')

    open(bad2, 'w').close()
    b = wait_state(p, 'h-2', 'offline')
    check('exit 1' in b.get('health', ''), 'h-2 reason: %s' % b)
    os.unlink(bad2)
    wait_state(p, 'h-2', 'idle')
    print('h-2 (checked on the host): offline and back: %s' % b['health'])


if __name__ == '__main__':
    main(test, Net)
