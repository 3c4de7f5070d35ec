#!/usr/bin/env python3
"""Crash safety. A node is killed with SIGKILL while a job is building,
booting, and running a suite (three requests, one kill each). After each
kill no process the node started survives (the executor, bubblewrap,
the recipe's sh, sleep and make, QEMU: found by a tag in their
environment, which the test first sees on the running job's processes)
and the store passes `labmesh store check` and both databases PRAGMA
integrity_check. After each restart the job is published as interrupted
(`submit --wait`, following it all along, prints so), queued again once
and runs to a final state; exactly one run record exists for it."""
import os
import signal
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from faultlib import store_check  # noqa: E402
from jobstest import Fail, Net, need_board, check, main, qemu_board, \
    TAG_VAR, tagged, wait_for  # noqa: E402
from test_jobs_git import make_repo  # noqa: E402

RECIPE = ('sleep 4; make KSRC=%s && cp vmlinuz "$LABMESH_OUT/vmlinuz"')


def leftovers(net, node_pid):
    """Processes (other than the node) that carry the net's tag in their
    environment: the executor, bwrap, the recipe's sh, sleep and make,
    QEMU."""
    return [p for p in tagged(net.tag) if p != node_pid]


def describe(pids):
    out = []
    for p in pids:
        try:
            with open('/proc/%d/cmdline' % p, 'rb') as f:
                cmd = f.read().replace(b'\0', b' ').strip()
            out.append('%d %s' % (p, cmd[:100].decode(errors='replace')))
        except OSError:
            pass
    return out


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


def test(net):
    env = need_board(net.root)
    followers = []
    try:
        c1, _ = make_repo(os.path.join(net.dir, 'repo'))
        extra = ('recipes:\n  - arch: x86_64\n    timeout: 300\n'
                 "    command: '%s'\n" % (RECIPE % env['KERNEL']))
        n = net.node('lab-k', 18401, [qemu_board('qemu-k', env)],
                     extra).start()
        for phase in ('building', 'booting', 'running'):  # separately
            # followed as a person would, across the kill and restart
            # (it reads the store; it carries no tag)
            fenv = dict(net.env)
            fenv.pop(TAG_VAR)
            follow = subprocess.Popen(
                [net.labmesh, '--home', n.home, 'submit', '--git',
                 os.path.join(net.dir, 'repo'), '--branch', 'main',
                 '--commit', c1, '--suite', 'smoke,boot-health,fork-exec',
                 '--wait', '--timeout', '15m'], stdout=subprocess.PIPE,
                text=True, env=fenv)
            followers.append(follow)
            req = follow.stdout.readline().split()[1]
            wait_for('the job %s' % phase, lambda: (
                board(n.req_status(req)) or {}).get('state') == phase,
                120, 0.05)
            pid = n.proc.pid
            # the tag finds the job's processes while they run, down to
            # the recipe's own children (its sleep, while building)
            want = 'sleep 4' if phase == 'building' else ''
            running, _ = wait_for(
                'tagged processes of the job %s' % phase,
                lambda: (lambda ps: ps if ps and any(
                    want in d for d in describe(ps)) else
                    None)(leftovers(net, pid)), 30, 0.05)
            seen = describe(running)
            os.kill(pid, signal.SIGKILL)
            n.proc.wait()
            time.sleep(1)  # the parent-death signal takes its time (the
            # recipe's sleep 4, seen at its start, would still run)
            left = leftovers(net, -1)
            check(not left, 'survived the node (%s): %s' % (
                phase, describe(left)))
            try:
                store_check(net, n)
            except Fail as e:
                raise Fail('after the kill during %s: %s' % (phase, e))
            for db in ('store.db', 'jobs.db'):
                r = integrity(os.path.join(n.home, db))
                check(r == 'ok', '%s after the kill during %s: %s' % (
                    db, phase, r))
            print('killed during %s: %d tagged processes before (%s),'
                  ' none after; stores intact' % (
                      phase, len(running), ', '.join(
                          os.path.basename((d.split() + ['?'])[1])
                          for d in seen)))
            n.start()
            b, _ = wait_for('a final state after %s' % phase, lambda: (
                lambda b: b if b and b['final'] else None)(
                    board(n.req_status(req))), 300, 0.2)
            check(b['state'] == 'done' and b['status'] == 'PASS',
                  'after a kill during %s: %s' % (phase, b))
            hist = n.cli('status', req).stdout
            check('done' in hist, hist)
            out = follow.communicate(timeout=300)[0]
            check(follow.returncode == 0, 'submit --wait exit %d: %s' % (
                follow.returncode, out[-2000:]))
            log = open(n.log).read()
            check('interrupted: the node stopped while the job was %s'
                  ' (attempt 1); queued again' % phase in log,
                  'no interruption reported during %s' % phase)
            check('interrupted: the node stopped while the job was %s'
                  ' (attempt 1); queued again' % phase in out,
                  '`submit --wait` does not show the interruption during'
                  ' %s: %s' % (phase, out[-2000:]))
            runs = [r for r in sqlite3.connect(
                os.path.join(n.home, 'store.db')).execute(
                    'SELECT count(*) FROM res_runs WHERE hex(request)'
                    ' = upper(?)', (req,))]
            check(runs[0][0] == 1, 'runs of the request: %s' % runs)
            check(not leftovers(net, n.proc.pid), 'processes left: %s' %
                  describe(leftovers(net, n.proc.pid)))
            print('killed during %s: recovered' % phase)
        n.stop()
        for db in ('store.db', 'jobs.db'):
            r = integrity(os.path.join(n.home, db))
            check(r == 'ok', '%s: %s' % (db, r))
        print('crash safety OK')
    finally:
        for f in followers:
            if f.poll() is None:
                f.kill()
                f.wait()
        net.close()
    return 0


if __name__ == '__main__':
    main(test, Net)
