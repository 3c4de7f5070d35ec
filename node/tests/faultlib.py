"""faultlib: what the fault-injection tests share. Real `labmesh node`
processes with local boards, started directly, inside a network namespace
(`ip netns exec`), or under a skewed clock (libfaketime); a submitter key;
and the checks every fault test ends with: each store passes `labmesh
store check`, each feed is contiguous and free of duplicates, each job is
in a final state.

Ports come from 19500-19999. Namespaces made here are named lmf-* and are
removed by Netns.close() (call it in a finally block)."""
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

from lmtest import Fail, check, port_free, stop_process  # noqa: F401

SKIP = 77
LONG = os.environ.get('LM_TEST_LONG') == '1'
FAKETIME_LIBS = ('/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
                 '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1')


class Skip(Exception):
    pass


def wait_for(what, fn, timeout, step=0.1):
    """Poll fn() until it returns a true value; return (value, seconds)."""
    t0 = time.time()
    last = None
    while True:
        try:
            v = fn()
            if v:
                return v, time.time() - t0
        except (Fail, OSError, ValueError, sqlite3.Error) as e:
            last = e
        if time.time() - t0 > timeout:
            raise Fail('%s: not within %.1f s (%s)' % (what, timeout, last))
        time.sleep(step)


def port_block(want, size=10):
    """A block of free loopback ports in 19500-19999, want's if free."""
    blocks = [want] + random.sample(range(19500, 20000 - size, size), 40)
    for b in blocks:
        if all(port_free(b + i) for i in range(size)):
            return b
    raise Fail('no free block of ports in 19500-19999')


def local_board(name):
    return ('  - {name: %s, arch: %s, tags: [local], transport: {type: local},'
            ' boot: {method: none}}\n' % (name, os.uname().machine))


class Net:
    def __init__(self, labmesh):
        self.labmesh = os.path.abspath(labmesh)
        self.dir = tempfile.mkdtemp(prefix='lm-fault-')
        os.chmod(self.dir, 0o755)
        self.nodes = []
        self.env = dict(os.environ)
        self.env['XDG_CONFIG_HOME'] = os.path.join(self.dir, 'config')
        self.env.pop('LABMESH_HOME', None)
        for k in ('LD_PRELOAD', 'FAKETIME'):
            self.env.pop(k, None)
        self.run('keygen')

    def run(self, *args, check_rc=True, timeout=60):
        p = subprocess.run([self.labmesh] + list(args), capture_output=True,
                           text=True, timeout=timeout, env=self.env)
        if check_rc and p.returncode != 0:
            raise Fail('labmesh %s: exit %d: %s%s' % (' '.join(args),
                       p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
        return p

    def node(self, name, port, **kw):
        n = Node(self, name, port, **kw)
        self.nodes.append(n)
        return n

    def close(self):
        for n in self.nodes:
            n.resume()
            n.kill()
        if os.environ.get('LM_KEEP'):
            sys.stderr.write('kept %s\n' % self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


class Node:
    """A node with local boards. host: the address it listens on (inside
    netns when given); home: a directory of the test's choosing (a small
    filesystem); skew: a libfaketime offset such as '+5h'."""

    def __init__(self, net, name, port, seeds=(), boards=None, host=None,
                 netns=None, home=None, skew=None, max_peers=8, extra=''):
        self.net, self.name, self.port = net, name, port
        self.home = home or os.path.join(net.dir, name)
        os.makedirs(self.home, mode=0o700, exist_ok=True)
        self.id = net.run('--home', self.home, 'id').stdout.strip()
        self.endpoint = 'tcp://%s:%d' % (host or '127.0.0.1', port)
        self.seeds = list(seeds)
        self.boards = boards if boards is not None else [name + '-host']
        self.netns, self.skew, self.max_peers = netns, skew, max_peers
        self.extra = extra
        self.proc = None
        self.paused = False
        self.logpath = os.path.join(net.dir, name + '.log')
        self.cfg = os.path.join(net.dir, name + '.yaml')

    def write_config(self):
        text = ('lab: {name: %s}\nnode:\n  listen: "%s"\n  max_peers: %d\n' %
                (self.name, self.endpoint, self.max_peers))
        if self.seeds:
            text += '  seeds:\n' + ''.join(
                '    - {endpoint: "%s", key: %s}\n' % (s.endpoint, s.id)
                for s in self.seeds)
        text += self.extra
        text += 'boards:\n' + ''.join(local_board(b) for b in self.boards)
        with open(self.cfg, 'w') as f:
            f.write(text)

    def argv(self):
        a = [self.net.labmesh, 'node', '--home', self.home, '--config',
             self.cfg, '--log-level', os.environ.get('LM_LOG_LEVEL', 'info')]
        if self.netns:
            a = ['ip', 'netns', 'exec', self.netns] + a
        return a

    def environ(self):
        env = dict(self.net.env)
        if self.skew:
            lib = [p for p in FAKETIME_LIBS if os.path.exists(p)]
            if not lib:
                raise Skip('libfaketime is not installed (Debian faketime)')
            env['LD_PRELOAD'] = lib[0]
            env['FAKETIME'] = self.skew
            env['FAKETIME_NO_CACHE'] = '1'
        return env

    def start(self, wait=True):
        self.write_config()
        logf = open(self.logpath, 'a')
        self.proc = subprocess.Popen(self.argv(), stdout=logf, stderr=logf,
                                     env=self.environ(),
                                     start_new_session=True)
        logf.close()
        self.paused = False
        if wait:
            wait_for('%s starts' % self.name, self._started, 20)
        return self

    def _started(self):
        if self.proc.poll() is not None:
            raise Fail('%s exited: %s' % (self.name, self.tail()))
        return self.cli('peers', check_rc=False).returncode == 0

    def cli(self, *args, **kw):
        return self.net.run('--home', self.home, *args, **kw)

    def json(self, *args):
        return json.loads(self.cli('--json', *args).stdout)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self, sig=signal.SIGKILL):
        """SIGKILL by default: the crash under test. The executor children
        die with the node (parent-death signal); its group is swept too."""
        if self.proc is None:
            return
        stop_process(self.proc, sig, 20)
        self.proc = None

    def stop(self):
        self.kill(signal.SIGTERM)

    def pause(self):
        if self.alive() and not self.paused:
            self.proc.send_signal(signal.SIGSTOP)
            self.paused = True

    def resume(self):
        if self.alive() and self.paused:
            self.proc.send_signal(signal.SIGCONT)
        self.paused = False

    def tail(self, n=3000):
        try:
            with open(self.logpath, errors='replace') as f:
                return f.read()[-n:]
        except OSError:
            return ''

    def logtext(self):
        return self.tail(1 << 30)

    def status(self):
        return self.json('debug', 'status')

    def peers(self):
        return self.json('peers')

    def peers_up(self):
        return sum(1 for p in self.peers() if p['state'] == 'up')

    def feeds(self):
        return {f['author']: f for f in self.json('debug', 'feeds')}

    def seq(self, author):
        f = self.feeds().get(author)
        return f['seq'] if f else 0

    def submit(self, *args):
        p = self.cli('submit', '--suite', 'smoke', *args)
        return p.stdout.split()[1]

    def req_status(self, req):
        p = self.cli('--json', 'status', req, check_rc=False)
        return json.loads(p.stdout) if p.returncode == 0 else None

    def db(self):
        """A read-only look at store.db (WAL: safe beside a live node)."""
        return sqlite3.connect('file:%s?mode=ro' %
                               os.path.join(self.home, 'store.db'), uri=True,
                               timeout=10)

    def record_ids(self):
        db = self.db()
        try:
            return set(r[0] for r in db.execute('SELECT id FROM records'))
        finally:
            db.close()


def store_check(net, node):
    """`labmesh store check` plus the feed shape: every author's seqs are
    1..N once each, ids unique, SQLite integrity ok. Returns the number of
    records checked. The node must be stopped."""
    p = net.run('--home', node.home, 'store', 'check', check_rc=False)
    check(p.returncode == 0, '%s: store check: %s%s' % (
        node.name, p.stdout[-2000:], p.stderr[-1000:]))
    db = sqlite3.connect(os.path.join(node.home, 'store.db'))
    try:
        check(db.execute('PRAGMA integrity_check').fetchone()[0] == 'ok',
              '%s: integrity_check' % node.name)
        total = 0
        for author, cnt, mn, mx, dist in db.execute(
                'SELECT author, COUNT(*), MIN(seq), MAX(seq),'
                ' COUNT(DISTINCT seq) FROM records GROUP BY author'):
            check(mn == 1 and mx == cnt and dist == cnt,
                  '%s: feed %s not 1..N once each: %r' % (
                      node.name, author.hex()[:12], (cnt, mn, mx, dist)))
            total += cnt
        ids = db.execute('SELECT COUNT(DISTINCT id), COUNT(*) FROM records'
                         ).fetchone()
        check(ids[0] == ids[1], '%s: duplicate record ids' % node.name)
        for author, seq in db.execute('SELECT author, seq FROM feeds'):
            n = db.execute('SELECT MAX(seq) FROM records WHERE author = ?',
                           (author,)).fetchone()[0] or 0
            check(n == seq, '%s: feed head %d, records to %d' % (
                node.name, seq, n))
    finally:
        db.close()
    return total


def stop_and_check_equal(net, nodes):
    """Stop every node, run store_check on each, and check that all hold
    the same number of records; returns that number."""
    for n in nodes:
        n.stop()
    counts = [store_check(net, n) for n in nodes]
    check(len(set(counts)) == 1, 'record counts differ: %s' % counts)
    print('records checked: %d x %d stores, store check ok on all' %
          (counts[0], len(nodes)))
    return counts[0]


def leftovers(home, keep=()):
    """Processes other than keep whose command line names home."""
    out = subprocess.run(['pgrep', '-f', '--', home], capture_output=True,
                         text=True).stdout.split()
    return [int(p) for p in out if int(p) not in keep and
            int(p) != os.getpid()]


class Netns:
    """Network namespaces lmf-<tag>-<i>, each with one veth into a bridge
    in the namespace lmf-<tag>-br; a partition moves some bridge ports to
    a second bridge (a real cut: no packet crosses), heal moves them back."""

    def __init__(self, tag, n, subnet='10.231.%d.%d'):
        self.tag, self.n = tag, n
        self.br = 'lmf-%s-br' % tag
        self.names = ['lmf-%s-%d' % (tag, i) for i in range(n)]
        self.subnet = subnet
        self.made = []
        self.lan = random.randrange(1, 250)

    def addr(self, i):
        return self.subnet % (self.lan, i + 1)

    def _ip(self, *args, ns=None):
        cmd = ['ip'] + (['-n', ns] if ns else []) + list(args)
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise Fail('%s: %s' % (' '.join(cmd), p.stderr.strip()))

    def setup(self):
        if os.geteuid() != 0:
            raise Skip('network namespaces need root')
        if not shutil.which('ip'):
            raise Skip('iproute2 (ip) is not installed')
        self.cleanup()  # leftovers of an earlier run that was killed
        try:
            for ns in [self.br] + self.names:
                self._ip('netns', 'add', ns)
                self.made.append(ns)
                self._ip('link', 'set', 'lo', 'up', ns=ns)
            for b in ('b0', 'b1'):
                self._ip('link', 'add', b, 'type', 'bridge', ns=self.br)
                self._ip('link', 'set', b, 'up', ns=self.br)
            for i, ns in enumerate(self.names):
                self._ip('link', 'add', 'p%d' % i, 'netns', self.br, 'type',
                         'veth', 'peer', 'name', 'eth0', 'netns', ns)
                self._ip('link', 'set', 'p%d' % i, 'master', 'b0', 'up',
                         ns=self.br)
                self._ip('addr', 'add', self.addr(i) + '/24', 'dev', 'eth0',
                         ns=ns)
                self._ip('link', 'set', 'eth0', 'up', ns=ns)
        except Fail as e:
            self.cleanup()
            raise Skip('cannot build the namespaces: %s' % e)

    def partition(self, side):
        """Ports of the nodes in side go to bridge b1: cut from the rest."""
        for i in side:
            self._ip('link', 'set', 'p%d' % i, 'master', 'b1', ns=self.br)

    def heal(self):
        for i in range(self.n):
            self._ip('link', 'set', 'p%d' % i, 'master', 'b0', ns=self.br)

    def cleanup(self):
        for ns in [self.br] + self.names:
            subprocess.run(['ip', 'netns', 'del', ns], capture_output=True)
        self.made = []


def main(test):
    """Run test(net); PASS is exit 0, Skip is 77 (meson: skipped)."""
    net = Net(sys.argv[1])
    rc = 1
    try:
        test(net)
        rc = 0
    except Skip as e:
        print('SKIP:', e)
        rc = SKIP
    except Fail as e:
        print('FAIL:', e)
        for n in net.nodes:
            print('--- log of %s' % n.name)
            print(n.tail(4000))
    finally:
        net.close()
    sys.exit(rc)
