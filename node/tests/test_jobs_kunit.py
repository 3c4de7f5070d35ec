#!/usr/bin/env python3
"""KUnit from the boot console of a kernel built from the Linux tree
fixture: the branch `kunit` of scripts/kernel-tree (main plus
labs/kconfig/kunit.config as kernel/configs/labmesh-kunit.config) built by
a lab with README.md's "Building kernels" recipe, with tinyconfig, the
QEMU board fragment and the KUnit fragment, booted on the x86_64 QEMU
board with the suite `kunit`. The lab captures the board's console from
its first byte; the KTAP the kernel's built-in tests print there becomes
the suite's cases. Checked: at least 3 KUnit suites and 100 KUnit cases,
each PASS or SKIP (a SKIP with its reason), as an ordinary run record
(`query --list`, the KCIDB export, paths kunit.SUITE.CASE); the run's
console log begins with the kernel's first line and holds none of the
lines labmesh typed or framed its commands with. Then the same kernel
with an initramfs without init: KUnit runs, the kernel panics, the
board never reaches a shell, and the job still reports the KUnit cases
its console shows.

The lab's build storage (store.build_dir) is ~/.cache/labmesh/kbuild-kunit,
kept across runs: a run with a finished build there boots it (a few
minutes). The first build of the tree takes 10-20 minutes on two cores,
so it is done only with LM_TEST_LONG=1 (scripts/test --long); without it
and without the cached build the test is skipped, saying so.
With LM_TEST_LONG=1 the same KUnit request also goes to the aarch64 QEMU
board (scripts/mkboard --arch aarch64, cached in
~/.cache/labmesh/boards/aarch64), cross-built with the README's aarch64
recipe (gcc-aarch64-linux-gnu), with the same checks.
LM_KUNIT_CONSOLE=FILE saves the run's console log there (the parser's
fixture suites/tests/kunit/boot-console.log is one)."""
import gzip
import hashlib
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import Net, Skip, check, main, need_board, qemu_board  # noqa
from lmtest import wait_for  # noqa
from test_jobs_kernel import (kernel_tree, readme_recipes, rev, board_of,  # noqa
                              aarch64_board)

CACHE = os.path.join(os.environ.get('LABMESH_CACHE') or os.path.expanduser(
    '~/.cache/labmesh'))
BUILD_DIR = os.path.join(CACHE, 'kbuild-kunit')
SPEC = ('tinyconfig+kernel/configs/labmesh-qemu-x86_64.config'
        '+kernel/configs/labmesh-kunit.config')
SPEC_ARM = ('tinyconfig+kernel/configs/labmesh-qemu-aarch64.config'
            '+kernel/configs/labmesh-kunit.config')
MIN_SUITES = 3
MIN_CASES = 100


def recipe_command(recipes, arch):
    """The command of the recipe for arch, as the lab's YAML reads it (a
    literal block: its lines less their indent, one final newline)."""
    lines = recipes.split('\n')
    i = next(k for k, ln in enumerate(lines) if ln.strip() == '- arch: ' + arch)
    j = next(k for k in range(i + 1, len(lines))
             if lines[k].strip().startswith('command: |'))
    indent, cmd = None, []
    for ln in lines[j + 1:]:
        if not ln.strip():
            cmd.append('')
            continue
        cur = len(ln) - len(ln.lstrip())
        indent = cur if indent is None else indent
        if cur < indent:
            break
        cmd.append(ln[indent:])
    while cmd and not cmd[-1]:
        cmd.pop()
    return '\n'.join(cmd) + '\n'


def cached_build(commit, command):
    """The folder of this exact build in the build storage, None when it is
    not there: keyed as node/jobs/exec_build.c keys it (BLAKE2b-128 of
    commit, config spec, arch, recipe command and cross prefix, each
    NUL-terminated)."""
    h = hashlib.blake2b(digest_size=16)
    for part in (commit, SPEC, 'x86_64', command, ''):
        h.update(part.encode() + b'\0')
    d = os.path.join(BUILD_DIR, 'build-cache', h.hexdigest())
    return d if os.path.exists(os.path.join(d, 'ok')) else None


def console_log(text):
    """The console log in the output of `labmesh log RUN`."""
    check('==> console <==\n' in text, 'the run has no console log: %s' %
          text[:500])
    return text.split('==> console <==\n', 1)[1].split('\n==> ', 1)[0]


def check_console(console):
    """The console log: the kernel's first line first, no framing."""
    first = console.lstrip('\r\n').split('\n', 1)[0].rstrip('\r')
    check(first.startswith('Linux version ') or
          re.match(r'\[\s*0\.0+\] Linux version ', first),
          'the console log does not begin with the kernel\'s first line: '
          '%r' % console[:300])
    check('KTAP version 1' in console, 'no KTAP on the console')
    framing = [ln for ln in console.splitlines()
               if re.search(r'\blm[A-Z]{8,}\b|lm_n=|stty -echo', ln)]
    check(not framing, 'labmesh framing in the console log: %s' %
          framing[:5])


def check_cases(n, req):
    cases = json.loads(n.cmd('--json', 'query', '--list', '--request',
                             req))['cases']
    kunit = [c for c in cases if c['suite'] == 'kunit']
    bad = [c for c in kunit if c['status'] not in ('PASS', 'SKIP')]
    check(not bad, 'KUnit cases neither PASS nor SKIP: %s' % bad[:10])
    noreason = [c for c in kunit if c['status'] == 'SKIP' and
                not c.get('message')]
    check(not noreason, 'SKIPs without a reason: %s' % noreason[:5])
    suites = {c['path'].split('.')[1] for c in kunit if '.' in c['path']}
    check(len(suites) >= MIN_SUITES and len(kunit) >= MIN_CASES,
          '%d KUnit cases in %d suites (want >= %d in >= %d): %s' % (
              len(kunit), len(suites), MIN_CASES, MIN_SUITES,
              [c['path'] for c in kunit][:20]))
    skips = [c for c in kunit if c['status'] == 'SKIP']
    print('%d KUnit cases in %d suites: %d PASS, %d SKIP (%s)' % (
        len(kunit), len(suites), len(kunit) - len(skips), len(skips),
        '; '.join('%s: %s' % (c['path'], c['message']) for c in skips[:3])))
    return kunit


def check_kcidb(n, want):
    kc = os.path.join(n.net.dir, 'kcidb.json')
    n.cmd('export', '--kcidb', '--origin', 'lmtest', '--out', kc)
    tests = json.load(open(kc)).get('tests', [])
    paths = {t['path'] for t in tests if t['path'].startswith('kunit.')}
    missing = [c['path'] for c in want if c['path'] not in paths]
    check(not missing, 'the KCIDB export lacks KUnit tests: %s (has %s)' % (
        missing[:5], sorted(paths)[:5]))


def no_init(n, build):
    """The same kernel with an initramfs that holds no init: KUnit runs,
    then the kernel panics and the board never reaches a shell. The job is
    ERROR (the boot failed) and its kunit suite is still judged on the
    console."""
    check(build, 'the KUnit build is not in the cache after the run')
    empty = os.path.join(n.net.dir, 'empty.cpio.gz')
    with gzip.open(empty, 'wb') as f:
        # a newc archive with its trailer alone
        f.write(b'070701' + b'0' * 8 * 11 + b'0000000B' + b'0' * 8 +
                b'TRAILER!!!\0' + b'\0' * 3)
    p = n.cli('submit', '--kernel', os.path.join(build, 'out', 'vmlinuz'),
              '--initrd', empty, '--describe', 'KUnit kernel, no init',
              '--arch', 'x86_64', '--suite', 'kunit', '--wait', '--timeout',
              '15m', check_rc=False, timeout=1200)
    print(p.stdout[-1500:])
    check(p.returncode != 0, 'a board that never booted passed')
    req = p.stdout.split()[1]
    cases = json.loads(n.cmd('--json', 'query', '--list', '--request',
                             req))['cases']
    kunit = [c for c in cases if c['suite'] == 'kunit']
    bad = [c for c in kunit if c['status'] not in ('PASS', 'SKIP')]
    check(len(kunit) >= MIN_CASES and not bad,
          'no init: %d KUnit cases, not PASS/SKIP: %s' % (len(kunit),
                                                          bad[:5]))
    print('no init: the boot failed, %d KUnit cases read from its console'
          % len(kunit))


def arm_board():
    """The aarch64 QEMU board (scripts/mkboard's cache) when the cross
    compiler and QEMU are here and LM_TEST_LONG=1; else None."""
    if os.environ.get('LM_TEST_LONG') != '1':
        return None
    arm = aarch64_board('qemu-ku-arm')
    if not arm or not all(shutil.which(p) for p in (
            'aarch64-linux-gnu-gcc', 'qemu-system-aarch64')):
        print('aarch64 KUnit not run: no aarch64 board in %s/boards or no '
              'cross compiler or qemu-system-aarch64' % CACHE)
        return None
    return arm


def kunit_arm(n, tree, commit):
    """The same KUnit request for arm64: cross-built with the README's
    aarch64 recipe, booted on the aarch64 QEMU board."""
    p = n.cli('submit', '--git', tree, '--branch', 'kunit', '--commit',
              commit, '--config', SPEC_ARM, '--arch', 'aarch64', '--suite',
              'kunit', '--wait', '--timeout', '120m', '--lab', 'lab-kunit',
              check_rc=False, timeout=7500)
    print(p.stdout[-2000:])
    check(p.returncode == 0, 'aarch64 KUnit build and boot: exit %d: %s %s'
          % (p.returncode, p.stderr, n.tail()))
    req = p.stdout.split()[1]
    kunit = check_cases(n, req)
    check_kcidb(n, kunit)
    print('aarch64 KUnit OK')


def test(net):
    env = need_board(net.root)
    tree = kernel_tree(net.root)
    recipes = readme_recipes(net.root)
    commit = rev(tree, 'kunit')
    if (not cached_build(commit, recipe_command(recipes, 'x86_64')) and
            os.environ.get('LM_TEST_LONG') != '1'):
        raise Skip('no cached build of the KUnit kernel (branch kunit %s) '
                   'in %s: its first build takes 10-20 minutes, done with '
                   'LM_TEST_LONG=1 (scripts/test --long)' % (commit[:12],
                                                             BUILD_DIR))
    os.makedirs(BUILD_DIR, exist_ok=True)
    extra = ('store:\n  build_dir: %s\n  build_budget: 40G\n' % BUILD_DIR +
             recipes)
    arm = arm_board()
    boards = [qemu_board('qemu-ku', env)] + ([arm] if arm else [])
    n = net.node('lab-kunit', net.base(18470), boards, extra)
    n.start()
    p = n.cli('submit', '--git', tree, '--branch', 'kunit', '--commit',
              commit, '--config', SPEC, '--arch', 'x86_64', '--suite',
              'kunit', '--wait', '--timeout', '100m', check_rc=False,
              timeout=6300)
    print(p.stdout[-2000:])
    check(p.returncode == 0, 'KUnit build and boot: exit %d: %s %s' % (
        p.returncode, p.stderr, n.tail()))
    req = p.stdout.split()[1]
    run, _ = wait_for('the run of qemu-ku', lambda: (board_of(
        n.req_status(req) or {'labs': []}, 'qemu-ku') or {}).get('run'),
        120, 0.5)
    kunit = check_cases(n, req)
    check_kcidb(n, kunit)
    raw = n.cli('log', run, text=False).stdout
    console = console_log(raw.decode('utf-8', 'replace'))
    if os.environ.get('LM_KUNIT_CONSOLE'):
        with open(os.environ['LM_KUNIT_CONSOLE'], 'wb') as f:
            f.write(raw.split(b'==> console <==\n', 1)[1].split(
                b'\n==> ', 1)[0])
    check_console(console)
    no_init(n, cached_build(commit, recipe_command(recipes, 'x86_64')))
    if arm:
        kunit_arm(n, tree, commit)
    print('KUnit OK%s' % (' (cached build)' if 'cached build' in p.stdout
                          else ''))
    return 0


if __name__ == '__main__':
    main(test, Net)
