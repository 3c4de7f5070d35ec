"""jobstest: what the jobs tests add to lmtest: a Net with a submitter
key whose nodes tag every process they start (tagged()), QEMU boards
(need_board, qemu_board) and suite fixtures. Ports come from the range
the test gives. Tests run with lmtest.main(test, Net)."""
import glob
import os
import secrets
import shutil
import subprocess
import sys

import lmtest
from lmtest import (SKIP, Fail, Skip, check, local_board,  # noqa: F401
                    main, wait_for)

TAG_VAR = 'LABMESH_TEST_TAG'


def need_board(root):
    """board_dir(root), or the test is skipped (Skip) when it cannot be."""
    env = board_dir(root)
    if not env:
        raise Skip('the QEMU board cannot be built here')
    return env


def board_dir(root):
    """Build (or reuse) the QEMU x86_64 board; None when it cannot be."""
    mk = os.path.join(root, 'scripts', 'mkboard')
    if not shutil.which('qemu-system-x86_64') or os.uname().machine != 'x86_64':
        return None
    p = subprocess.run([mk, '--arch', 'x86_64', '--print-dir'],
                       capture_output=True, text=True, timeout=900)
    d = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ''
    if p.returncode != 0 or not os.path.exists(os.path.join(d, 'board.env')):
        sys.stderr.write(p.stderr[-2000:])
        return None
    env = {}
    for line in open(os.path.join(d, 'board.env')):
        if '=' in line and not line.startswith('#'):
            k, v = line.strip().split('=', 1)
            env[k] = v.strip("'")
    return env


def qemu_board(name, env, tags=('qemu',)):
    return ('  - name: %s\n    arch: x86_64\n    machine: qemu-pc\n'
            '    tags: [%s]\n    transport: {type: serial, console: qemu}\n'
            '    boot:\n      method: qemu\n      machine: %s\n'
            '      cpu: %s\n      memory: 512\n      cpus: 1\n'
            '      kernel: %s\n      initrd: %s\n      append: "%s"\n'
            '      timeout: 240\n' % (name, ', '.join(tags), env['MACHINE'],
                                      env['CPU'], env['KERNEL'],
                                      env['INITRD'], env['APPEND']))


class Node(lmtest.Node):
    """A node in a session of its own (the jobs' process groups)."""
    new_session = True
    start_timeout = 15


class Net(lmtest.Net):
    """A net with its own submitter key and a tag (TAG_VAR) in the
    environment of every process its nodes start (see tagged())."""
    prefix = 'lm-jobs-'
    node_class = Node
    run_timeout = 120

    def __init__(self, labmesh, tools=()):
        super().__init__(labmesh, tools)
        self.own_key()
        self.tag = 'lm-jobs-%d-%s' % (os.getpid(), secrets.token_hex(8))
        self.env[TAG_VAR] = self.tag

    def node(self, name, port, boards, extra='', seeds=(), **kw):
        """boards: lab file entries (local_board(), qemu_board())."""
        return super().node(name, port, boards=boards, extra=extra,
                            seeds=seeds, **kw)


def write_suite(d, name, yaml, sh):
    """A suite folder d/name with its suite.yaml and an executable run.sh
    (a test's own fixture, given to the node with LABMESH_SUITES=d)."""
    os.makedirs(os.path.join(d, name), exist_ok=True)
    with open(os.path.join(d, name, 'suite.yaml'), 'w') as f:
        f.write(yaml)
    with open(os.path.join(d, name, 'run.sh'), 'w') as f:
        f.write(sh)
    os.chmod(os.path.join(d, name, 'run.sh'), 0o755)
    return d


def tagged(tag, var=TAG_VAR):
    """pids of the processes whose environment has var=tag: whatever a
    node of Net started (executors, builds and their children, QEMU),
    whatever its command line."""
    want = ('%s=%s' % (var, tag)).encode()
    out = []
    for f in glob.glob('/proc/[0-9]*/environ'):
        try:
            with open(f, 'rb') as fh:
                if want in fh.read().split(b'\0'):
                    out.append(int(f.split('/')[2]))
        except OSError:
            pass
    return out
