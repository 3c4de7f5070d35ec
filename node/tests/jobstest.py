"""jobstest: real `labmesh node` processes with lab files written by the
test (local and QEMU boards, recipes, policy), a submitter key, and the
helpers the jobs tests share. Ports come from the range the test gives."""
import glob
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from lmtest import stop_process

SKIP = 77


TAG_VAR = 'LABMESH_TEST_TAG'


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


class Skip(Exception):
    pass


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


def local_board(name, tags=('local',)):
    return ('  - {name: %s, arch: %s, tags: [%s], transport: {type: local},'
            ' boot: {method: none}}\n' % (name, os.uname().machine,
                                          ', '.join(tags)))


class Net:
    def __init__(self, labmesh):
        self.labmesh = os.path.abspath(labmesh)
        self.dir = tempfile.mkdtemp(prefix='lm-jobs-')
        self.nodes = []
        self.env = dict(os.environ)
        self.env['XDG_CONFIG_HOME'] = os.path.join(self.dir, 'config')
        self.env.pop('LABMESH_HOME', None)
        # every process the nodes start inherits it (see tagged())
        self.tag = 'lm-jobs-%d-%s' % (os.getpid(), secrets.token_hex(8))
        self.env[TAG_VAR] = self.tag
        self.run('keygen')
        self.submitter = open(os.path.join(self.dir, 'config', 'labmesh',
                                           'key.pub')).read().split()[-1]

    def run(self, *args, check_rc=True, timeout=120, env=None):
        p = subprocess.run([self.labmesh] + list(args), capture_output=True,
                           text=True, timeout=timeout, env=env or self.env)
        if check_rc and p.returncode != 0:
            raise Fail('labmesh %s: exit %d: %s%s' % (' '.join(args),
                       p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
        return p

    def node(self, name, port, boards, extra='', seeds=()):
        n = Node(self, name, port, boards, extra, seeds)
        self.nodes.append(n)
        return n

    def close(self, keep=False):
        for n in self.nodes:
            n.kill()
        if keep or os.environ.get('LM_KEEP'):
            sys.stderr.write('kept %s\n' % self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


class Node:
    def __init__(self, net, name, port, boards, extra, seeds):
        self.net, self.name, self.port = net, name, port
        self.home = os.path.join(net.dir, name)
        os.makedirs(self.home, mode=0o700, exist_ok=True)
        self.id = net.run('--home', self.home, 'id').stdout.strip()
        self.endpoint = 'tcp://127.0.0.1:%d' % port
        self.boards, self.extra, self.seeds = boards, extra, list(seeds)
        self.proc = None
        self.log = os.path.join(self.home, 'node.log')
        self.cfg = os.path.join(self.home, 'lab.yaml')

    def write_config(self):
        text = 'lab: {name: %s}\nnode:\n  listen: "%s"\n' % (self.name,
                                                            self.endpoint)
        if self.seeds:
            text += '  seeds:\n' + ''.join(
                '    - {endpoint: "%s", key: %s}\n' % (s.endpoint, s.id)
                for s in self.seeds)
        text += self.extra + 'boards:\n' + ''.join(self.boards)
        with open(self.cfg, 'w') as f:
            f.write(text)

    def start(self):
        self.write_config()
        logf = open(self.log, 'a')
        self.proc = subprocess.Popen(
            [self.net.labmesh, 'node', '--home', self.home, '--config',
             self.cfg], stdout=logf, stderr=logf, env=self.net.env,
            start_new_session=True)
        logf.close()
        deadline = time.time() + 15
        while time.time() < deadline:
            if self.cli('peers', check_rc=False).returncode == 0:
                return self
            time.sleep(0.1)
        raise Fail('node %s did not start: %s' % (self.name, self.tail()))

    def cli(self, *args, **kw):
        return self.net.run('--home', self.home, *args, **kw)

    def kill(self, sig=signal.SIGTERM):
        stop_process(self.proc, sig, 20)
        self.proc = None

    def tail(self, n=3000):
        try:
            return open(self.log).read()[-n:]
        except OSError:
            return ''

    def peers_up(self):
        p = self.cli('--json', 'peers', check_rc=False)
        if p.returncode != 0:
            return 0
        return sum(1 for x in json.loads(p.stdout) if x['state'] == 'up')

    def status(self, req):
        p = self.cli('--json', 'status', req, check_rc=False)
        return json.loads(p.stdout) if p.returncode == 0 else None


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


def wait_for(what, fn, timeout=60, step=0.2):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(step)
    raise Fail('timed out waiting for ' + what)


def main(fn):
    """Run fn(labmesh_path, root) and map the outcome to an exit status."""
    labmesh = sys.argv[1]
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
    try:
        rc = fn(labmesh, root)
    except Skip as e:
        print('SKIP: %s' % e)
        return SKIP
    except Fail as e:
        print('FAIL: %s' % e)
        return 1
    return rc or 0
