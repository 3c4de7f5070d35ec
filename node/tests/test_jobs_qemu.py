#!/usr/bin/env python3
"""Three labs on loopback — two with a QEMU x86_64 board, one with a local
board. A Debian kernel submitted from lab 1 as an artifact is fetched by
lab 2 from lab 1, booted and tested on both QEMU boards; the local board's
lab cannot boot a kernel: it says nothing to the network, and its own
`status` says why. `--wait` shows progress and the
matrix; lab 3 answers the same query and prints a console log that only
lab 2 produced, fetched from lab 2; the matrix of the commit (text and
JSON) is byte for byte the same on all three labs."""
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import Net, need_board, check, local_board, main, \
    qemu_board, wait_for  # noqa: E402

SUITES = 'smoke,boot-health'
COMMIT = 'c0ffee' * 6 + 'c0ff'  # where the image says it came from


def test(net):
    env = need_board(net.root)
    try:
        n1 = net.node('lab-a', 18201, [qemu_board('qemu-a', env)]).start()
        n2 = net.node('lab-b', 18202, [qemu_board('qemu-b', env)],
                      seeds=[n1]).start()
        n3 = net.node('lab-c', 18203, [local_board('host-c')],
                      seeds=[n1, n2]).start()
        wait_for('a connected network', lambda: n1.peers_up() == 2 and
                 n2.peers_up() == 2 and n3.peers_up() == 2, 30, 0.2)
        wait_for('every advert on lab 1', lambda: len(json.loads(
            n1.cli('--json', 'boards').stdout)) == 3, 30, 0.2)
        p = n1.cli('submit', '--kernel', env['KERNEL'], '--initrd',
                   env['INITRD'], '--describe', env['KVERSION'], '--arch',
                   'x86_64', '--git', 'https://salsa.debian.org/kernel-team/'
                   'linux.git', '--branch', 'bookworm', '--commit', COMMIT,
                   '--config', 'cloud-amd64', '--suite', SUITES, '--wait', '--timeout', '15m',
                   check_rc=False, timeout=1200)
        print(p.stdout)
        check(p.returncode == 0, 'submit --wait exit %d: %s %s' % (
            p.returncode, p.stderr, n2.tail()))
        req = p.stdout.split()[1]
        check('lab-c' not in p.stdout.split('\n\n')[0],
              'lab-c, which cannot boot a kernel, answered: %r' % p.stdout)
        c = [x for x in n3.req_status(req)['labs'] if x['lab'] == 'lab-c']
        check(c and c[0]['answer'] == 'declined' and
              'boot method none' in c[0]['reason'],
              'lab-c\'s own status lacks why it said nothing: %r' % c)
        for what in ('lab-a: accepted', 'lab-b: accepted',
                     'running: suite 1 of 2: smoke',
                     'running: suite 2 of 2: boot-health', 'done: PASS'):
            check(what in p.stdout, 'progress lacks %r' % what)
        check('commit ' + COMMIT in p.stdout, 'the matrix lacks the commit')
        check('qemu-a' in p.stdout and 'qemu-b' in p.stdout and
              'smoke' in p.stdout.split('BOARD')[-1], 'no matrix')
        # lab 3 indexes the replicated runs as they arrive
        def indexed():
            db = sqlite3.connect(os.path.join(n3.home, 'store.db'))
            try:
                return db.execute('SELECT count(*) FROM res_runs WHERE'
                                  ' hex(request) = upper(?)',
                                  (req,)).fetchone()[0] == 2
            except sqlite3.Error:
                return False
            finally:
                db.close()
        wait_for('the runs indexed on lab 3', indexed, 60, 0.2)
        # the same results from the lab that ran none of it
        q1 = n1.cli('query', '--request', req).stdout
        q3, _ = wait_for('the runs on lab 3', lambda: (
            lambda out: out if 'qemu-a' in out and 'qemu-b' in out else None)
            (n3.cli('query', '--request', req, check_rc=False).stdout),
            60, 0.2)
        check(q1 == q3, 'query differs:\n%s\n%s' % (q1, q3))
        # the commit's matrix, text and JSON, byte for byte the same on
        # all three labs, listing both QEMU boards with a PASS cell per
        # suite
        def matrices(*fmt):
            outs = [n.cli(*(fmt + ('query', '--commit', COMMIT))).stdout
                    for n in (n1, n2, n3)]
            return outs if all('qemu-a' in o and 'qemu-b' in o
                               for o in outs) else None
        for fmt in ((), ('--json',)):
            outs, _ = wait_for('the matrix %s on every lab' % (fmt,),
                            lambda: matrices(*fmt), 60, 0.2)
            check(outs[0] == outs[1] == outs[2], 'the matrix %s differs'
                  ' between labs:\n%s' % (fmt, '\n'.join(outs)))
        qc = outs[2]
        m = json.loads(qc)
        check(m['commit'] == COMMIT, 'matrix commit: %s' % m['commit'])
        rows = {(b['lab'], b['board']): b for b in m['boards']}
        check(set(rows) == {('lab-a', 'qemu-a'), ('lab-b', 'qemu-b')},
              'matrix rows: %s' % sorted(rows))
        for b in rows.values():
            check(sorted(c['suite'] for c in b['cells']) ==
                  sorted(SUITES.split(',')) and
                  all(c['status'] == 'PASS' for c in b['cells']),
                  'matrix cells of %s: %s' % (b['board'], b['cells']))
        text = matrices()[0]
        print('the commit matrix on three labs (%d bytes text, %d JSON),'
              ' identical:\n%s' % (len(text), len(qc), text))
        st = n3.req_status(req)
        runs = {b['board']: b['run'] for lab in st['labs']
                for b in lab['boards']}
        check(runs.get('qemu-b'), 'no run of qemu-b seen on lab 3')
        log = n3.cli('log', runs['qemu-b'], timeout=300)
        check('labmesh-board: ready' in log.stdout or
              'Linux version' in log.stdout,
              'console log of lab 2 not printed on lab 3: %s' %
              log.stdout[:500])
        check(env['KVERSION'] in log.stdout, 'console lacks the kernel')
        sm = n3.cli('log', runs['qemu-b'], '--suite', 'smoke').stdout
        check('smoke' in sm, 'no smoke output')
        # the kernel blob travelled from lab 1 to lab 2, verified
        print('artifact run OK: request %s' % req[:12])
    finally:
        net.close()
    return 0


if __name__ == '__main__':
    main(test, Net)
