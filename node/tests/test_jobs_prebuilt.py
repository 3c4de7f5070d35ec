#!/usr/bin/env python3
"""Build once, boot everywhere. Two labs with a QEMU x86_64 board and the
same recipe (test_jobs_git's: a Makefile that makes the board's kernel
the vmlinuz); lab-b's policy.builds_from names lab-a. lab-a builds a
commit; asked for the same commit, config and arch, lab-b boots lab-a's
image, fetched as blobs, without building: its progress and its run's
build case say whose build it booted, and it has no build storage. lab-a
itself, asked again, uses its own cached build."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import Net, check, main, need_board, qemu_board, \
    wait_for  # noqa: E402
from test_jobs_git import RECIPE, make_repo  # noqa: E402


def submit(n, repo, commit, lab):
    p = n.cli('submit', '--git', repo, '--branch', 'main', '--commit', commit,
              '--config', 'defconfig', '--lab', lab, '--suite', 'smoke',
              '--wait', '--timeout', '15m', check_rc=False, timeout=1200)
    print(p.stdout[-1500:])
    check(p.returncode == 0, 'submit to %s: exit %d: %s %s' % (
        lab, p.returncode, p.stderr, n.tail()))
    return p.stdout.split()[1], p.stdout


def build_case(n, req):
    cases = json.loads(n.cmd('--json', 'query', '--list', '--request',
                             req))['cases']
    b = [c for c in cases if c['suite'] == 'build']
    check(b, 'no build case for %s: %s' % (req, cases))
    return b[0]


def test(net):
    env = need_board(net.root)
    repo = os.path.join(net.dir, 'repo')
    c1, _ = make_repo(repo)
    recipe = ('recipes:\n  - arch: x86_64\n    timeout: 300\n'
              "    command: '%s'\n" % (RECIPE % env['KERNEL']))
    a = net.node('lab-a', net.base(18490), [qemu_board('qemu-a', env)],
                 recipe).start()
    b = net.node('lab-b', a.port + 1, [qemu_board('qemu-b', env)],
                 'policy:\n  builds_from: [%s]\n' % a.id + recipe,
                 seeds=[a]).start()
    wait_for('peers', lambda: a.peers_up() == 1 and b.peers_up() == 1, 60,
             0.2)
    wait_for('both adverts', lambda: len(b.boards_json()) == 2, 60, 0.2)
    req_a, out = submit(b, repo, c1, 'lab-a')
    check('building ' + c1[:12] in out, 'lab-a did not build: %s' % out)
    wait_for('lab-a\'s run at lab-b', lambda: json.loads(b.cmd(
        '--json', 'query', '--list', '--request', req_a))['cases'], 60, 0.5)
    req_b, out = submit(b, repo, c1, 'lab-b')
    check('booting the build of lab lab-a' in out,
          'lab-b does not say whose build it booted: %s' % out[-1500:])
    check('building ' + c1[:12] not in out, 'lab-b built it: %s' % out)
    case = build_case(b, req_b)
    check(case['status'] == 'PASS' and 'booted the build of lab lab-a' in
          case['message'], 'lab-b\'s build case: %s' % case)
    for sub in ('trees', 'build-cache', 'git'):
        check(not os.path.exists(os.path.join(b.home, 'work', sub)),
              'lab-b has build storage: work/%s' % sub)
    print('lab-b booted lab-a\'s build: %s' % case['message'])
    _, out = submit(a, repo, c1, 'lab-a')
    check('cached build of ' + c1[:12] in out, 'lab-a built again: %s' %
          out[-1000:])
    print('prebuilt OK')
    return 0


if __name__ == '__main__':
    main(test, Net)
