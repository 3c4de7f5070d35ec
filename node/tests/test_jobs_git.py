#!/usr/bin/env python3
"""Git requests. The test makes a repository with two commits whose
Makefile builds a `vmlinuz` (the Debian kernel of the QEMU board) and
prints the VERSION file of the commit; the lab's recipe runs `make` in
bubblewrap without network. The older commit is requested while the
branch points at the newer one: the exact commit is built (its log says
so), booted and tested. The repository has 30 commits before these two:
the lab's mirror fetched shallow, the branch's head and the commit, not
the history. A commit that does not exist ends in ERROR with
a reason naming it. Branch names that are shell code (`;`, backticks,
`$()`, `|`) run nothing and reach the recipe as literal strings; config
specs that are shell code are declined by the lab, naming the rule, and
run nothing either. The --commit errors name the option and the rule; a
branch name is resolved to its commit when --git is a local path."""
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import Net, need_board, check, main, qemu_board, \
    wait_for  # noqa

RECIPE = ('make KSRC=%s && cp vmlinuz "$LABMESH_OUT/vmlinuz" && '
          'echo "config is [$LABMESH_CONFIG] branch [$LABMESH_BRANCH]" && '
          'echo "tree at $(git -C "$LABMESH_SRC" log -1 --format=%%H)"')


def git(repo, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@t',
               GIT_COMMITTER_NAME='t', GIT_COMMITTER_EMAIL='t@t')
    return subprocess.run(['git', '-C', repo] + list(args), check=True,
                          capture_output=True, text=True,
                          env=env).stdout.strip()


def make_repo(path, history=0):
    """Commits 'one' and 'two' (returned), after `history` others."""
    os.makedirs(path)
    git(path, 'init', '-q', '-b', 'main')
    for i in range(history):
        with open(os.path.join(path, 'HISTORY'), 'w') as f:
            f.write('%d\n' % i)
        git(path, 'add', '.')
        git(path, 'commit', '-q', '-m', 'history %d' % i)
    with open(os.path.join(path, 'Makefile'), 'w') as f:
        f.write('vmlinuz: VERSION\n\t@echo "building version $$(cat VERSION)"'
                '\n\tcp $(KSRC) vmlinuz\n')
    commits = []
    for v in ('one', 'two'):
        with open(os.path.join(path, 'VERSION'), 'w') as f:
            f.write(v + '\n')
        git(path, 'add', '.')
        git(path, 'commit', '-q', '-m', 'version ' + v)
        commits.append(git(path, 'rev-parse', 'HEAD'))
    return commits


def board_of(st, name):
    for lab in st['labs']:
        for b in lab['boards']:
            if b['board'] == name:
                return b
    return None


def shallow_mirror(n, first):
    """The lab's first fetch of a 32-commit branch, asking for the
    commit before its head, took the head and that commit only."""
    top = os.path.join(n.home, 'work', 'git')
    mirrors = [d for d in os.listdir(top)
               if os.path.isdir(os.path.join(top, d))]
    check(len(mirrors) == 1, 'mirrors: %s' % mirrors)
    m = os.path.join(top, mirrors[0])
    count = int(git(m, 'rev-list', '--count', '--all'))
    has_first = subprocess.run(['git', '-C', m, 'cat-file', '-e',
                                first + '^{commit}'],
                               capture_output=True).returncode == 0
    check(os.path.exists(os.path.join(m, 'shallow')) and count <= 2 and
          not has_first, 'the first fetch took the whole history: %d'
          ' commits in the mirror, shallow: %s, first commit: %s' % (
              count, os.path.exists(os.path.join(m, 'shallow')), has_first))
    srcs = glob.glob(os.path.join(n.home, 'work', 'trees', '*', 'src'))
    check(srcs, 'no kept tree')
    for src in srcs:
        # git in the kept tree walks the history it has without error
        log = subprocess.run(['git', '-C', src, 'log', '--format=%s'],
                             capture_output=True, text=True)
        check(log.returncode == 0 and log.stdout.strip() == 'version one',
              'git log in the kept tree: %s %s' % (log.stdout, log.stderr))
    print('mirror: shallow, %d commits of 32' % count)


def test(net):
    env = need_board(net.root)
    pwned = [os.path.join(net.dir, 'pwned-branch'),
             os.path.join(net.dir, 'pwned-config')]
    try:
        repo = os.path.join(net.dir, 'repo')
        c1, c2 = make_repo(repo, history=30)
        first = git(repo, 'rev-list', '--max-parents=0', 'HEAD')
        extra = ('recipes:\n  - arch: x86_64\n    timeout: 300\n'
                 "    command: '%s'\n" % (RECIPE % env['KERNEL']))
        n = net.node('lab-g', 18301, [qemu_board('qemu-g', env)],
                     extra).start()
        p = n.cli('submit', '--git', repo, '--branch', 'main', '--commit', c1,
                  '--config', 'defconfig', '--suite', 'smoke', '--wait',
                  '--timeout', '10m', check_rc=False, timeout=900)
        print(p.stdout)
        check(p.returncode == 0, 'git submit exit %d: %s %s' %
              (p.returncode, p.stderr, n.tail()))
        req = p.stdout.split()[1]
        check('building' in p.stdout, 'no building event')
        run = board_of(n.req_status(req), 'qemu-g')['run']
        log = n.cli('log', run).stdout
        check('building version one' in log, 'the build log does not show'
              ' commit one was built: %s' % log[:800])
        check('building version two' not in log, 'built the branch head')
        check('config is [defconfig]' in log, 'config not passed')
        # git in the sandbox reads the kept tree's objects, which are the
        # mirror's (a kernel's setlocalversion does), with the lab's
        # builds under /tmp as here
        check('tree at ' + c1 in log, 'git in the recipe cannot read the'
              ' commit: %s' % [ln for ln in log.splitlines()
                               if 'tree at' in ln or 'alternate' in ln])
        shallow_mirror(n, first)
        cases = json.loads(n.cli('--json', 'query', '--list', '--request',
                                 req).stdout)['cases']
        check(cases and all(x['commit'] == c1 for x in cases),
              'query --list --json: the cases do not all name commit %s: %s'
              % (c1, sorted(set(x['commit'] for x in cases))))
        check(c1[:12] in n.cli('query', '--request', req).stdout,
              'the matrix does not name the commit')
        # cache: the same commit again builds nothing
        p = n.cli('submit', '--git', repo, '--branch', 'main', '--commit', c1,
                  '--config', 'defconfig', '--suite', 'smoke', '--wait',
                  check_rc=False, timeout=900)
        check(p.returncode == 0 and 'cached build' in p.stdout,
              'second build not cached: %s' % p.stdout)
        # a commit that does not exist
        bad = 'deadbeef' * 5
        p = n.cli('submit', '--git', repo, '--branch', 'main', '--commit', bad,
                  '--suite', 'smoke', '--wait', check_rc=False, timeout=600)
        print(p.stdout)
        check(p.returncode != 0, 'a missing commit passed')
        req = p.stdout.split()[1]
        b = board_of(n.req_status(req), 'qemu-g')
        check(b['state'] == 'error' and 'commit %s does not exist' % bad in
              b['text'], 'no clear reason: %s' % b)
        # shell code in the branch and the config runs nothing, and the
        # recipe receives it as the literal string
        code = {k: v % ('/tmp/lm-pwned-' + k) for k, v in (
            ('semi', ';touch %s'), ('bt', '`touch %s`'),
            ('sub', '$(touch %s)'), ('pipe', '|touch %s'))}
        traces = [v.split('touch ')[1].rstrip(')`') for v in code.values()]
        for f in traces:
            if os.path.exists(f):
                os.unlink(f)
        for config in (code['semi'], code['bt'], code['pipe'],
                       code['sub'] + ';id'):
            p = n.cli('submit', '--git', repo, '--branch', 'main',
                      '--commit', c2, '--config', config, '--suite',
                      'smoke')
            req = p.stdout.split()[1]
            st = wait_for('decline of config %r' % config, lambda: (
                lambda s: s if s and s['labs'] and s['labs'][0]['answer']
                == 'declined' else None)(n.req_status(req)), 60, 0.2)[0]
            check('not a make target ending in config' in
                  st['labs'][0]['reason'], 'config %r: %s' % (config, st))
        # (a config of its own each: a cached build would not run the
        # recipe)
        for branch, config in ((code['sub'], 'defconfig'),
                               (code['semi'], 'tinyconfig'),
                               (code['bt'], 'allnoconfig'),
                               (code['pipe'], 'x86_64_defconfig')):
            p = n.cli('submit', '--git', repo, '--branch', branch, '--commit',
                      c2, '--config', config, '--suite', 'smoke', '--wait',
                      check_rc=False, timeout=900)
            print(p.stdout[-600:])
            check(p.stdout.startswith('request '), 'not submitted')
            b = board_of(n.req_status(p.stdout.split()[1]), 'qemu-g')
            check(b['run'], 'no run for branch %r: %s' % (branch, b))
            log = n.cli('log', b['run']).stdout
            line = 'config is [%s] branch [%s]' % (config, branch)
            check(line in log, 'the recipe did not get the literal branch'
                  ' and config %r: %s' % (line, log[:800]))
            for f in traces + pwned:
                check(not os.path.exists(f), '%s was created' % f)
        check(not glob.glob('/tmp/pwned*'), '/tmp/pwned* exists')
        print('shell code: branches passed literally, configs declined, ran'
              ' nothing')
        # --commit: the option and the rule named; a branch resolved
        p = n.cli('submit', '--git', 'https://example.org/linux.git',
                  '--branch', 'main', '--commit', 'HEAD', '--suite', 'smoke',
                  check_rc=False)
        check(p.returncode == 2 and '--commit' in p.stderr and
              '40 hex' in p.stderr, '--commit HEAD: %s' % p.stderr)
        p = n.cli('submit', '--git', repo, '--branch', 'main', '--commit',
                  'no-such-branch', '--suite', 'smoke', check_rc=False)
        check(p.returncode == 2 and '--commit' in p.stderr and
              'no-such-branch' in p.stderr, '--commit bad: %s' % p.stderr)
        p = n.cli('submit', '--git', repo, '--branch', 'main', '--commit',
                  'main', '--config', 'defconfig', '--suite', 'smoke',
                  '--wait', '--timeout', '10m', check_rc=False, timeout=900)
        check(p.returncode == 0 and 'cached build of ' + c2[:12] in
              p.stdout, '--commit main did not resolve to %s: %s' %
              (c2[:12], p.stdout[-1500:]))
        print('--commit: errors name the option; a branch resolves')
        print('git requests OK')
    finally:
        net.close()
    return 0


if __name__ == '__main__':
    main(test, Net)
