#!/usr/bin/env python3
"""labmesh bisect, on a toy tree. The repository has 18 commits; its
Makefile makes `vmlinuz`, a shell program that adds two numbers, and the
commit planted at index PLANTED makes it add one too many. Three labs,
each with a command-boot board (the deploy copies the image where the
fixture suite `calc` runs it), the same recipe and policy.builds_from
any. Bisecting from lab-a on lab-b's board names the planted commit; at
most ceil(log2(n)) + 2 builds happen in the whole network, each commit
built once; the bisection record is visible from every node with the
same first bad commit. lab-a (the bisecting node) and its command are
killed mid-step, then started again: the same command resumes from the
record in lab-a's store and ends right without building anything twice.
A second bisection (--arch, another config, so nothing is cached) driven
from lab-c: lab-a, whose board it starts on, is killed mid-step; the
step goes to another lab after --silence and the bisection still ends
right, and --list shows both, as lab-c's dashboard API and its page
bisect.html do. The usage
errors name the option."""
import http.client
import json
import math
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import Net, check, main, wait_for, write_suite  # noqa: E402
import lmtest  # noqa: E402
from test_jobs_git import git  # noqa: E402

N_COMMITS = 18
PLANTED = 11
RECIPE = ('recipes:\n  - arch: %s\n    timeout: 120\n'
          "    command: 'make && cp vmlinuz \"$LABMESH_OUT/vmlinuz\"'\n"
          '    configs: [defconfig]\n'
          'policy:\n  builds_from: any\n' % os.uname().machine)
CALC_YAML = ('name: calc\nversion: 1\nkind: functional\n'
             'description: the toy program adds\ntimeout: 60\nparser: tap\n')
CALC_SH = """#!/bin/sh
echo "TAP version 13"
echo "1..2"
if [ -x '%(deployed)s' ]; then echo "ok 1 - deployed"
else echo "not ok 1 - deployed"; fi
if [ "$('%(deployed)s' 2 3)" = 5 ]; then echo "ok 2 - add"
else echo "not ok 2 - add"; echo "# 2 + 3 gave $('%(deployed)s' 2 3)"; fi
"""


def make_repo(path):
    """N_COMMITS commits; the one at PLANTED breaks `add`. The list."""
    os.makedirs(path)
    git(path, 'init', '-q', '-b', 'main')
    with open(os.path.join(path, 'Makefile'), 'w') as f:
        f.write('vmlinuz: calc.sh\n\tcp calc.sh vmlinuz\n\tchmod +x vmlinuz\n')
    commits = []
    for i in range(N_COMMITS):
        extra = ' + 1' if i >= PLANTED else ''
        with open(os.path.join(path, 'calc.sh'), 'w') as f:
            f.write('#!/bin/sh\necho $(($1 + $2%s))\n' % extra)
        with open(os.path.join(path, 'NOTES'), 'w') as f:
            f.write('change %d\n' % i)
        git(path, 'add', '.')
        git(path, 'commit', '-q', '-m', 'change %d%s' % (
            i, ': faster add' if i == PLANTED else ''))
        commits.append(git(path, 'rev-parse', 'HEAD'))
    return commits


def command_board(name, deployed):
    return ('  - name: %s\n    arch: %s\n    transport: {type: local}\n'
            '    boot:\n      method: command\n'
            "      deploy: 'cp \"$LABMESH_KERNEL\" %s.$$ && mv %s.$$ %s'\n"
            "      power_cycle: 'true'\n      timeout: 30\n"
            '      boot_timeout: 30\n' % (name, os.uname().machine, deployed,
                                     deployed, deployed))


def bisect_argv(net, node, repo, commits, *more):
    return [net.labmesh, '--home', node.home, 'bisect', '--git', repo,
            '--good', commits[0], '--bad', commits[-1], '--test',
            'calc.add', '--silence', '40s', '--step-timeout', '10m'] + \
        list(more)


def start(net, node, repo, commits, *more):
    return subprocess.Popen(bisect_argv(net, node, repo, commits, *more),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=net.env, start_new_session=True)


def read_until(p, want, timeout):
    """Lines of p's output up to and including one containing want."""
    out, deadline = [], time.time() + timeout
    while time.time() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        out.append(line)
        sys.stdout.write('  | ' + line)
        if want in line:
            return out
    raise AssertionError('no %r in the bisect output: %s %s' % (
        want, ''.join(out[-20:]), p.stderr.read() if p.poll() is not None
        else ''))


def finish(p, timeout=900):
    out, err = p.communicate(timeout=timeout)
    sys.stdout.write(out)
    return out, err


def show(node, bid):
    p = node.cli('--json', 'bisect', '--show', bid, check_rc=False)
    return json.loads(p.stdout) if p.returncode == 0 else None


def builds(net, nodes, rec):
    """{commit: fresh builds} of the steps' requests, from the runs'
    build cases (built / cached build / booted the build of lab)."""
    count = {}
    for st in rec['steps']:
        if not st['request']:
            continue
        for n in nodes:
            if not n.alive():
                continue
            p = n.cli('--json', 'query', '--list', '--request',
                      st['request'], check_rc=False)
            cases = json.loads(p.stdout)['cases'] if p.returncode == 0 \
                else []
            b = [c for c in cases if c['suite'] == 'build']
            if b:
                if b[0]['message'].startswith('built'):
                    count[st['commit']] = count.get(st['commit'], 0) + 1
                break
    return count


def check_record(rec, commits, what):
    n = len(commits) - 1
    bound = math.ceil(math.log2(n)) + 2
    check(rec and rec['state'] == 'done' and
          rec['first_bad'] == commits[PLANTED],
          '%s: the bisection did not name %s: %s' % (
              what, commits[PLANTED][:12], rec))
    check(rec['commits'] == n, '%s: %d commits, not %d' % (
        what, rec['commits'], n))
    tested = [s for s in rec['steps'] if s['verdict'] in ('good', 'bad')]
    check(len(set(s['commit'] for s in tested)) <= bound,
          '%s: %d commits tested, more than %d' % (what, len(tested), bound))
    return bound


def usage_errors(net, a, repo, commits):
    p = a.cli('bisect', '--git', repo, '--good', commits[0], '--bad',
              commits[-1], check_rc=False)
    check(p.returncode == 2 and '--test' in p.stderr, 'no --test: %r' %
          p.stderr)
    p = a.cli('bisect', '--git', repo, '--good', 'nope', '--bad',
              commits[-1], '--test', 'calc', check_rc=False)
    check(p.returncode == 2 and '--good' in p.stderr and 'nope' in p.stderr,
          '--good nope: %r' % p.stderr)
    p = a.cli('bisect', '--git', repo, '--good', commits[-1], '--bad',
              commits[0], '--test', 'calc', check_rc=False)
    check(p.returncode == 1 and 'nothing to bisect' in p.stderr,
          'swapped ends: %r' % p.stderr)
    p = a.cli('bisect', '--git', repo, '--good', commits[0], '--bad',
              commits[-1], '--test', 'calc/add', check_rc=False)
    check(p.returncode == 2 and '--test' in p.stderr, '--test calc/add: %r'
          % p.stderr)
    # a URL: the history is read from a bare clone in the home
    p = a.cli('bisect', '--git', 'file://' + repo, '--good', commits[0],
              '--bad', 'nope', '--test', 'calc', check_rc=False)
    check(p.returncode == 2 and '--bad' in p.stderr and 'file://' in
          p.stderr, '--git file://: %r' % p.stderr)
    clones = os.listdir(os.path.join(a.home, 'bisect'))
    check(len(clones) == 1 and git(os.path.join(a.home, 'bisect', clones[0]),
                                   'rev-parse', 'main') == commits[-1],
          'no bare clone of the URL: %s' % clones)
    p = a.cli('bisect', '--show', 'zz', check_rc=False)
    check(p.returncode == 2 and '--show' in p.stderr, '--show zz: %r' %
          p.stderr)
    p = a.cli('bisect', '--show', 'abcdef0123', check_rc=False)
    check(p.returncode == 1 and 'no bisection' in p.stderr,
          '--show unknown: %r' % p.stderr)
    print('usage errors name the option')


def api(c, port, bid):
    """lab-c's dashboard answers what --list/--show --json print."""
    for path, args in (('/api/bisections', ('--list',)),
                       ('/api/bisect?id=' + bid[:8], ('--show', bid))):
        conn = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
        conn.request('GET', path)
        r = conn.getresponse()
        body = r.read().decode()
        conn.close()
        want = c.cli('--json', 'bisect', *args).stdout
        check(r.status == 200 and body == want, '%s: %d %r, not %r' % (
            path, r.status, body[:300], want[:300]))
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
    conn.request('GET', '/api/bisect?id=zz')
    r = conn.getresponse()
    r.read()
    check(r.status == 400, '/api/bisect?id=zz: %d' % r.status)
    print('dashboard: /api/bisections and /api/bisect as --json')
    page(port, bid)


def page(port, bid):
    """bisect.html in headless chromium (when installed): the list links
    the bisection, its page names the first bad commit."""
    if not lmtest.BROWSER:
        print('no chromium: bisect.html not drawn')
        return
    base = 'http://127.0.0.1:%d/bisect.html' % port
    for url, want in ((base, 'bisect.html?id=' + bid[:12]),
                      (base + '?id=' + bid[:12], 'id="first-bad"')):
        dom = lmtest.chromium(url, '--dump-dom', timeout=90)
        check(want in dom and 'class="error"' not in dom,
              '%s: %s' % (url, dom[-1500:]))
        if 'first-bad' in want:
            check(re.search(r'id="first-bad">[0-9a-f]{40}<', dom),
                  '%s names no first bad commit' % url)
    print('dashboard: bisect.html lists it and names its first bad commit')


def net_up(net, deployed, suites_dir):
    net.env['LABMESH_SUITES'] = suites_dir
    a = net.node('lab-a', net.base(27600),
                 [command_board('a1', deployed)], RECIPE).start()
    b = net.node('lab-b', a.port + 1, [command_board('b1', deployed)],
                 RECIPE, seeds=[a]).start()
    c = net.node('lab-c', a.port + 2, [command_board('c1', deployed)],
                 RECIPE, seeds=[a, b]).start(
                     args=('--http', '127.0.0.1:%d' % (a.port + 3)))
    nodes = [a, b, c]
    wait_for('peers', lambda: all(n.peers_up() == 2 for n in nodes), 60,
             0.2)
    wait_for('adverts', lambda: all(len(n.boards_json()) == 3
                                    for n in nodes), 60, 0.2)
    return nodes


def first(net, nodes, repo, commits):
    """Bisect from lab-a on b1; lab-a and the command killed mid-step."""
    a = nodes[0]
    p = start(net, a, repo, commits, '--board', 'b1')
    read_until(p, 'step 3: testing', 300)
    os.killpg(p.pid, 9)
    p.wait()
    a.kill()
    print('killed lab-a and its bisect at step 3')
    time.sleep(2)
    a.start()
    p = start(net, a, repo, commits, '--board', 'b1')
    out, err = finish(p)
    check(p.returncode == 0, 'resumed bisect exit %d: %s' % (
        p.returncode, err))
    check('resuming after step' in out, 'it did not resume: %s' % out)
    check('first bad commit: %s' % commits[PLANTED] in out,
          'not the planted commit: %s' % out[-800:])
    bid = out.split()[1].rstrip(':')
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
    text = a.cli('bisect', '--show', bid).stdout
    check(commits[PLANTED] in text and 'b1' in text, '--show: %s' % text)
    print('first bisection: %s, %d steps, %d builds (bound %d), resumed'
          ' after lab-a restarted' % (commits[PLANTED][:12],
                                       len(rec['steps']),
                                       sum(count.values()), bound))


def second(net, nodes, repo, commits):
    """From lab-c on any board (a1 first); lab-a killed mid-step."""
    a, b, c = nodes
    p = start(net, c, repo, commits, '--arch', os.uname().machine,
              '--config', 'defconfig')
    head = read_until(p, 'step 2: testing', 300)
    a.kill()
    print('killed lab-a (the board of step 2)')
    out, err = finish(p)
    out = ''.join(head) + out
    check(p.returncode == 0, 'bisect exit %d: %s' % (p.returncode, err))
    check('is lost on lab-a/a1' in out and 'withdrew the step' in out,
          'no lost and withdrawn step: %s' % out)
    check('first bad commit: %s' % commits[PLANTED] in out,
          'not the planted commit: %s' % out[-800:])
    bid = out.split()[1].rstrip(':')
    for n in (b, c):
        rec = wait_for('the record at %s' % n.name, lambda: (
            lambda r: r if r and r['state'] == 'done' else None)(
                show(n, bid)), 60, 0.5)[0]
        check_record(rec, commits, n.name)
    check(any(s['lab'] != 'lab-a' for s in rec['steps']),
          'every step on lab-a: %s' % rec['steps'])
    listed = json.loads(c.cli('--json', 'bisect', '--list').stdout)
    check(len(listed) == 2 and all(x['state'] == 'done' and x['first_bad']
                                   == commits[PLANTED] for x in listed),
          '--list at lab-c: %s' % listed)
    api(c, a.port + 3, bid)
    print('second bisection: %s after lab-a went away mid-step' %
          commits[PLANTED][:12])


def test(net):
    repo = os.path.join(net.dir, 'repo')
    commits = make_repo(repo)
    deployed = os.path.join(net.dir, 'deployed')
    suites = write_suite(os.path.join(net.dir, 'suites'), 'calc', CALC_YAML,
                         CALC_SH % {'deployed': deployed})
    nodes = net_up(net, deployed, suites)
    usage_errors(net, nodes[0], repo, commits)
    first(net, nodes, repo, commits)
    second(net, nodes, repo, commits)
    print('bisect OK')
    return 0


if __name__ == '__main__':
    main(test, Net)
