"""lmtest: start and stop real `labmesh node` processes on loopback with
temporary homes, and poll their --json outputs with deadlines.

Used by the node integration tests; each test is a small python3 script
given the labmesh binary as its first argument."""
import json
import os
import shutil
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def stop_process(proc, sig=signal.SIGTERM, timeout=10):
    """Send sig to a running child, wait for it, and SIGKILL it if it is
    still there after timeout seconds."""
    if proc and proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def rss_kib(pid):
    """VmRSS of a process in KiB, -1 when it cannot be read."""
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return -1


class Node:
    def __init__(self, net, name, port, seeds=(), trust=None, max_peers=8,
                 boards=None):
        self.net = net
        self.name = name
        self.port = port
        self.home = os.path.join(net.dir, name)
        os.makedirs(self.home, mode=0o700, exist_ok=True)
        self.id = net.run('--home', self.home, 'id').strip()
        self.endpoint = 'tcp://127.0.0.1:%d' % port
        self.seeds = list(seeds)
        self.trust = trust
        self.max_peers = max_peers
        self.boards = boards or [{'name': name + '-board', 'arch': 'x86_64',
                                  'tags': ['t-' + name]}]
        self.proc = None
        self.log = os.path.join(self.home, 'node.log')

    def config(self):
        lines = ['lab: {name: %s}' % self.name, 'node:',
                 '  listen: "%s"' % self.endpoint,
                 '  max_peers: %d' % self.max_peers]
        if self.seeds:
            lines.append('  seeds:')
            for s in self.seeds:
                lines.append('    - {endpoint: "%s", key: %s}' %
                             (s.endpoint, s.id))
        if self.trust is not None:
            lines.append('  trust: [%s]' % ', '.join(t.id for t in self.trust))
        lines.append('boards:')
        for b in self.boards:
            lines.append('  - {name: %s, arch: %s, tags: [%s], transport: '
                         '{type: local}, boot: {method: none}}' %
                         (b['name'], b['arch'], ', '.join(b.get('tags', []))))
        path = os.path.join(self.home, 'lab.yaml')
        with open(path, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        return path

    def start(self, level='info', program=None):
        cfg = self.config()
        logf = open(self.log, 'a')
        if program:  # a test build of the node (tamper_relay HOME CONFIG)
            argv = [program, self.home, cfg]
        else:
            argv = [self.net.labmesh, 'node', '--home', self.home,
                    '--config', cfg, '--log-level', level]
        self.proc = subprocess.Popen(argv, stdout=logf, stderr=logf)
        logf.close()
        deadline = time.time() + 10
        while time.time() < deadline:
            if os.path.exists(os.path.join(self.home, 'ctl')):
                try:
                    self.status()
                    return self
                except Fail:
                    pass
            if self.proc.poll() is not None:
                raise Fail('%s exited: %s' % (self.name, self.logtext()))
            time.sleep(0.05)
        raise Fail('%s did not start' % self.name)

    def stop(self):
        stop_process(self.proc)
        self.proc = None

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def logtext(self):
        with open(self.log, errors='replace') as f:
            return f.read()

    def cmd(self, *args):
        return self.net.run('--home', self.home, *args)

    def json(self, *args):
        return json.loads(self.net.run('--home', self.home, '--json', *args))

    def status(self):
        return self.json('debug', 'status')

    def peers(self):
        return self.json('peers')

    def boards_json(self):
        return self.json('boards')

    def feeds(self):
        return {f['author']: f for f in self.json('debug', 'feeds')}

    def rss_kib(self):
        return rss_kib(self.proc.pid)


def port_free(port, reuse=False):
    """Whether a loopback TCP port can be bound now; reuse=True binds as
    libzmq does (SO_REUSEADDR: a port in TIME_WAIT counts as free)."""
    s = socket.socket()
    try:
        if reuse:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(('127.0.0.1', port))
        return True
    except OSError:
        return False
    finally:
        s.close()


class Net:
    def __init__(self, labmesh, tools=()):
        self.labmesh = os.path.abspath(labmesh)
        self.tools = [os.path.abspath(t) for t in tools]
        self.dir = tempfile.mkdtemp(prefix='lm-')
        self.nodes = []

    def base(self, want):
        """A block of 10 free loopback ports in 17000-17999: want's block
        if it is free, else another, so copies of the tests running at the
        same time (other worktrees) do not collide."""
        blocks = [want] + random.sample(range(17000, 17990, 10), 99)
        for b in blocks:
            if all(port_free(b + i) for i in range(10)):
                return b
        raise Fail('no free block of ports in 17000-17999')

    def run(self, *args, timeout=30):
        p = subprocess.run([self.labmesh] + list(args), capture_output=True,
                           text=True, timeout=timeout)
        if p.returncode != 0:
            raise Fail('labmesh %s: %s' % (' '.join(args), p.stderr.strip()))
        return p.stdout

    def node(self, name, port, **kw):
        n = Node(self, name, port, **kw)
        self.nodes.append(n)
        return n

    def close(self, keep=False):
        for n in self.nodes:
            n.stop()
        if not keep:
            shutil.rmtree(self.dir, ignore_errors=True)


def wait_for(what, fn, timeout):
    """Poll fn() until it returns a true value; return (value, seconds)."""
    t0 = time.time()
    last = None
    while True:
        try:
            v = fn()
            if v:
                return v, time.time() - t0
        except Fail as e:
            last = e
        if time.time() - t0 > timeout:
            raise Fail('%s: not within %.1f s (%s)' % (what, timeout, last))
        time.sleep(0.05)


def main(test):
    """Run test(net) with the binary from argv; print PASS/FAIL."""
    net = Net(sys.argv[1], sys.argv[2:])
    ok = False
    try:
        test(net)
        ok = True
    except Fail as e:
        print('FAIL:', e)
        for n in net.nodes:
            print('--- log of %s' % n.name)
            print(n.logtext()[-4000:])
    finally:
        net.close(keep=not ok and os.environ.get('LM_KEEP') == '1')
    sys.exit(0 if ok else 1)
