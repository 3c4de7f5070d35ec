#!/usr/bin/env python3
"""Reload: a lab's node reads its lab file again on SIGHUP (and on
`labmesh reload`) without a restart. Two labs on loopback (ports
27400-27499): lab-a runs a job on a-1 that holds until the test lets it
go. Meanwhile: a file that removes the busy board is refused naming the
job; SIGHUP with a new board a-2 makes a-2 appear in lab-b's `boards`
and take a request from lab-b; a broken file and a new lab.name are
refused (the node goes on with what it had); a new policy.submitters
declines the next request that names lab-a. Then the held job ends with
its result, and the node is the same process and its peer stayed up all
along."""
import os
import signal
import sys
import threading

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import (Fail, Net, check, local_board, main,  # noqa: E402
                      wait_for, write_suite)

HOLD_YAML = ('name: hold\nversion: 1\nkind: functional\n'
             'description: holds the board until a file exists\n'
             'timeout: 600\nparser: tap\n')


def boards(n, req):
    st = n.req_status(req) or {}
    return {b['board']: b for lab in st.get('labs', [])
            for b in lab['boards']}


def final(n, req, board, timeout=180):
    return wait_for('%s on %s final' % (req[:12], board), lambda: (
        lambda b: b if b and b['final'] else None)(
            boards(n, req).get(board)), timeout, 0.2)[0]


def answer(n, req, lab):
    def ans():
        st = n.req_status(req) or {}
        for x in st.get('labs', []):
            if x['lab'] == lab and x['answer'] != 'waiting':
                return x
        return None
    return wait_for('%s answers %s' % (lab, req[:12]), ans, 60, 0.2)[0]


def submit(n, *args):
    return n.cli('submit', *args).stdout.split()[1]


class Watch(threading.Thread):
    """Polls lab-b's peer table: every state lab-a's entry was seen in."""
    def __init__(self, b):
        super().__init__(daemon=True)
        self.b, self.seen, self.stop = b, set(), threading.Event()

    def run(self):
        while not self.stop.is_set():
            try:
                for p in self.b.peers():
                    if p['lab'] == 'lab-a':
                        self.seen.add(p['state'])
            except Fail:
                self.seen.add('no answer')
            self.stop.wait(0.2)


def reload_log(a, count):
    return wait_for('lab-a logs reload #%d' % count, lambda:
                    a.logtext().count('reloaded ') >= count, 30, 0.1)


def test(net):
    d = os.path.join(net.dir, 'suites')
    gate = os.path.join(net.dir, 'gate')
    write_suite(d, 'hold', HOLD_YAML, '#!/bin/sh\necho "1..1"\n'
                'while [ ! -e %s ]; do sleep 0.1; done\n'
                'echo "ok 1 - held"\n' % gate)
    os.symlink(os.path.join(net.root, 'suites', 'smoke'),
               os.path.join(d, 'smoke'))
    net.env['LABMESH_SUITES'] = d
    a = net.node('lab-a', 27401, [local_board('a-1')]).start()
    b = net.node('lab-b', 27402, [local_board('b-1')], seeds=[a]).start()
    wait_for('peers up', lambda: a.peers_up() == 1 and b.peers_up() == 1,
             30, 0.1)
    pid = a.status()['pid']

    held = submit(b, '--suite', 'hold', '--board', 'a-1')
    wait_for('a-1 runs the held job', lambda: (boards(b, held).get('a-1')
                                              or {}).get('state') ==
             'running', 60, 0.1)
    watch = Watch(b)
    watch.start()
    print('a-1 runs %s; lab-b connected to lab-a' % held[:12])

    # the busy board cannot leave
    a.boards = [local_board('a-2')]
    a.config()
    p = a.cli('reload', check_rc=False)
    check(p.returncode != 0 and 'a-1' in p.stderr and 'job holds it' in
          p.stderr, 'removing a busy board: exit %d %r' % (p.returncode,
                                                            p.stderr))
    print('refused: %s' % p.stderr.strip())

    # SIGHUP: a new board, advertised network-wide, takes a request
    a.boards = [local_board('a-1'), local_board('a-2', tags=('fresh',))]
    a.config()
    os.kill(a.proc.pid, signal.SIGHUP)
    reload_log(a, 1)
    wait_for('lab-b sees a-2', lambda: any(
        x['lab'] == 'lab-a' and x['board'] == 'a-2'
        for x in b.boards_json()), 30, 0.2)
    r = submit(b, '--suite', 'smoke', '--tag', 'fresh')
    got = final(b, r, 'a-2')
    check(got['status'] == 'PASS', 'the new board ran smoke: %s' % got)
    print('SIGHUP: a-2 advertised to lab-b and ran %s: %s' %
          (r[:12], got['status']))

    # a broken file changes nothing
    with open(a.cfg, 'w') as f:
        f.write('lab: {name: lab-a}\nboards: [\n')
    os.kill(a.proc.pid, signal.SIGHUP)
    wait_for('the broken file logged', lambda: 'reload: %s' % a.cfg in
             a.logtext(), 30, 0.1)
    p = a.cli('reload', check_rc=False)
    check(p.returncode != 0 and a.cfg in p.stderr,
          'a broken file: exit %d %r' % (p.returncode, p.stderr))
    check(a.alive() and len([x for x in a.boards_json()
                             if x['lab'] == 'lab-a']) == 2,
          'lab-a kept its boards after a broken file')
    print('a broken file: %s' % p.stderr.strip())

    # the lab's name is in every record it signed: not changed live
    a.config()
    with open(a.cfg) as f:
        text = f.read()
    with open(a.cfg, 'w') as f:
        f.write(text.replace('name: lab-a', 'name: lab-x'))
    p = a.cli('reload', check_rc=False)
    check(p.returncode != 0 and "'lab-a' cannot become 'lab-x'" in p.stderr,
          'a new lab.name: exit %d %r' % (p.returncode, p.stderr))
    print('a new name: %s' % p.stderr.strip())

    # a policy that leaves our key out: the next request naming lab-a
    # is declined
    a.extra = 'policy:\n  submitters: [%s]\n' % ('ab' * 32)
    a.config()
    check('reloaded' in a.cmd('reload'), 'reload with a new policy')
    r = submit(b, '--suite', 'smoke', '--tag', 'fresh', '--lab', 'lab-a')
    ans = answer(b, r, 'lab-a')
    check(ans['answer'] == 'declined', 'new policy: %s' % ans)
    print('policy: lab-a now declines %s: %s' % (r[:12],
                                                  ans.get('reason')))

    # the held job ends with its result, in the same process
    check(boards(b, held)['a-1']['state'] == 'running',
          'the held job runs through every reload')
    open(gate, 'w').close()
    got = final(b, held, 'a-1')
    check(got['status'] == 'PASS' and got['run'],
          'the held job: %s' % got)
    watch.stop.set()
    watch.join()
    check(a.status()['pid'] == pid, 'lab-a is the same process')
    check(watch.seen == {'up'}, 'lab-a as lab-b saw it: %s' % watch.seen)
    check(a.peers_up() == 1, 'lab-a still has its peer')
    print('the held job: %s with run %s; pid %d throughout; lab-b saw'
          ' lab-a %s' % (got['status'], got['run'][:12], pid,
                         sorted(watch.seen)))


if __name__ == '__main__':
    main(test, Net)
