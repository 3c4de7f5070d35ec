#!/usr/bin/env python3
"""Builds of git requests, on one lab with a QEMU x86_64 board whose
recipe changes between phases (the node restarts with each). The
recipes write a vmlinuz that is not a kernel, so each job ends at boot,
quickly; what is tested happens before.

1. The bubblewrap sandbox has no network: a recipe that connects to a
   loopback TCP port the test listens on cannot, and the listener sees
   no connection.
2. The recipe timeout kills a recipe that sleeps forever: the job ends
   in error naming the timeout, and no process of the recipe is left.
3. The build cache key: the same commit, config and recipe reuse the
   build ("cached build"); another config name or another recipe
   command builds again; in the KCIDB export both builds carry status,
   compiler, config_name, log_url and the first build's duration. The
   config names are the lab's own (the
   recipe's `configs`); a name it does not list is declined, naming
   the ones it builds.
4. After ten builds of their own (each leaves 300 KB in its kept build
   folder) the lab's build storage is within store.build_budget (1M),
   least recently used first, and no job folder is left."""
import glob
import json
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import Net, need_board, check, main, qemu_board, \
    wait_for  # noqa: E402
from test_jobs_git import make_repo  # noqa: E402
import kcidb_check  # noqa: E402

PROBE = ('python3 -c \'import socket; socket.create_connection('
         '("127.0.0.1", %d), 3); print("probe: connected")\' ||'
         ' echo "probe: cannot connect"; exit 3')
FAKE = 'echo "not a kernel: $LABMESH_CONFIG" > "$LABMESH_OUT/vmlinuz"'


def board(n, req):
    st = n.req_status(req) or {}
    for lab in st.get('labs', []):
        for b in lab['boards']:
            return b
    return None


def final(n, req, timeout=300):
    return wait_for('%s final' % req[:12], lambda: (
        lambda b: b if b and b['final'] else None)(board(n, req)),
        timeout, 0.2)[0]


CONFIGS = ['netcheck', 'forever', 'conf-a', 'conf-b'] + [
    'conf-%d' % i for i in range(10)]


def restart(n, recipe, timeout=300, store=''):
    n.stop()
    n.extra = store + ('recipes:\n  - arch: x86_64\n    timeout: %d\n'
                       '    configs: [%s]\n'
                       '    command: "%s"\n' % (timeout, ', '.join(CONFIGS),
                                                recipe.replace(
                           '\\', '\\\\').replace('"', '\\"')))
    n.start()


def du(path):
    total = 0
    for d, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(d, f)).st_blocks * 512
            except OSError:
                pass
    return total


def submit(n, repo, commit, config, wait=False):
    args = ['submit', '--git', repo, '--branch', 'main', '--commit', commit,
            '--config', config, '--suite', 'smoke']
    if wait:
        p = n.cli(*(args + ['--wait', '--timeout', '10m']), check_rc=False,
                  timeout=900)
        return p.stdout.split()[1], p.stdout
    return n.cli(*args).stdout.split()[1], ''


def kcidb_builds(n, built, cached):
    """The KCIDB build of each: status, compiler, config_name, log_url
    and the build's duration in seconds, a cached build its first
    build's."""
    got = []
    for req in (built, cached):
        doc = json.loads(n.cmd('export', '--kcidb', '--request', req,
                               '--log-base', 'https://logs.example.org/b'))
        errs = kcidb_check.errors(doc)
        check(not errs, 'the export validates: %s' % errs[:3])
        b = doc['builds'][0] if len(doc['builds']) == 1 else {}
        check(b.get('status') == 'PASS' and b.get('compiler') and
              b.get('config_name') == 'conf-a' and
              b.get('log_url', '').startswith('https://logs.example.org/b/')
              and isinstance(b.get('duration'), (int, float)) and
              b['duration'] >= 0, 'a KCIDB build of a git kernel: %s' % b)
        got.append(b.get('duration'))
    check(got[0] == got[1], 'a cached build says its first build\'s'
          ' duration: %s' % got)
    print('KCIDB build duration: %s s (cached: %s s)' % tuple(got))


def test(net):
    env = need_board(net.root)
    lsock = socket.socket()
    try:
        repo = os.path.join(net.dir, 'repo')
        c1, _ = make_repo(repo)
        n = net.node('lab-build', 17211, [qemu_board('qemu-b', env)])

        # 1. no network in the sandbox
        lsock.bind(('127.0.0.1', 0))
        lsock.listen(4)
        lsock.settimeout(0.5)
        port = lsock.getsockname()[1]
        restart(n, PROBE % port)
        req, _ = submit(n, repo, c1, 'netcheck')
        b = final(n, req)
        check(b['state'] == 'error' and 'build failed (exit 3)' in
              b['text'], 'the probe build: %s' % b)
        try:
            conn, _ = lsock.accept()
            conn.close()
            check(False, 'the sandboxed recipe reached the listener')
        except socket.timeout:
            pass
        logs = [open(x).read() for x in glob.glob(os.path.join(
            n.home, 'work', 'build-cache', '*', 'build.log'))]
        said = [x for x in logs if 'probe: ' in x]
        check(len(said) == 1 and 'probe: cannot connect' in said[0] and
              'Errno' in said[0] and 'probe: connected' not in said[0],
              'the probe did not report a refusal: %s' % logs)
        print('sandbox network: %s' % [x for x in said[0].splitlines()
                                        if 'Errno' in x][-1])

        # 2. the recipe timeout
        mark = 'sleep %d' % (86000 + os.getpid() % 400)
        restart(n, mark, timeout=3)
        t0 = time.time()
        req, _ = submit(n, repo, c1, 'forever')
        b = final(n, req)
        took = time.time() - t0
        check(b['state'] == 'error' and 'timed out' in b['text'],
              'a recipe sleeping forever: %s' % b)
        left = subprocess.run(['pgrep', '-f', '--', mark],
                              capture_output=True, text=True).stdout.split()
        check(not left, 'the recipe survived its timeout: %s' % left)
        print('recipe timeout: %s: %s after %.1f s, nothing left' % (
            b['state'], b['text'], took))

        # 3. the build cache key
        restart(n, FAKE)
        built, out = submit(n, repo, c1, 'conf-a', wait=True)
        check('building ' + c1[:12] in out and 'cached build' not in out,
              'first build: %s' % out[-1500:])
        cached, out = submit(n, repo, c1, 'conf-a', wait=True)
        check('cached build' in out, 'the same key built again: %s' %
              out[-1500:])
        kcidb_builds(n, built, cached)
        _, out = submit(n, repo, c1, 'conf-b', wait=True)
        check('cached build' not in out and 'building ' + c1[:12] in out,
              'another config used the cache: %s' % out[-1500:])
        restart(n, FAKE + ' && true')
        _, out = submit(n, repo, c1, 'conf-a', wait=True)
        check('cached build' not in out and 'building ' + c1[:12] in out,
              'another recipe used the cache: %s' % out[-1500:])
        print('build cache: same key cached; config and recipe rebuild')
        req, _ = submit(n, repo, c1, 'conf-z')
        st = wait_for('decline of conf-z', lambda: (
            lambda s: s if s and s['labs'] and s['labs'][0].get('answer')
            == 'declined' else None)(n.req_status(req)), 60, 0.2)[0]
        why = json.dumps(st)
        check('conf-z' in why and 'conf-a' in why,
              'the decline does not name the config and the ones built:'
              ' %s' % why)
        print('a config the recipe does not list: declined')

        # 4. the disk budget: ten builds of their own, each a kept tree
        # and a finished build, within store.build_budget; no job folder
        # left once each job ends
        budget = 1 << 20
        restart(n, FAKE + ' && head -c 300000 /dev/urandom >'
                ' "$LABMESH_BUILD/objects"', store='store:\n'
                '  build_budget: 1M\n')
        peak = 0
        for i in range(10):
            _, out = submit(n, repo, c1, 'conf-%d' % i, wait=True)
            check('building ' + c1[:12] in out, 'build %d: %s' % (
                i, out[-800:]))
            work = os.path.join(n.home, 'work')
            peak = max(peak, du(work))
            jobs = os.path.join(work, 'jobs')
            left = os.listdir(jobs) if os.path.isdir(jobs) else []
            check(not left, 'job folders left after job %d: %s' % (i, left))
        used = du(os.path.join(n.home, 'work'))
        trees = os.listdir(os.path.join(n.home, 'work', 'trees'))
        locks = [t for t in trees if t.endswith('.lock')]
        check(len(locks) == len(trees) - len(locks),
              'lock files of evicted trees are left: %s' % trees)
        check(used <= budget, 'after 10 builds the build storage holds %d'
              ' bytes, over its budget of %d' % (used, budget))
        print('disk budget: 10 builds, %d bytes kept (budget %d, peak %d),'
              ' %d kept trees, no job folder left' % (
                  used, budget, peak, len(trees) - len(locks)))
        print('builds OK')
    finally:
        lsock.close()
        net.close()
    return 0


if __name__ == '__main__':
    main(test, Net)
