#!/usr/bin/env python3
"""Crash safety. A node is killed with SIGKILL while a job is building,
booting, and running a suite (three requests, one kill each). After each
restart the job is published as interrupted, queued again once and runs
to a final state; exactly one run record exists for it; no executor,
build or QEMU process of the node survives; both databases pass
PRAGMA integrity_check."""
import os
import signal
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import Net, SKIP, board_dir, check, main, qemu_board, \
    wait_for  # noqa: E402
from test_jobs_git import make_repo  # noqa: E402

RECIPE = ('sleep 4; make KSRC=%s && cp vmlinuz "$LABMESH_OUT/vmlinuz"')


def leftovers(home, node_pid):
    """Processes (other than the node) whose command line names home."""
    out = subprocess.run(['pgrep', '-f', '--', home], capture_output=True,
                         text=True).stdout.split()
    return [int(p) for p in out if int(p) not in (node_pid, os.getpid())]


def board(st, name='qemu-k'):
    if not st:
        return None
    for lab in st['labs']:
        for b in lab['boards']:
            if b['board'] == name:
                return b
    return None


def integrity(path):
    db = sqlite3.connect(path)
    r = db.execute('PRAGMA integrity_check').fetchone()[0]
    db.close()
    return r


def test(labmesh, root):
    env = board_dir(root)
    if not env:
        print('SKIP: the QEMU board cannot be built here')
        return SKIP
    net = Net(labmesh)
    try:
        c1, _ = make_repo(os.path.join(net.dir, 'repo'))
        extra = ('recipes:\n  - arch: x86_64\n    timeout: 300\n'
                 "    command: '%s'\n" % (RECIPE % env['KERNEL']))
        n = net.node('lab-k', 18401, [qemu_board('qemu-k', env)],
                     extra).start()
        for phase in ('building', 'booting', 'running'):  # separately
            p = n.cli('submit', '--git', os.path.join(net.dir, 'repo'),
                      '--branch', 'main', '--commit', c1, '--suite',
                      'smoke,boot-health,fork-exec')
            req = p.stdout.split()[1]
            wait_for('the job %s' % phase, lambda: (
                board(n.status(req)) or {}).get('state') == phase, 120, 0.05)
            pid = n.proc.pid
            os.kill(pid, signal.SIGKILL)
            n.proc.wait()
            time.sleep(1)  # the parent-death signal takes its time
            left = leftovers(n.home, -1)
            check(not left, 'survived the node (%s): %s' % (phase, left))
            n.start()
            b = wait_for('a final state after %s' % phase, lambda: (
                lambda b: b if b and b['final'] else None)(
                    board(n.status(req))), 300)
            check(b['state'] == 'done' and b['status'] == 'PASS',
                  'after a kill during %s: %s' % (phase, b))
            hist = n.cli('status', req).stdout
            check('done' in hist, hist)
            log = open(n.log).read()
            check('interrupted: the node stopped while the job was %s'
                  ' (attempt 1); queued again' % phase in log,
                  'no interruption reported during %s' % phase)
            check('interrupted' in hist or 'done' in hist, hist)
            runs = [r for r in sqlite3.connect(
                os.path.join(n.home, 'store.db')).execute(
                    'SELECT count(*) FROM res_runs WHERE hex(request)'
                    ' = upper(?)', (req,))]
            check(runs[0][0] == 1, 'runs of the request: %s' % runs)
            check(not leftovers(n.home, n.proc.pid), 'processes left')
            print('killed during %s: recovered' % phase)
        n.kill()
        for db in ('store.db', 'jobs.db'):
            r = integrity(os.path.join(n.home, db))
            check(r == 'ok', '%s: %s' % (db, r))
        print('crash safety OK')
    finally:
        net.close()
    return 0


if __name__ == '__main__':
    sys.exit(main(test))
