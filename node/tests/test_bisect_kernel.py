#!/usr/bin/env python3
"""labmesh bisect on the real Linux tree (LM_TEST_LONG=1 only: a kernel
build per step). scripts/kernel-tree's branch `regress` is main plus 16
commits; the 11th makes UTS_SYSNAME "Lunix". lab-a has the QEMU x86_64
board and README.md's recipes, its builds in ~/.cache/labmesh/kbuild-test
(the kept tree test_jobs_kernel builds main in, so each step is an
incremental build); lab-b and lab-c have boards that boot nothing. From
lab-b, bisecting main..regress with tinyconfig and the QEMU fragment on
lab-a's board, the fixture suite `uts` (uname -s is Linux) names the 11th
commit, with at most ceil(log2(16)) + 2 builds, each commit built once;
every node shows the same bisection."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import Net, Skip, check, local_board, main, need_board, \
    qemu_board, wait_for, write_suite  # noqa: E402
from test_bisect import PLANTED, builds, check_record, show  # noqa: E402
from test_jobs_kernel import BUILD_DIR, kernel_tree, readme_recipes, \
    rev  # noqa: E402

UTS_YAML = ('name: uts\nversion: 1\nkind: functional\n'
            'description: the kernel calls itself Linux\ntimeout: 60\n'
            'parser: tap\n')
UTS_SH = """#!/bin/sh
echo "TAP version 13"
echo "1..1"
s=$(uname -s)
if [ "$s" = Linux ]; then echo "ok 1 - sysname"
else echo "not ok 1 - sysname"; echo "# uname -s: $s"; fi
"""
SPEC = 'tinyconfig+kernel/configs/labmesh-qemu-x86_64.config'


def test(net):
    if os.environ.get('LM_TEST_LONG') != '1':
        raise Skip('builds a kernel per step: LM_TEST_LONG=1 only')
    env = need_board(net.root)
    tree = kernel_tree(net.root)
    commits = [rev(tree, 'main')] + subprocess.run(
        ['git', '-C', tree, 'rev-list', '--reverse', 'main..regress'],
        capture_output=True, text=True, check=True).stdout.split()
    check(len(commits) == 17, 'regress: %d commits' % (len(commits) - 1))
    net.env['LABMESH_SUITES'] = write_suite(
        os.path.join(net.dir, 'suites'), 'uts', UTS_YAML, UTS_SH)
    extra = ('store:\n  build_dir: %s\n  build_budget: 40G\n' % BUILD_DIR +
             'policy:\n  builds_from: any\n' + readme_recipes(net.root))
    a = net.node('lab-a', net.base(18530), [qemu_board('qa', env)],
                 extra).start()
    b = net.node('lab-b', a.port + 1, [local_board('hb')],
                 seeds=[a]).start()
    c = net.node('lab-c', a.port + 2, [local_board('hc')],
                 seeds=[a, b]).start()
    nodes = [a, b, c]
    wait_for('peers', lambda: all(n.peers_up() == 2 for n in nodes), 60,
             0.2)
    wait_for('adverts', lambda: all(len(n.boards_json()) == 3
                                    for n in nodes), 60, 0.2)
    p = b.cli('bisect', '--git', tree, '--good', 'main', '--bad', 'regress',
              '--test', 'uts.sysname', '--board', 'qa', '--config', SPEC,
              '--branch', 'regress', '--silence', '20m', '--step-timeout',
              '2h', check_rc=False, timeout=6 * 3600)
    print(p.stdout[-4000:])
    check(p.returncode == 0, 'bisect exit %d: %s %s' % (
        p.returncode, p.stderr, a.tail()))
    check('first bad commit: %s' % commits[PLANTED] in p.stdout,
          'not the planted commit %s' % commits[PLANTED][:12])
    bid = p.stdout.split()[1].rstrip(':')
    for n in nodes:
        rec = wait_for('the record at %s' % n.name, lambda: (
            lambda r: r if r and r['state'] == 'done' else None)(
                show(n, bid)), 60, 0.5)[0]
        bound = check_record(rec, commits, n.name)
    count = builds(net, nodes, rec)
    print('builds per commit: %s' % {k[:8]: v for k, v in count.items()})
    check(all(v == 1 for v in count.values()), 'a commit built twice: %s'
          % count)
    check(sum(count.values()) <= bound, '%d builds, more than %d' % (
        sum(count.values()), bound))
    print('kernel bisection: %s in %d steps, %d builds (bound %d)' % (
        commits[PLANTED][:12], len(rec['steps']), sum(count.values()),
        bound))
    return 0


if __name__ == '__main__':
    main(test, Net)
