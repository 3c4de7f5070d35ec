"""faultlib: what the fault-injection tests share. Real `labmesh node`
processes with local boards, started directly, inside a network namespace
(`ip netns exec`), or under a skewed clock (libfaketime); a submitter key;
and the checks every fault test ends with: each store passes `labmesh
store check`, each feed is contiguous and free of duplicates, each job is
in a final state.

Net and Node are lmtest's, with these additions; main() is lmtest's
on this Net. Ports come from 19500-19999. Namespaces made here are
named lmf-* and are removed by Netns.close() (call it in a finally
block)."""
import os
import random
import shutil
import signal
import sqlite3
import subprocess

import lmtest
from lmtest import (Fail, Skip, check, local_board,  # noqa: F401
                    port_free, stop_process, wait_for)

LONG = os.environ.get('LM_TEST_LONG') == '1'
FAKETIME_LIBS = ('/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
                 '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1')


def port_block(want, size=10):
    """A block of free loopback ports in 19500-19999, want's if free."""
    return lmtest.port_block(want, 19500, 20000, size)


class Node(lmtest.Node):
    """A node with local boards. boards: their names; host: the address
    it listens on (inside netns when given); home: a directory of the
    test's choosing (a small filesystem: the log and lab file stay in the
    net's directory); skew: a libfaketime offset such as '+5h'. Killed
    (SIGKILL), not stopped, when the net closes."""

    new_session = True
    start_timeout = 20
    close_signal = signal.SIGKILL

    def __init__(self, net, name, port, seeds=(), boards=None, host=None,
                 netns=None, home=None, skew=None, max_peers=8, extra=''):
        names = boards if boards is not None else [name + '-host']
        super().__init__(net, name, port, seeds=seeds, max_peers=max_peers,
                         boards=[local_board(b) for b in names],
                         extra=extra, host=host, home=home)
        self.netns, self.skew = netns, skew
        self.log = os.path.join(net.dir, name + '.log')
        self.cfg = os.path.join(net.dir, name + '.yaml')

    def argv(self, level):
        a = super().argv(level)
        if self.netns:
            a = ['ip', 'netns', 'exec', self.netns] + a
        return a

    def environ(self):
        env = super().environ() or dict(os.environ)
        if self.skew:
            lib = [p for p in FAKETIME_LIBS if os.path.exists(p)]
            if not lib:
                raise Skip('libfaketime is not installed (Debian faketime)')
            env['LD_PRELOAD'] = lib[0]
            env['FAKETIME'] = self.skew
            env['FAKETIME_NO_CACHE'] = '1'
        return env

    def submit(self, *args):
        p = self.cli('submit', '--suite', 'smoke', *args)
        return p.stdout.split()[1]

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


class Net(lmtest.Net):
    """A net with its own submitter key and no faketime of the caller's."""
    prefix = 'lm-fault-'
    node_class = Node
    run_timeout = 60

    def __init__(self, labmesh, tools=()):
        super().__init__(labmesh, tools)
        os.chmod(self.dir, 0o755)
        self.own_key()
        for k in ('LD_PRELOAD', 'FAKETIME'):
            self.env.pop(k, None)


def store_check(net, node):
    """`labmesh store check` plus the feed shape: every author's seqs are
    1..N once each, ids unique, SQLite integrity ok. Returns the number of
    records checked. The node must be stopped."""
    p = node.cli('store', 'check', check_rc=False)
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
    """lmtest.main(test) on a faultlib Net."""
    lmtest.main(test, Net)
