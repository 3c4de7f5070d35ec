#!/usr/bin/env python3
"""scripts/demo end to end, then interrupted with Ctrl-C.

The demo runs on a pseudo-terminal (as a person runs it) with ports from
19200; it must finish with exit 0, print its folder at start and end, show
the matrix of both QEMU labs from lab-c, a compare and a KCIDB export, and
leave no process behind. Then it is run again and Ctrl-C is typed on its
terminal after a few seconds (with LM_TEST_LONG=1, at several points):
it must exit, and no process it started (labmesh, qemu, sshd: every one
carries the demo's tag in its environment) may be left.

usage: test_demo.py SOURCE_ROOT BUILD_DIR"""
import glob
import os
import pty
import select
import shutil
import subprocess
import sys
import tempfile
import time

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
                     'lab-b: declined', 'lab-a/qemu-a: done: PASS',
                     'lab-c/qemu-c: done: PASS', '9. The cross-lab matrix',
                     'summary:', 'kcidb.json', 'nothing left running',
                     'its state is in ' + folder):
            if want not in out:
                fails.append('the demo output lacks %r' % want)
        matrix = open(os.path.join(folder, 'matrix.txt')).read() \
            if os.path.exists(os.path.join(folder, 'matrix.txt')) else ''
        if 'qemu-a' not in matrix or 'qemu-c' not in matrix:
            fails.append('lab-c matrix lacks a lab: %r' % matrix)
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
