#!/usr/bin/env python3
"""bench-kbuild: a real kernel built twice by one lab, in the same run.
The lab's recipes are README.md's "Building kernels" recipes; its build
storage starts empty (no mirror, no kept tree, no ccache). It builds the
tree of scripts/kernel-tree at `main` (tinyconfig plus the QEMU board
fragment), then at `one-change` (one line of kernel/panic.c changed): the
second build reuses the lab's mirror and kept tree and must take at most
25 % of the first. Each figure is the duration of the run's `build`
suite; each job also boots its kernel on the QEMU x86_64 board.

Run by scripts/bench (LABMESH_ROOT names the source tree); prints one
JSON row per figure. Takes 15-40 minutes on two cores."""
import json
import os
import shutil
import signal
import sys
import tempfile
import time

ROOT = os.environ.get('LABMESH_ROOT') or os.path.abspath(
    os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'node', 'tests'))
HERE = os.path.dirname(os.path.abspath(__file__))
LABMESH = os.path.join(HERE, 'labmesh')

import jobstest  # noqa: E402
import test_jobs_kernel as tk  # noqa: E402


def emit(figure, value, unit, baseline=None, target=None, met=None):
    row = {'figure': figure, 'value': value, 'unit': unit}
    if baseline:
        row['baseline'] = baseline
        row['ratio'] = round(value / baseline, 4)
    if target is not None:
        row['target'] = target
        row['met'] = bool(met)
    print(json.dumps(row), flush=True)


def build(n, tree, branch):
    commit = tk.rev(tree, branch)
    t0 = time.time()
    p = n.cli('submit', '--git', tree, '--branch', branch, '--commit',
              commit, '--config',
              'tinyconfig+kernel/configs/labmesh-qemu-x86_64.config',
              '--arch', 'x86_64', '--suite', 'smoke', '--wait', '--timeout',
              '150m', check_rc=False, timeout=9300)
    wall = time.time() - t0
    req = p.stdout.split()[1] if p.stdout.startswith('request ') else ''
    cases = json.loads(n.cmd('--json', 'query', '--list', '--request',
                             req))['cases'] if req else []
    b = [c for c in cases if c['suite'] == 'build']
    if not b or b[0]['status'] != 'PASS':  # the boot is not measured
        sys.stderr.write('bench-kbuild: %s: exit %d %s\n%s\n' % (
            branch, p.returncode, p.stdout[-2000:], n.tail()))
        return None, wall
    return b[0]['duration_ms'] / 1000.0, wall


def main():
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(1))
    env = jobstest.board_dir(ROOT)
    if not env:
        sys.stderr.write('bench-kbuild: no QEMU x86_64 board here\n')
        return 0
    tree = tk.kernel_tree(ROOT)
    net = jobstest.Net(LABMESH)
    store = tempfile.mkdtemp(prefix='lm-kbuild-', dir=os.path.join(
        tk.CACHE))
    try:
        extra = ('store:\n  build_dir: %s\n  build_budget: 40G\n' % store +
                 tk.readme_recipes(ROOT))
        n = net.node('lab-bench', net.base(18470),
                     [jobstest.qemu_board('qemu-b', env)], extra).start()
        first, w1 = build(n, tree, 'main')
        if first is None:
            return 1
        emit('kernel build: tinyconfig x86_64, cold', round(first, 1), 's')
        second, w2 = build(n, tree, 'one-change')
        if second is None:
            return 1
        emit('kernel build: one file changed (kept tree)', round(second, 1),
             's', baseline=round(first, 1), target='ratio <= 0.25',
             met=second <= 0.25 * first)
        emit('kernel job, wall: cold / one file changed', round(w2, 1), 's',
             baseline=round(w1, 1))
    finally:
        net.close()
        net.remove()
        shutil.rmtree(store, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
