#!/usr/bin/env python3
"""The rough edges of the commands, checked as the text people read.

Without a node: `suites --home` (typical duration and description),
`id` on a home that does not exist, `boards` with no node, `query
--commit v6.12`, `run` on a QEMU board whose QEMU is missing, a lab file
with a misspelt key and one with a YAML syntax error. With one lab (a local board): submit's option errors
(--expires 3x, --commit v6.12, --priority, a misspelt suite with a
"did you mean", a .pub file as --key), `status` alone listing the
requests, a 6-hex-digit id, a malformed one, `cancel` of a finished
request, and Ctrl-C during `submit --wait` naming the request and how
to follow or cancel it. A real run of kselftest, which SKIPs as a whole
on a board without an install of it: the matrix (`query --matrix`, text
and JSON) shows SKIP with the suite's reason, not 0/0/0, and the KCIDB
export has it as the suite test's comment.

usage: test_cli_results.py LABMESH
"""
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import Net, check, local_board, main, wait_for  # noqa: E402


def err_line(p):
    return p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''


def without_node(net):
    home = os.path.join(net.dir, 'quiet')
    os.makedirs(home)
    p = net.run('suites', '--home', home)
    head = p.stdout.splitlines()[0].split()
    check(head[:6] == ['NAME', 'KIND', 'VERSION', 'TYPICAL', 'DESCRIPTION',
                       'NEEDS'], 'suites --home: header %r' % head)
    smoke = [ln for ln in p.stdout.splitlines() if ln.startswith('smoke ')]
    check(smoke and 'max 60 s' in smoke[0] and 'Core user space' in smoke[0],
          'smoke: typical duration and description: %r' % smoke)

    fresh = os.path.join(net.dir, 'not-yet')
    p = net.run('id', '--home', fresh)
    check(len(p.stdout.strip()) == 64 and 'did not exist: made it' in
          p.stderr, 'id on a missing home says it made one: %r' % p.stderr)
    p = net.run('id', '--home', fresh)
    check(p.stderr == '', 'id again: nothing to say: %r' % p.stderr)

    p = net.run('boards', '--home', home)
    check(p.returncode == 0 and 'no node is running in' in p.stderr and
          'labmesh node --home' in p.stderr,
          'boards with no node says so: %r' % p.stderr)

    lab = os.path.join(net.dir, 'qemu.yaml')
    with open(lab, 'w') as f:
        f.write('lab: {name: q}\nboards:\n  - name: qb\n    arch: x86_64\n'
                '    transport: {type: serial, console: qemu}\n'
                '    boot: {method: qemu, qemu: /nonexistent/qemu-x,'
                ' kernel: /etc/hostname, timeout: 20}\n')
    p = net.run('run', '--home', home, '--config', lab, '--board', 'qb',
                '--suite', 'smoke', check_rc=False)
    check(p.returncode == 1 and 'QEMU is missing: cannot run'
          ' /nonexistent/qemu-x' in p.stderr,
          'run with no QEMU says so: exit %d %r' % (p.returncode, p.stderr))

    for text, want in (
            ('lab: {name: t}\nboards:\n  - name: b\n    arch: x86_64\n'
             '    transprot: {type: local}\n',
             "bad.yaml:5: boards[0].transprot: unknown field 'transprot':"
             " did you mean 'transport'?"),
            ('lab: {name: t}\nboards:\n  - name: b\n    arch: [x86_64\n',
             "bad.yaml:5: a [list] is not closed: a ',' or ']' is missing")):
        bad = os.path.join(net.dir, 'bad.yaml')
        with open(bad, 'w') as f:
            f.write(text)
        p = net.run('run', '--home', home, '--config', bad, '--board', 'b',
                    '--suite', 'smoke', check_rc=False)
        check(p.returncode == 2 and want in p.stderr,
              'lab file error %r: %r' % (want, p.stderr))

    p = net.run('query', '--home', home, '--commit', 'v6.12',
                check_rc=False)
    check(p.returncode == 2 and "--commit 'v6.12'" in p.stderr and
          'hex digits' in p.stderr, 'query --commit v6.12: %r' % p.stderr)


def submit_errors(net, n):
    cases = [
        (['--expires', '3x'], "--expires '3x': give a duration like 90s"),
        (['--commit', 'v6.12', '--git', 'https://x.org/l.git', '--branch',
          'b'], "--commit 'v6.12': give the whole commit id, 40"),
        (['--priority', '9x'], "--priority '9x': give 0 to"),
        (['--max-per-lab', '0'], "--max-per-lab '0': give a number"),
    ]
    for args, want in cases:
        p = n.cli('submit', '--suite', 'smoke', *args, check_rc=False)
        check(p.returncode == 2 and want in p.stderr,
              'submit %s: %r' % (' '.join(args), p.stderr))
    p = n.cli('submit', '--suite', 'smoke,smok', check_rc=False)
    check(p.returncode == 2 and 'did you mean smoke?' in p.stderr,
          'a misspelt suite is caught here: %r' % p.stderr)
    p = n.cli('submit', '--suite', 'smoke,qwertyuiop', '--no-send',
              check_rc=False)
    check(p.returncode == 0 and "warning: no lab this node has heard of"
          " runs a suite 'qwertyuiop'" in p.stderr,
          'a suite no one knows, far from every name, is sent with a'
          ' warning: %r' % p.stderr)
    pub = os.path.join(net.dir, 'config', 'labmesh', 'key.pub')
    p = n.cli('submit', '--suite', 'smoke', '--key', pub, check_rc=False)
    check(p.returncode != 0 and 'is a public key' in p.stderr and
          pub[:-4] + ')' in p.stderr, '--key FILE.pub: %r' % p.stderr)


def requests(net, n):
    p = n.cli('status')
    check('no request' in p.stdout, 'status with nothing: %r' % p.stdout)
    req = n.cmd('submit', '--suite', 'smoke').split()[1]
    wait_for('the run', lambda: 'finished 1/1' in n.cmd('status'), 60, 0.2)
    rows = n.cmd('status').splitlines()
    check(rows[0].split()[:3] == ['REQUEST', 'SUBMITTED', 'STATE'] and
          rows[1].startswith(req[:12]) and 'smoke' in rows[1],
          'status lists the request: %r' % rows)
    p = n.cli('status', req[:6])
    check('done' in p.stdout, 'a 6-digit id finds it: %r' % p.stdout)
    p = n.cli('status', req[:5], check_rc=False)
    check(p.returncode == 1 and 'give 6 to 64 hex digits' in p.stderr,
          'a 5-digit id: %r' % p.stderr)
    p = n.cli('status', 'f' * 12 if not req.startswith('f' * 12) else
              '0' * 12, check_rc=False)
    check(p.returncode == 1 and 'no request' in p.stderr,
          'an unknown id: %r' % p.stderr)
    p = n.cli('cancel', req[:8])
    check('had already finished' in p.stdout and 'nothing to cancel' in
          p.stdout, 'cancel of a finished request: %r' % p.stdout)

    w = subprocess.Popen([net.labmesh, '--home', n.home, 'submit',
                          '--suite', 'smoke,fs-tmpfs', '--wait'],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=net.env)
    time.sleep(1.5)
    w.send_signal(signal.SIGINT)
    out, err = w.communicate(timeout=20)
    rid = out.split()[1] if out.split() else '?'
    check(w.returncode != 0 and 'request %s goes on' % rid in err and
          'labmesh status %s' % rid[:12] in err and
          'labmesh cancel %s' % rid[:12] in err,
          'Ctrl-C during --wait names the request: %r' % err)
    print('Ctrl-C: %s' % err.strip().replace('\n', ' | '))


def suite_reasons(net, n):
    out = n.cli('submit', '--suite', 'smoke,kselftest', '--wait',
                check_rc=False).stdout
    req = out.split()[1]
    p = n.cli('query', '--request', req, '--matrix')
    print(p.stdout)
    rows = [ln for ln in p.stdout.splitlines() if ln.startswith('box ')]
    check(rows and 'SKIP: no kselftest install (run_kselftest.sh) on this'
          ' board' in rows[0] and '0/0/0' not in rows[0],
          'the matrix shows kselftest SKIP with its reason: %r' % rows)
    js = n.json('query', '--request', req, '--matrix')
    cells = {c['suite']: c for b in js['boards'] for c in b['cells']}
    ks = cells.get('kselftest', {})
    check(ks.get('status') == 'SKIP' and ks.get('reason') ==
          'no kselftest install (run_kselftest.sh) on this board',
          'JSON cell: kselftest status and reason: %r' % ks)
    check('reason' not in cells.get('smoke', {'reason': 1}),
          'a suite that passed has no reason: %r' % cells.get('smoke'))
    doc = json.loads(n.cmd('export', '--kcidb', '--request', req))
    kt = [t for t in doc['tests'] if t['path'] == 'kselftest']
    check(kt and kt[0]['status'] == 'SKIP' and kt[0].get('comment') ==
          'no kselftest install (run_kselftest.sh) on this board',
          'KCIDB: the suite test has its reason as comment: %r' % kt)


def test(net):
    without_node(net)
    n = net.node('lab-cli', net.base(17960), [local_board('box')]).start()
    submit_errors(net, n)
    requests(net, n)
    suite_reasons(net, n)


if __name__ == '__main__':
    main(test, Net)
