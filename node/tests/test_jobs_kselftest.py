#!/usr/bin/env python3
"""The kernel's selftests built from the same commit as the kernel: the
branch `kselftest` of scripts/kernel-tree (main plus
labs/kconfig/kselftest.config as kernel/configs/labmesh-kselftest.config)
built by a lab with README.md's kselftest recipe, which also installs
seven selftest collections, static, in $LABMESH_OUT/kselftest/. The node packs
them into an archive appended to the x86_64 QEMU board's initramfs; the
suite `kselftest` runs them there. Checked: at least 5 collections and 50
cases kselftest.COLLECTION.TEST.CASE with a verdict, the breakpoints ones
with a local enable PASS, in `query --list` and the KCIDB export; the
build suite names the blob of the selftests. Then the branch
`kselftest-broken` (ptrace ignores the local enable bits of x86's DR7):
those breakpoints cases fail and `compare` shows them as regressions.

The lab's build storage (store.build_dir) is
~/.cache/labmesh/kbuild-kselftest, kept across runs: with both builds
finished there the test boots them (a few minutes). The first build
takes 10-20 minutes on two cores (the second is incremental), so it is
done only with LM_TEST_LONG=1 (scripts/test --long); without it and
without the cached builds the test is skipped, saying so."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import Net, Skip, check, main, need_board, qemu_board  # noqa
from test_jobs_kernel import kernel_tree, rev  # noqa
from test_jobs_kunit import CACHE, recipe_command  # noqa
import hashlib  # noqa

BUILD_DIR = os.path.join(CACHE, 'kbuild-kselftest')
SPEC = ('tinyconfig+kernel/configs/labmesh-qemu-x86_64.config'
        '+kernel/configs/labmesh-kselftest.config')
# the board's own pass rule: QEMU's TCG does not trap icebp and int3 as
# breakpoint_test expects (the same cases fail on Debian's kernel there)
TCG_CRITERIA = (
    '    criteria:\n      - suite: kselftest\n        fail_ok:\n' +
    ''.join('          - {case: breakpoints.breakpoint_test.%s, reason: '
            '"QEMU TCG does not trap it as on hardware"}\n' % c
            for c in ('Test_icebp', 'Test_int_3_trap')))
MIN_COLLECTIONS = 5
MIN_CASES = 50


def is_local(path):
    """A breakpoints case with a local enable alone: what kselftest-broken
    breaks."""
    return (path.startswith('kselftest.breakpoints.breakpoint_test.Test_')
            and path.endswith('_local_1_global_0'))


def readme_kselftest_recipes(root):
    """The `recipes:` part of README.md's kselftest lab file, as written."""
    text = open(os.path.join(root, 'README.md')).read()
    block = text.split('```yaml\nlab: {name: kselftest-lab}\n', 1)[1]
    block = block.split('```', 1)[0]
    lines = block.splitlines(True)
    start = next(i for i, ln in enumerate(lines) if ln.startswith('recipes:'))
    end = next(i for i in range(start + 1, len(lines))
               if lines[i][:1] not in (' ', '\n', ''))
    return ''.join(lines[start:end])


def cached_build(commit, command):
    """The folder of this build in the build storage, None when it is not
    there (keyed as node/jobs/exec_build.c keys it)."""
    h = hashlib.blake2b(digest_size=16)
    for part in (commit, SPEC, 'x86_64', command, ''):
        h.update(part.encode() + b'\0')
    d = os.path.join(BUILD_DIR, 'build-cache', h.hexdigest())
    return d if os.path.exists(os.path.join(d, 'ok')) else None


def submit(n, commit, branch):
    p = n.cli('submit', '--git', n.tree, '--branch', branch, '--commit',
              commit, '--config', SPEC, '--arch', 'x86_64', '--suite',
              'kselftest', '--wait', '--timeout', '100m', check_rc=False,
              timeout=6300)
    print(p.stdout[-3000:])
    return p, p.stdout.split()[1]


def cases_of(n, req):
    return json.loads(n.cmd('--json', 'query', '--list', '--request',
                            req))['cases']


def check_good(n, req):
    cases = cases_of(n, req)
    ks = [c for c in cases if c['suite'] == 'kselftest']
    colls = {c['path'].split('.')[1] for c in ks if c['path'].count('.') >= 2}
    counts = {}
    for c in ks:
        counts[c['status']] = counts.get(c['status'], 0) + 1
    print('%d kselftest cases in %d collections (%s): %s' % (
        len(ks), len(colls), ', '.join(sorted(colls)), counts))
    check(len(ks) >= MIN_CASES and len(colls) >= MIN_COLLECTIONS,
          '%d kselftest cases in %d collections (want >= %d in >= %d): %s'
          % (len(ks), len(colls), MIN_CASES, MIN_COLLECTIONS,
             [c['path'] for c in ks][:20]))
    local = [c for c in ks if is_local(c['path'])]
    check(local and all(c['status'] == 'PASS' for c in local),
          'the local breakpoints do not pass on kselftest: %s' % local)
    build = [c for c in cases if c['suite'] == 'build']
    check(build and build[0]['status'] == 'PASS', 'build: %s' % build)
    return ks


def check_kcidb(n, want):
    """The cases in the KCIDB export; the export's tests."""
    kc = os.path.join(n.net.dir, 'kcidb.json')
    n.cmd('export', '--kcidb', '--origin', 'lmtest', '--out', kc)
    tests = json.load(open(kc)).get('tests', [])
    paths = {t['path'] for t in tests}
    missing = [c['path'] for c in want if c['path'] not in paths]
    check(not missing, 'the KCIDB export lacks kselftest tests: %s' %
          missing[:5])
    return tests


def check_blob(n, tests):
    """The build suite names the selftests' archive as its blob
    "kselftest" (the export's misc.logs), the node holds that blob, and
    it is the newc archive of /opt/labmesh/kselftest."""
    blobs = {lg['blob'] for t in tests if t['path'].startswith('build')
             for lg in t.get('misc', {}).get('logs', [])
             if lg['name'] == 'kselftest'}
    check(len(blobs) == 1, 'the build suite names no kselftest blob (or '
          'several): %s' % [t for t in tests if
                            t['path'].startswith('build')][:2])
    h = blobs.pop()
    path = os.path.join(n.home, 'blobs', h[:2], h)
    check(os.path.exists(path), 'the kselftest blob %s is not stored' % h)
    with open(path, 'rb') as f:
        head = f.read(512)
    check(head.startswith(b'070701') and b'opt/labmesh/kselftest' in head,
          'the kselftest blob is no cpio archive of /opt/labmesh/'
          'kselftest: %r' % head[:160])


def check_broken(n, good, bad_req, ks):
    cases = cases_of(n, bad_req)
    local = [c for c in cases if is_local(c['path'])]
    failed = [c for c in local if c['status'] == 'FAIL']
    check(failed, 'kselftest-broken: no local breakpoint FAILs: %s' % local)
    cmp = n.cli('compare', good[:16], bad_req[:16], check_rc=False)
    print(cmp.stdout[-1500:])
    check(cmp.returncode == 1 and failed[0]['path'] in cmp.stdout,
          'compare does not show %s as a regression: %s' % (
              failed[0]['path'], cmp.stdout))
    print('kselftest-broken: %s FAIL (%s), a regression in compare' % (
        failed[0]['path'], failed[0].get('message', '')[:120]))


def test(net):
    env = need_board(net.root)
    tree = kernel_tree(net.root)
    recipes = readme_kselftest_recipes(net.root)
    command = recipe_command(recipes, 'x86_64')
    good, bad = rev(tree, 'kselftest'), rev(tree, 'kselftest-broken')
    missing = [c[:12] for c in (good, bad) if not cached_build(c, command)]
    if missing and os.environ.get('LM_TEST_LONG') != '1':
        raise Skip('no cached build of the kselftest kernel (%s) in %s: '
                   'a first build takes 10-20 minutes, done with '
                   'LM_TEST_LONG=1 (scripts/test --long)' % (
                       ', '.join(missing), BUILD_DIR))
    os.makedirs(BUILD_DIR, exist_ok=True)
    extra = ('store:\n  build_dir: %s\n  build_budget: 40G\n' % BUILD_DIR +
             recipes)
    n = net.node('lab-ks', net.base(18530), [qemu_board('qemu-ks', env) +
                                               TCG_CRITERIA], extra)
    n.tree = tree
    n.start()
    p, req = submit(n, good, 'kselftest')
    check(p.returncode == 0, 'kselftest build and run: exit %d: %s %s' % (
        p.returncode, p.stderr, n.tail()))
    ks = check_good(n, req)
    check_blob(n, check_kcidb(n, ks))
    p, bad_req = submit(n, bad, 'kselftest-broken')
    check(p.returncode != 0, 'kselftest-broken passed')
    check_broken(n, req, bad_req, ks)
    print('kselftest OK')
    return 0


if __name__ == '__main__':
    main(test, Net)
