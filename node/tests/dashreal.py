"""dashreal: a real network run for the dashboard's browser test.

Labs on loopback, seeded in a line hq - lab-a - lab-b - lab-q - lab-x
(peer exchange then meshes them):

- hq: the dashboard node. Its one board boots nothing (`none`), so it
  declines every request that brings a kernel: it runs none of the jobs
  and learns every result by replication.
- lab-a (two boards), lab-b, lab-x: `local` boards with the `command` boot
  method. The operator's deploy command copies the request's initrd to
  HOME/deployed; the lab's `probe` suite reads the image's marker from
  it, so what a board reports depends on the image it was given.
  lab-x is the hostile lab: its probe prints markup (<script>,
  <img onerror>) into case messages and its logs.
- lab-q: a QEMU x86_64 board (the cached test board of scripts/mkboard)
  that boots the request's kernel and initrd; its probe reads the marker
  inside the booted system. Left out when the board cannot be built.

Two requests go out from lab-a with `labmesh submit`, each the Debian
kernel of the QEMU board with an initrd that carries a marker file
(fetched by every lab from lab-a as blobs), and the git identity it was
built from: BASE (commit 1, branch main) and NEW (commit 2; its branch
name and its describe text hold markup). NEW's marker makes
`probe.image.feature` fail and its `probe_ms` figure worse on every
board: real regressions between real commits. Suites: smoke (the
catalog's shell checks), syscall-latency (a catalog benchmark: three
figures in ns) and probe.
"""
import json
import os
import re

import jobstest
from jobstest import wait_for

XSS = '<script>alert(1)</script>'
XSS_MSG = XSS + '<img src=x onerror=alert(2)>'
COMMITS = ['1dea' * 10, 'b0a7' * 10]
BRANCHES = ['main', 'next-' + XSS]
DESCRIBES = ['6.1.0-lm', '6.1.1-lm<img src=x onerror=alert(3)>']
SUITES = 'smoke,syscall-latency,probe'
CATALOG = ('smoke', 'syscall-latency')

PROBE_YAML = """name: probe
version: 1
kind: functional
description: What the deployed image says (a lab's own check)
timeout: 30
parser: tap
metrics:
  - {name: probe_ms, unit: ms, better: lower}
"""

# %(deployed)s: the file the deploy command writes; %(noise)s: extra
# output (the hostile lab's markup). On a booted board the marker is a
# file of the initrd; on a command-boot board it is read from the
# deployed initrd.
MARKER = 'etc/labmesh-image'
PROBE_SH = """#!/bin/sh
img=$(cat /%(marker)s 2>/dev/null || grep -a -o -m 1 \\
	'labmesh test image [0-9]: [a-z]*' '%(deployed)s' 2>/dev/null)
echo "TAP version 13"
echo "1..3"
echo "ok 1 - image.deployed"
case "$img" in
*regress*) echo "not ok 2 - image.feature"
	echo "# feature missing in $img%(msg)s" ;;
*) echo "ok 2 - image.feature" ;;
esac
echo "ok 3 - image.clock"
case "$img" in
*regress*) echo "# metric probe_ms 180 ms" ;;
*) echo "# metric probe_ms 100 ms" ;;
esac
%(noise)s
exit 0
"""


def command_board(name, deployed):
    return ('  - name: %s\n    arch: %s\n    tags: [local, rack]\n'
            '    transport: {type: local}\n'
            '    boot:\n      method: command\n'
            "      deploy: 'cp \"$LABMESH_INITRD\" %s.$$ && mv %s.$$ %s'\n"
            "      power_cycle: 'true'\n      timeout: 30\n"
            '      boot_timeout: 30\n' % (name, os.uname().machine, deployed,
                                     deployed, deployed))


def cached_board(root):
    """The QEMU x86_64 test board when scripts/mkboard has built it (this
    test does not spend minutes building it), else None."""
    cache = os.environ.get('LABMESH_CACHE') or os.path.expanduser(
        '~/.cache/labmesh')
    try:
        env = open(os.path.join(cache, 'boards', 'x86_64',
                                'board.env')).read().split('\n')
        mk = open(os.path.join(root, 'scripts', 'mkboard')).read()
    except OSError:
        return None
    layout = re.search(r'^LAYOUT=\d+$', mk, re.M)
    if not layout or layout.group(0) not in env:
        return None  # missing or out of date: mkboard would rebuild it
    return jobstest.board_dir(root)


def cpio_newc(files):
    """An uncompressed newc archive of (path, mode, data) entries."""
    out = b''
    for ino, (path, mode, data) in enumerate(files + [('TRAILER!!!', 0,
                                                        b'')]):
        name = path.encode() + b'\0'
        hdr = '070701' + ''.join('%08X' % v for v in (
            ino + 1, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name), 0))
        ent = hdr.encode() + name
        ent += b'\0' * (-len(ent) % 4) + data
        out += ent + b'\0' * (-len(ent) % 4)
    return out


class RealNet:
    """The labs, started; submit() and wait() for the two requests."""

    def __init__(self, net, zmq_port, http_port):
        """net: a jobstest.Net (its root: the source tree)."""
        self.root = net.root
        self.http_port = http_port
        self.net = net
        self.board = cached_board(self.root)  # None: no QEMU lab
        if not self.board:
            print('no QEMU test board (scripts/mkboard): the QEMU lab is'
                  ' left out')
        self.labs = {}
        prev = None
        layout = [('hq', ['hq-host']), ('lab-a', ['rack-a1', 'rack-a2']),
                  ('lab-b', ['rack-b1']), ('lab-q', ['qemu-q']),
                  ('lab-x', ['xss-board'])]
        for i, (name, boards) in enumerate(layout):
            if name == 'lab-q' and not self.board:
                continue
            # the pages show each board's one run of a commit: no
            # confirmation re-runs of the regression planted here
            n = self.net.node(name, zmq_port + i, [],
                              'policy:\n  confirm: {reruns: 0}\n',
                              seeds=[prev] if prev else [])
            dep = os.path.join(n.home, 'deployed')
            self.suites_dir(n, dep, hostile=name == 'lab-x')
            if name == 'hq':
                n.boards = [jobstest.local_board('hq-host', ('hq',))]
            elif name == 'lab-q':
                n.boards = [jobstest.qemu_board('qemu-q', self.board)]
            else:
                n.boards = [command_board(b, dep) for b in boards]
            self.labs[name] = n
            prev = n
        self.boards = sorted((lab, b) for lab, bs in layout
                             if lab in self.labs and lab != 'hq'
                             for b in bs)
        self.hq = self.labs['hq']
        self.requests = []

    def suites_dir(self, n, deployed, hostile):
        d = os.path.join(n.home, 'suites')
        os.makedirs(os.path.join(d, 'probe'))
        for s in CATALOG:
            os.symlink(os.path.join(self.root, 'suites', s),
                       os.path.join(d, s))
        with open(os.path.join(d, 'probe', 'suite.yaml'), 'w') as f:
            f.write(PROBE_YAML)
        noise = ''
        if hostile:
            noise = ("echo '%s in the output' >&2\necho '# %s'" %
                     (XSS_MSG, XSS_MSG))
        with open(os.path.join(d, 'probe', 'run.sh'), 'w') as f:
            f.write(PROBE_SH % {'deployed': deployed, 'marker': MARKER,
                                'msg': ': ' + XSS_MSG if hostile else '',
                                'noise': noise})
        os.chmod(os.path.join(d, 'probe', 'run.sh'), 0o755)
        n.env['LABMESH_SUITES'] = d

    def start_node(self, n, http=None):
        n.start(args=['--http', '127.0.0.1:%d' % http] if http else [])

    def start(self):
        for n in self.labs.values():
            self.start_node(n, self.http_port if n is self.hq else None)
        wait_for('every advert on hq', lambda: len(json.loads(
            self.hq.cli('--json', 'boards').stdout)) ==
            len(self.boards) + 1, 60, 0.2)
        for n in self.labs.values():
            wait_for('%s connected' % n.name, lambda: any(
                p['state'] == 'up' for p in json.loads(n.cli(
                    '--json', 'peers').stdout)), 30, 0.2)

    def initrd(self, i):
        """The board's initrd (or a stand-in without QEMU) with a marker
        file appended as one more archive, as the kernel reads them."""
        path = os.path.join(self.net.dir, 'initrd-%d.img' % i)
        base = b''
        if self.board:
            with open(self.board['INITRD'], 'rb') as f:
                base = f.read()
        base += b'\0' * (-len(base) % 4)  # archives start 4-aligned
        text = 'labmesh test image %d: %s\n' % (i, 'regress' if i
                                                else 'good')
        with open(path, 'wb') as f:
            f.write(base + cpio_newc([('etc', 0o40755, b''),
                                      (MARKER, 0o100644, text.encode())]))
        return path

    def submit(self, i):
        a = self.labs['lab-a']
        if self.board:
            kernel = self.board['KERNEL']
        else:
            kernel = os.path.join(self.net.dir, 'vmlinuz')
            with open(kernel, 'wb') as f:
                f.write(b'not a kernel: boards that boot nothing\n')
        p = a.cli('submit', '--kernel', kernel, '--initrd', self.initrd(i),
                  '--describe', DESCRIBES[i],
                  '--git', 'https://git.example.org/linux.git',
                  '--branch', BRANCHES[i], '--commit', COMMITS[i],
                  '--config', 'defconfig', '--suite', SUITES,
                  '--arch', os.uname().machine, '--json')
        req = json.loads(p.stdout)['request']
        self.requests.append(req)
        return req

    def done(self, req):
        st = self.hq.req_status(req)
        if not st or not st['done']:
            return None
        return st

    def wait(self, req, timeout=300):
        return wait_for('request %s done as hq sees it' % req[:12],
                        lambda: self.done(req), timeout, 0.5)[0]

    def close(self):
        self.net.close()
