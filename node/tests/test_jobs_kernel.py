#!/usr/bin/env python3
"""A real Linux tree through the network: Debian's linux-source-6.1 made
a git repository once (scripts/kernel-tree, in ~/.cache/labmesh), built by
a lab whose recipes are README.md's "Building kernels" recipes copied as
written, with tinyconfig plus the tree's QEMU board fragment, booted on
the QEMU x86_64 board: the kernel's `uname -r` (the board's banner on the
console) carries the commit.

The lab's build storage (store.build_dir) is ~/.cache/labmesh/kbuild-test,
kept across runs: the first run builds the tree (10-20 minutes on two
cores), later runs boot the cached build. Then the branch `broken` (a
syntax error in kernel/panic.c) is built in the kept tree (a rebuild of
that file): its build FAILs, and `query`, the matrix, the KCIDB export and
`compare`, the JUnit export and the dashboard's API show it with the
compiler's error line; so do the dashboard's pages in chromium (the
broken run's cases, the request's page; screenshots in
BUILD/dash-shots/kernel-build-fail-*.png).

Build once, boot everywhere: a second lab, lab-boot, with the same
recipes and policy.builds_from naming lab-kernel, is asked for the good
commit: it boots lab-kernel's image, fetched as blobs, without building
(its progress and build case say whose build it booted, it has no build
storage), and the booted uname -r carries the commit.

Every package of scripts/deps/kbuild is in README.md's table of the
build path's dependencies.

With LM_TEST_LONG=1, the same for arm64: cross-built with Debian's
gcc-aarch64-linux-gnu and booted on the aarch64 QEMU board."""
import html
import http.client
import json
import os
import re
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import Net, Skip, check, main, need_board, qemu_board, \
    wait_for  # noqa: E402
import lmtest  # noqa: E402

BROWSER = lmtest.BROWSER

CACHE = os.path.join(os.environ.get('LABMESH_CACHE') or os.path.expanduser(
    '~/.cache/labmesh'))
BUILD_DIR = os.path.join(CACHE, 'kbuild-test')


def readme_recipes(root):
    """The `recipes:` part of README.md's "Building kernels" lab file,
    as written."""
    text = open(os.path.join(root, 'README.md')).read()
    sec = text.split('### Building kernels', 1)[1]
    block = sec.split('```yaml\n', 1)[1].split('```', 1)[0]
    lines = block.splitlines(True)
    start = next(i for i, ln in enumerate(lines) if ln.startswith('recipes:'))
    end = next(i for i in range(start + 1, len(lines))
               if lines[i][:1] not in (' ', '\n', ''))
    return ''.join(lines[start:end])


def readme_deps(root):
    """Every package of scripts/deps/kbuild is named, with what it is
    for, in README.md's "Building kernels"."""
    text = open(os.path.join(root, 'README.md')).read()
    sec = text.split('### Building kernels', 1)[1].split('\n### ', 1)[0]
    pkgs = [ln.split('#')[0].strip() for ln in open(
        os.path.join(root, 'scripts', 'deps', 'kbuild'))]
    missing = [p for p in pkgs if p and not re.search(
        r'^\|[^|\n]*`%s`[^|\n]*\| \S' % re.escape(p), sec, re.M)]
    check(not missing, 'README "Building kernels" does not say what these'
          ' build dependencies are for: %s' % missing)


def kernel_tree(root):
    p = subprocess.run([os.path.join(root, 'scripts', 'kernel-tree')],
                       capture_output=True, text=True, timeout=3600)
    if p.returncode != 0:
        raise Skip('no kernel tree: %s' % p.stderr.strip()[-300:])
    return p.stdout.strip().splitlines()[-1]


def rev(tree, name):
    return subprocess.run(['git', '-C', tree, 'rev-parse', name],
                          capture_output=True, text=True,
                          check=True).stdout.strip()


def aarch64_board(name):
    d = os.path.join(CACHE, 'boards', 'aarch64')
    env = {}
    try:
        for line in open(os.path.join(d, 'board.env')):
            if '=' in line and not line.startswith('#'):
                k, v = line.strip().split('=', 1)
                env[k] = v.strip("'")
    except OSError:
        return None
    return ('  - name: %s\n    arch: aarch64\n    tags: [qemu]\n'
            '    transport: {type: serial, console: qemu}\n'
            '    boot:\n      method: qemu\n      machine: virt\n'
            '      cpu: %s\n      memory: 512\n      cpus: 1\n'
            '      kernel: %s\n      initrd: %s\n      append: "%s"\n'
            '      timeout: 600\n' % (name, env['CPU'], env['KERNEL'],
                                      env['INITRD'], env['APPEND']))


def board_of(st, name):
    for lab in st['labs']:
        for b in lab['boards']:
            if b['board'] == name:
                return b
    return None


def build_and_boot(n, tree, commit, arch, board, lab=None):
    """Submit commit for arch (to lab only, when given) and wait; the
    board's console banner carries the commit. The request and the
    output of --wait."""
    spec = 'tinyconfig+kernel/configs/labmesh-qemu-%s.config' % arch
    t0 = time.time()
    p = n.cli('submit', '--git', tree, '--branch', 'main', '--commit',
              commit, '--config', spec, '--arch', arch, '--suite', 'smoke',
              '--wait', '--timeout', '100m', *(('--lab', lab) if lab else ()),
              check_rc=False, timeout=6300)
    took = time.time() - t0
    print(p.stdout[-3000:])
    check(p.returncode == 0, '%s build and boot: exit %d: %s %s' % (
        arch, p.returncode, p.stderr, n.tail()))
    req = p.stdout.split()[1]
    run = board_of(n.req_status(req), board)['run']
    console = n.cli('log', run, '--suite', 'console', check_rc=False).stdout
    if not console.strip():
        console = n.cli('log', run).stdout
    m = re.search(r'labmesh-board: ready \((\S+) (\S+)\)', console)
    check(m, 'no banner with uname -r on the console: %s' % console[-1500:])
    check('-g' + commit[:12] in m.group(1),
          'uname -r %s does not carry commit %s' % (m.group(1), commit[:12]))
    cached = 'cached build' in p.stdout
    print('%s: uname -r %s (%s) in %.0f s%s' % (
        arch, m.group(1), m.group(2), took, ' (cached build)' if cached
        else ''))
    return req, p.stdout


def broken_build(n, tree, good_req):
    bad = rev(tree, 'broken')
    spec = 'tinyconfig+kernel/configs/labmesh-qemu-x86_64.config'
    t0 = time.time()
    p = n.cli('submit', '--git', tree, '--branch', 'broken', '--commit', bad,
              '--config', spec, '--arch', 'x86_64', '--suite', 'smoke',
              '--lab', 'lab-kernel', '--wait', '--timeout', '100m',
              check_rc=False, timeout=6300)
    print(p.stdout[-2000:])
    check(p.returncode != 0, 'a broken commit passed')
    req = p.stdout.split()[1]
    check('build' in p.stdout and 'FAIL' in p.stdout,
          '--wait does not show the build FAIL: %s' % p.stdout[-1500:])
    cases = json.loads(n.cmd('--json', 'query', '--list', '--request',
                             req))['cases']
    b = [c for c in cases if c['suite'] == 'build']
    check(b and b[0]['status'] == 'FAIL' and 'error' in b[0]['message'] and
          'panic.c' in b[0]['message'],
          'query: no build FAIL with the error line: %s' % cases)
    matrix = n.cmd('query', '--commit', bad[:12])
    check('build' in matrix and 'FAIL' in matrix,
          'the matrix does not show the build FAIL: %s' % matrix)
    kc = os.path.join(n.net.dir, 'kcidb.json')
    n.cmd('export', '--kcidb', '--origin', 'lmtest', '--out', kc)
    k = json.load(open(kc))
    fails = [x for x in k.get('builds', []) if x.get('status') == 'FAIL' or
             x.get('valid') is False]
    check(fails, 'the KCIDB export has no failed build: %s' %
          k.get('builds'))
    ju = os.path.join(n.net.dir, 'junit.xml')
    n.cmd('export', '--junit', '--out', ju)
    junit = open(ju).read()
    check(re.search(r'<testcase[^>]*name="kernel"[^>]*>\s*<failure', junit)
          or ('build' in junit and 'panic.c' in junit),
          'the JUnit export has no failed build')
    conn = http.client.HTTPConnection('127.0.0.1', n.http_port, timeout=30)
    conn.request('GET', '/api/query?view=list&request=' + req)
    dash = json.loads(conn.getresponse().read())
    conn.close()
    d = [c for c in dash['cases'] if c['suite'] == 'build']
    check(d and d[0]['status'] == 'FAIL' and 'panic.c' in d[0]['message'],
          'the dashboard API does not show the build FAIL: %s' % dash)
    dash_pages(n, req, board_of(n.req_status(req), 'qemu-k')['run'])
    cmp = n.cli('compare', good_req[:16], req[:16], check_rc=False)
    print(cmp.stdout[-1500:])
    check(cmp.returncode == 1 and 'build' in cmp.stdout,
          'compare does not name the broken build: %s' % cmp.stdout)
    print('broken commit %s: build FAIL in %.0f s: %s' % (
        bad[:12], time.time() - t0, b[0]['message'][:200]))


def chromium(url, *mode):
    return lmtest.chromium(url, *mode, size='1400,800')


def dash_pages(n, req, run):
    """The dashboard's pages, rendered by chromium: the broken run's
    build cases show FAIL and the compiler's error line, one line of the
    log each; the request's page a FAIL build cell. Screenshots:
    BUILD/dash-shots/kernel-build-fail-*.png."""
    if not BROWSER:
        print('chromium is not installed: the pages are not looked at')
        return
    shots = os.path.join(os.path.dirname(os.path.dirname(n.net.labmesh)),
                         'dash-shots')
    os.makedirs(shots, exist_ok=True)
    base = 'http://127.0.0.1:%d' % n.http_port
    doms = {}
    for name, path in (('cases', '/cases.html?' + urllib.parse.urlencode(
            {'run': run, 'suite': 'build'})), ('request',
                                               '/request.html?id=' + req)):
        doms[name] = chromium(base + path, '--dump-dom')
        png = os.path.join(shots, 'kernel-build-fail-%s.png' % name)
        chromium(base + path, '--screenshot=' + png)
        print('page %s: %s' % (name, png))
    lines = [html.unescape(x) for x in re.findall(
        r'<div class="build-line">([^<]*)</div>', doms['cases'])]
    check('<span class="st st-FAIL">FAIL</span>' in doms['cases'] and
          any('panic.c' in x and 'error:' in x for x in lines),
          'the cases page does not show the build FAIL with its error'
          ' line: %s' % doms['cases'][-3000:])
    check(re.search(r'<td class="cell st-FAIL" data-suite="build"',
                    doms['request']),
          'the request page has no FAIL build cell: %s' %
          doms['request'][-3000:])
    print('the pages show the build FAIL: %s' % lines)


def boot_elsewhere(net, n, tree, commit, env, recipes):
    """Build once, boot everywhere: lab-boot, with the same recipes and
    policy.builds_from naming lab-kernel, asked for the commit lab-kernel
    built, boots lab-kernel's image without building; its uname -r
    carries the commit."""
    b = net.node('lab-boot', n.port + 1, [qemu_board('qemu-boot', env)],
                 'policy:\n  builds_from: [%s]\n' % n.id + recipes,
                 seeds=[n]).start()
    wait_for('peers', lambda: n.peers_up() == 1 and b.peers_up() == 1, 60,
             0.2)
    wait_for('lab-kernel\'s build at lab-boot', lambda: [
        c for c in json.loads(b.cmd('--json', 'query', '--list', '--commit',
                                    commit))['cases']
        if c['suite'] == 'build' and c['lab'] == 'lab-kernel' and
        c['arch'] == 'x86_64' and c['status'] == 'PASS'], 120, 0.5)
    t0 = time.time()
    req, out = build_and_boot(b, tree, commit, 'x86_64', 'qemu-boot',
                              lab='lab-boot')
    check('booting the build of lab lab-kernel' in out and
          'building ' + commit[:12] not in out,
          'lab-boot does not boot lab-kernel\'s build: %s' % out[-1500:])
    case = [c for c in json.loads(b.cmd('--json', 'query', '--list',
                                        '--request', req))['cases']
            if c['suite'] == 'build']
    check(case and case[0]['status'] == 'PASS' and
          'booted the build of lab lab-kernel' in case[0]['message'],
          'lab-boot\'s build case: %s' % case)
    for sub in ('trees', 'build-cache', 'git', 'ccache'):
        check(not os.path.exists(os.path.join(b.home, 'work', sub)),
              'lab-boot has build storage: work/%s' % sub)
    print('lab-boot booted lab-kernel\'s build in %.0f s: %s' % (
        time.time() - t0, case[0]['message']))


def test(net):
    readme_deps(net.root)
    env = need_board(net.root)
    tree = kernel_tree(net.root)
    recipes = readme_recipes(net.root)
    os.makedirs(BUILD_DIR, exist_ok=True)
    boards = [qemu_board('qemu-k', env)]
    long = os.environ.get('LM_TEST_LONG') == '1'
    arm = aarch64_board('qemu-k-arm') if long else None
    if arm and subprocess.run(['which', 'aarch64-linux-gnu-gcc',
                               'qemu-system-aarch64'],
                              capture_output=True).returncode == 0:
        boards.append(arm)
    else:
        arm = None
    extra = ('store:\n  build_dir: %s\n  build_budget: 40G\n' % BUILD_DIR +
             recipes)
    n = net.node('lab-kernel', net.base(18450), boards, extra)
    n.http_port = n.port + 5
    n.start(args=['--http', '127.0.0.1:%d' % n.http_port])
    good = rev(tree, 'main')
    # (to lab-kernel only: lab-boot, joining later, would take them too)
    req, _ = build_and_boot(n, tree, good, 'x86_64', 'qemu-k',
                            lab='lab-kernel')
    broken_build(n, tree, req)
    if arm:
        build_and_boot(n, tree, good, 'aarch64', 'qemu-k-arm',
                       lab='lab-kernel')
    boot_elsewhere(net, n, tree, good, env, recipes)
    jobs = os.path.join(n.home, 'work', 'jobs')
    left = os.listdir(jobs) if os.path.isdir(jobs) else []
    check(not left, 'job folders left: %s' % left)
    print('real kernel OK')
    return 0


if __name__ == '__main__':
    main(test, Net)
