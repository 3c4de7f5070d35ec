#!/usr/bin/env python3
"""scripts/demo end to end, then interrupted with Ctrl-C.

The demo runs on a pseudo-terminal (as a person runs it) with ports from
19200; it must finish with exit 0, print its folder at start and end, show
the matrix of both QEMU labs from lab-c, a compare and a KCIDB export, and
leave no process behind. Its KCIDB export must place every build and test
(a checkout with a commit and a tree name), give failures a log_excerpt
and validate against the upstream schema; its JUnit must time every case. Then it is run again and Ctrl-C is typed on its
terminal after a few seconds (with LM_TEST_LONG=1, at several points):
it must exit, and no process it started (labmesh, qemu, sshd: every one
carries the demo's tag in its environment) may be left.

usage: test_demo.py SOURCE_ROOT BUILD_DIR"""
import glob
import json
import os
import pty
import select
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kcidb_check  # noqa: E402

SKIP = 77


def tagged():
    """pids of processes any demo started (its tag is in their environ)."""
    out = []
    for f in glob.glob('/proc/[0-9]*/environ'):
        try:
            with open(f, 'rb') as fh:
                if b'\0LABMESH_DEMO_TAG=demo-' in b'\0' + fh.read():
                    out.append(int(f.split('/')[2]))
        except OSError:
            pass
    return out


def exports(folder):
    """What the demo's exports lack: a KCIDB document valid against the
    upstream schema (formats checked) whose every build and test hangs
    off a checkout with a commit (hash or name) and a tree name, whose
    failures carry a log_excerpt; a JUnit file with no untimed case."""
    fails = []
    try:
        doc = json.load(open(os.path.join(folder, 'kcidb.json')))
        junit = open(os.path.join(folder, 'junit.xml')).read()
    except (OSError, ValueError) as e:
        return ['the demo\'s exports: %s' % e]
    errs = kcidb_check.errors(doc)
    if errs:
        fails.append('kcidb.json: %d schema errors, first: %s' % (
            len(errs), errs[0].message))
    checkouts = {c['id']: c for c in doc.get('checkouts', [])}
    builds = {b['id']: b for b in doc.get('builds', [])}
    for c in checkouts.values():
        if not (c.get('git_commit_hash') or c.get('git_commit_name')) or \
                not c.get('tree_name'):
            fails.append('kcidb.json: checkout %s has no commit or no tree'
                         ' name: %s' % (c['id'], c))
    for b in builds.values():
        if b.get('checkout_id') not in checkouts:
            fails.append('kcidb.json: build %s hangs off no checkout'
                         % b['id'])
    tests = doc.get('tests', [])
    loose = [t['id'] for t in tests if t.get('build_id') not in builds]
    if loose:
        fails.append('kcidb.json: %d tests hang off no build: %s' % (
            len(loose), loose[:3]))
    bare = [t['path'] for t in tests if t.get('status') in ('FAIL', 'ERROR')
            and not t.get('log_excerpt')]
    if bare:
        fails.append('kcidb.json: failures without a log_excerpt: %s'
                     % bare[:5])
    if '<testcase' not in junit or 'time="0.000"' in junit:
        fails.append('junit.xml: no case, or a case with time 0.000')
    print('demo exports: %d checkouts, %d builds, %d tests (%d FAIL/ERROR);'
          ' junit.xml %d cases; %s' % (
              len(checkouts), len(builds), len(tests),
              sum(t.get('status') in ('FAIL', 'ERROR') for t in tests),
              junit.count('<testcase'), '; '.join(fails) or 'all placed,'
              ' failures excerpted, every JUnit case timed'))
    return fails


def run_demo(root, build, folder, interrupt_at=None, limit=600):
    """(exit status, output, seconds) of scripts/demo on a pty; Ctrl-C is
    typed after interrupt_at seconds when given."""
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(root)
        os.execv(os.path.join(root, 'scripts', 'demo'),
                 ['scripts/demo', '--dir', folder, '--no-setup', '--build',
                  build, '--port-base', '19200'])
    out, t0, sent = b'', time.time(), False
    while time.time() - t0 < limit:
        if interrupt_at is not None and not sent and \
                time.time() - t0 >= interrupt_at:
            os.write(fd, b'\x03')
            sent = True
        r, _, _ = select.select([fd], [], [], 0.1)
        if not r:
            continue
        try:
            b = os.read(fd, 65536)
        except OSError:
            break
        if not b:
            break
        out += b
    else:
        os.kill(pid, 9)
    _, st = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(st), out.decode(errors='replace'), \
        time.time() - t0


def left_after(what):
    time.sleep(1)
    pids = tagged()
    if pids:
        procs = ['%d %s' % (p, open('/proc/%d/comm' % p).read().strip())
                 for p in pids if os.path.exists('/proc/%d/comm' % p)]
        for p in pids:
            try:
                os.kill(p, 9)
            except OSError:
                pass
        return '%s left processes: %s' % (what, ', '.join(procs))
    return ''


def main():
    root, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if os.geteuid() != 0:
        print('SKIP: the demo starts an sshd and needs root here')
        return SKIP
    if tagged():
        print('SKIP: another demo is running')
        return SKIP
    top = tempfile.mkdtemp(prefix='lm-demo-test-')
    fails = []
    try:
        folder = os.path.join(top, 'full')
        rc, out, secs = run_demo(root, build, folder)
        print(out[-4000:])
        print('demo: exit %d in %.0f s' % (rc, secs))
        if rc != 0:
            fails.append('the demo exited %d' % rc)
        for want in ('everything it writes goes to ' + folder,
                     'boot method none cannot boot a kernel',
                     'lab-a/qemu-a: done: PASS',
                     'lab-c/qemu-c: done: PASS', '9. The cross-lab matrix',
                     'summary:', 'kcidb.json', 'nothing left running',
                     'its state is in ' + folder):
            if want not in out:
                fails.append('the demo output lacks %r' % want)
        matrix = open(os.path.join(folder, 'matrix.txt')).read() \
            if os.path.exists(os.path.join(folder, 'matrix.txt')) else ''
        if 'qemu-a' not in matrix or 'qemu-c' not in matrix:
            fails.append('lab-c matrix lacks a lab: %r' % matrix)
        fails += exports(folder)
        w = left_after('the full run')
        if w:
            fails.append(w)
        points = [6.0]
        if os.environ.get('LM_TEST_LONG') == '1':
            points = [0.5, 2.0, 4.0, 8.0, 12.0, 16.0, 20.0]
        for at in points:
            folder = os.path.join(top, 'ctrl-c-%s' % at)
            rc, out, secs = run_demo(root, build, folder, interrupt_at=at,
                                     limit=120)
            print('Ctrl-C at %.1f s: exit %d after %.1f s; %s' % (
                at, rc, secs, out.strip().splitlines()[-1] if out.strip()
                else ''))
            if rc == 0 and 'done in' not in out:
                fails.append('Ctrl-C at %.1f s: exit 0 without finishing'
                             % at)
            w = left_after('Ctrl-C at %.1f s' % at)
            if w:
                fails.append(w)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    for f in fails:
        print('FAIL: ' + f)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
