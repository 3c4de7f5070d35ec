"""lmtest: start and stop real `labmesh node` processes on loopback with
temporary homes, and poll their --json outputs with deadlines.

The one library of the node integration tests: Fail, Skip, check,
wait_for, Net, Node and main() live here. jobstest (QEMU boards, build
recipes, process tags), faultlib (namespaces, skewed clocks, store
checks), dashlib and dashreal (the dashboard) subclass Net and Node or
add functions over them. Each test is a small python3 script given the
labmesh binary as its first argument; main() runs it."""
import json
import os
import shutil
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

SKIP = 77  # meson: the test was skipped
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


class Fail(Exception):
    pass


class Skip(Exception):
    """The test cannot run here (no root, no QEMU, ...): exit 77."""


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


BROWSER = shutil.which('chromium')  # Debian's; None when not installed


def chromium(url, *mode, size='1400,1000', timeout=120):
    """Debian's chromium, headless, on url with the extra arguments mode
    (--dump-dom: the DOM the page's script made; --screenshot=F): its
    stdout. Fail unless it exits 0. Callers check BROWSER first."""
    prof = tempfile.mkdtemp(prefix='lm-chromium-')
    try:
        p = subprocess.run(
            [BROWSER, '--headless', '--no-sandbox', '--disable-gpu',
             '--disable-quic', '--no-first-run',
             '--disable-background-networking', '--disable-component-update',
             '--disable-sync', '--disable-extensions', '--hide-scrollbars',
             '--user-data-dir=' + prof, '--virtual-time-budget=3000',
             '--window-size=' + size] + list(mode) + [url],
            capture_output=True, timeout=timeout)
    finally:
        shutil.rmtree(prof, ignore_errors=True)
    check(p.returncode == 0, 'chromium %s: exit %d %s' % (
        url, p.returncode, p.stderr.decode(errors='replace')[-500:]))
    return p.stdout.decode('utf-8', errors='replace')


def wait_for(what, fn, timeout=60, step=0.05):
    """Poll fn() until it returns a true value; return (value, seconds).
    Fail, OSError, ValueError (half-written JSON) and sqlite3.Error from
    fn count as "not yet"; the last one is named when time runs out."""
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


def port_block(want, lo=17000, hi=18000, size=10):
    """A block of size free loopback ports in lo..hi-1: want's block if it
    is free, else another, so copies of the tests running at the same
    time (other checkouts) do not collide."""
    others = list(range(lo, hi - size + 1, size))
    random.shuffle(others)
    for b in [want] + others:
        if all(port_free(b + i) for i in range(size)):
            return b
    raise Fail('no free block of ports in %d-%d' % (lo, hi - 1))


def local_board(name, tags=('local',), arch=None):
    """A lab file's board entry: a `local` board that boots nothing."""
    return ('  - {name: %s, arch: %s, tags: [%s], transport: {type: local},'
            ' boot: {method: none}}\n' % (name, arch or os.uname().machine,
                                          ', '.join(tags)))


class Node:
    """One `labmesh node` with its home and lab file. boards: lab file
    entries, each a dict (name, arch, tags: a local board) or the text of
    an entry (local_board(), jobstest.qemu_board()); extra: more lab file
    text, written before the boards; env: variables for the node only."""

    new_session = False   # start the node in a session of its own
    start_timeout = 10    # seconds to answer on its control socket
    close_signal = signal.SIGTERM  # what Net.close() stops it with

    def __init__(self, net, name, port, seeds=(), trust=None, max_peers=8,
                 boards=None, extra='', host=None, home=None):
        self.net = net
        self.name = name
        self.port = port
        self.home = home or os.path.join(net.dir, name)
        os.makedirs(self.home, mode=0o700, exist_ok=True)
        self.id = net.run('--home', self.home, 'id').stdout.strip()
        self.endpoint = 'tcp://%s:%d' % (host or '127.0.0.1', port)
        self.seeds = list(seeds)
        self.trust = trust
        self.max_peers = max_peers
        self.boards = boards if boards is not None else [
            {'name': name + '-board', 'arch': 'x86_64',
             'tags': ['t-' + name]}]
        self.extra = extra
        self.env = {}
        self.proc = None
        self.paused = False
        self.log = os.path.join(self.home, 'node.log')
        self.cfg = os.path.join(self.home, 'lab.yaml')

    def config(self):
        """Write the lab file; return its path."""
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
        text = '\n'.join(lines) + '\n' + self.extra + 'boards:\n'
        for b in self.boards:
            if isinstance(b, dict):
                b = local_board(b['name'], b.get('tags', []), b['arch'])
            text += b
        with open(self.cfg, 'w') as f:
            f.write(text)
        return self.cfg

    def argv(self, level):
        return [self.net.labmesh, 'node', '--home', self.home, '--config',
                self.cfg, '--log-level', level]

    def environ(self):
        """The node's environment; None: the test's own."""
        if self.net.env is None and not self.env:
            return None
        env = dict(os.environ if self.net.env is None else self.net.env)
        env.update(self.env)
        return env

    def start(self, level=None, program=None, args=(), wait=True):
        """Start the node (program: a test build of the node, run as
        program HOME CONFIG; args: more options of `labmesh node`) and,
        with wait, return once it answers on its control socket."""
        self.config()
        if program:
            argv = [program, self.home, self.cfg]
        else:
            argv = self.argv(level or os.environ.get('LM_LOG_LEVEL', 'info'))
        logf = open(self.log, 'a')
        self.proc = subprocess.Popen(argv + list(args), stdout=logf,
                                     stderr=logf, env=self.environ(),
                                     start_new_session=self.new_session)
        logf.close()
        self.paused = False
        if not wait:
            return self
        deadline = time.time() + self.start_timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise Fail('%s exited: %s' % (self.name, self.tail()))
            if self.cli('--json', 'debug', 'status', check_rc=False,
                        timeout=10).returncode == 0:
                return self
            time.sleep(0.05)
        raise Fail('%s did not start: %s' % (self.name, self.tail()))

    def stop(self, sig=signal.SIGTERM):
        stop_process(self.proc, sig, 20)
        self.proc = None

    def kill(self, sig=signal.SIGKILL):
        """SIGKILL by default: a crash."""
        self.stop(sig)

    def pause(self):
        if self.alive() and not self.paused:
            self.proc.send_signal(signal.SIGSTOP)
            self.paused = True

    def resume(self):
        if self.alive() and self.paused:
            self.proc.send_signal(signal.SIGCONT)
        self.paused = False

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def tail(self, n=3000):
        """The end of the node's log ('' when there is none)."""
        try:
            with open(self.log, errors='replace') as f:
                return f.read()[-n:]
        except OSError:
            return ''

    def logtext(self):
        return self.tail(1 << 30)

    def cli(self, *args, **kw):
        """`labmesh --home HOME ARGS`: the CompletedProcess (Net.run)."""
        return self.net.run('--home', self.home, *args, **kw)

    def cmd(self, *args):
        """`labmesh --home HOME ARGS`: its output; Fail unless exit 0."""
        return self.cli(*args).stdout

    def json(self, *args):
        return json.loads(self.cmd('--json', *args))

    def status(self):
        return self.json('debug', 'status')

    def req_status(self, req):
        """`labmesh status REQ` as JSON, None when it fails."""
        p = self.cli('--json', 'status', req, check_rc=False)
        return json.loads(p.stdout) if p.returncode == 0 else None

    def peers(self):
        return self.json('peers')

    def peers_up(self):
        return sum(1 for p in self.peers() if p['state'] == 'up')

    def boards_json(self):
        return self.json('boards')

    def feeds(self):
        return {f['author']: f for f in self.json('debug', 'feeds')}

    def seq(self, author):
        f = self.feeds().get(author)
        return f['seq'] if f else 0

    def seqs_except(self, ids):
        """{author: seq} of the feeds held, but those of ids."""
        return {k: v['seq'] for k, v in self.feeds().items() if k not in ids}

    def sent(self, kind):
        """(messages, payload bytes) sent of a message kind."""
        k = self.status()['sent_by_kind'][kind]
        return k['msgs'], k['bytes']

    def rss_kib(self):
        return rss_kib(self.proc.pid)

    def memory(self):
        """Where its memory is (`debug status`), or why that is not
        known: said beside a memory bound that failed."""
        try:
            return self.status().get('memory')
        except Exception as e:  # the failure being reported matters more
            return 'status: %s' % e


class Net:
    """A temporary directory for the nodes' homes, and the labmesh binary
    (tools: the test's other arguments). env None: the nodes and commands
    get the test's environment; own_key() gives them one of their own."""

    prefix = 'lm-'
    node_class = Node
    run_timeout = 30  # seconds for one labmesh command

    def __init__(self, labmesh, tools=()):
        self.labmesh = os.path.abspath(labmesh)
        self.tools = [os.path.abspath(t) for t in tools]
        self.root = ROOT
        self.dir = tempfile.mkdtemp(prefix=self.prefix)
        self.nodes = []
        self.env = None
        self.submitter = None

    def own_key(self):
        """A configuration directory (XDG_CONFIG_HOME) in the net with a
        new submitter key; no LABMESH_HOME from the caller."""
        self.env = dict(os.environ)
        self.env['XDG_CONFIG_HOME'] = os.path.join(self.dir, 'config')
        self.env.pop('LABMESH_HOME', None)
        self.run('keygen')
        with open(os.path.join(self.dir, 'config', 'labmesh',
                               'key.pub')) as f:
            self.submitter = f.read().split()[-1]

    def base(self, want):
        """A block of 10 free loopback ports in 17000-17999 (port_block)."""
        return port_block(want)

    def run(self, *args, check_rc=True, timeout=None, env=None, text=True):
        """Run labmesh ARGS; the CompletedProcess. Fail on a non-zero exit
        unless check_rc is False."""
        p = subprocess.run([self.labmesh] + list(args), capture_output=True,
                           text=text, timeout=timeout or self.run_timeout,
                           env=env or self.env)
        if check_rc and p.returncode != 0:
            out, err = p.stdout, p.stderr
            if not text:
                out, err = (out.decode(errors='replace'),
                            err.decode(errors='replace'))
            raise Fail('labmesh %s: exit %d: %s%s' % (
                ' '.join(args), p.returncode, out[-3000:],
                err.strip()[-3000:]))
        return p

    def node(self, name, port, **kw):
        n = self.node_class(self, name, port, **kw)
        self.nodes.append(n)
        return n

    def close(self):
        """Stop every node (the directory stays: remove())."""
        for n in self.nodes:
            n.resume()
            n.stop(n.close_signal)

    def remove(self, keep=False):
        if keep:
            sys.stderr.write('kept %s\n' % self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


def main(test, net_class=Net):
    """Run test(net) on net_class(argv[1], argv[2:]) and exit: 0 when it
    returns (or its own non-zero return), 77 on Skip, 1 with a `FAIL:`
    line and the end of every node's log on Fail. LM_KEEP=1 keeps the
    directory of a test that did not pass, LM_KEEP=always of any test."""
    rc = 1
    net = None
    try:
        net = net_class(sys.argv[1], sys.argv[2:])
        rc = test(net) or 0
    except Skip as e:
        print('SKIP:', e)
        rc = SKIP
    except Fail as e:
        print('FAIL:', e)
        for n in net.nodes if net else []:
            print('--- log of %s' % n.name)
            print(n.tail(4000))
    finally:
        if net:
            net.close()
            keep = os.environ.get('LM_KEEP', '')
            net.remove(keep=keep == 'always' or (rc != 0 and bool(keep)))
    sys.stdout.flush()
    sys.exit(rc)
