#!/usr/bin/env python3
"""Leases: three labs in a line A - B - C (A and C do not link: trust
lists), ports 27300-27399. A key at A leases C's QEMU board through the
network; `exec` gives output and exit status, `console` under a pty
runs a typed command and leaves with ~., `put` then `get` of a 1 MiB
file comes back byte for byte, `power cycle` reboots it (a file in its
tmpfs is gone, the shell answers again); a second key cannot use the
lease; a key outside policy.leases is refused with the reason; `boards`
on A shows the holder and the end; renew moves the end; release ends
it. On C's local board a
short lease holds back a queued job (and a local `labmesh run`: one
lock per board); when it expires a lease that waited in the board's
queue takes the board before the job, which runs once that is released;
a lease holds across a restart of the lab's node; the operator's revoke
ends a lease."""
import os
import pty
import select
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import (Fail, Net, check, local_board, main,  # noqa: E402
                      need_board, qemu_board, wait_for)

T = '600'  # seconds a lease operation may wait (the first boots QEMU)


def board(n, lab, name):
    for b in n.boards_json():
        if b['lab'] == lab and b['board'] == name:
            return b
    return None


def wait_board(n, name, what, fn, timeout=60):
    return wait_for('lab-c/%s %s on %s' % (name, what, n.name),
                    lambda: (lambda b: b if b and fn(b) else None)(
                        board(n, 'lab-c', name)), timeout, 0.2)[0]


def keygen(net, name):
    path = os.path.join(net.dir, name + '.key')
    net.run('keygen', '--out', path)
    with open(path + '.pub') as f:
        return path, f.read().split()[-1]


def run(n, *args, key=None, rc=0):
    extra = ['--key', key] if key else []
    p = n.cli(*(list(args[:1]) + extra + list(args[1:])), check_rc=False,
              timeout=int(T) + 60)
    if rc is not None and p.returncode != rc:
        raise Fail('labmesh %s: exit %d (want %d): %s %s' % (
            ' '.join(args), p.returncode, rc, p.stdout[-2000:],
            p.stderr[-2000:]))
    return p


def console(net, a):
    """`labmesh console` under a pty: a command typed, its answer read,
    ~. leaves."""
    mfd, sfd = pty.openpty()
    p = subprocess.Popen([net.labmesh, '--home', a.home, 'console',
                          'lab-c/c-qemu'], stdin=sfd, stdout=sfd, stderr=sfd,
                         env=net.env, start_new_session=True)
    os.close(sfd)
    seen = [b'']

    def until(token, timeout):
        deadline = time.time() + timeout
        while token not in seen[0]:
            if time.time() > deadline:
                raise Fail('console: no %r in %r' % (token, seen[0][-500:]))
            if select.select([mfd], [], [], 0.5)[0]:
                try:
                    seen[0] += os.read(mfd, 4096)
                except OSError:
                    break
    try:
        until(b'type ~.', 60)
        os.write(mfd, b'echo con$((6*7))sole\r')
        until(b'con42sole', 120)
        os.write(mfd, b'\r~.')
        until(b'left the console', 60)
        rc = p.wait(60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        os.close(mfd)
    check(rc == 0, 'console exit %d: %r' % (rc, seen[0][-500:]))


def test_qemu(net, a, c, second, outsider):
    """second, outsider: key files."""
    p = run(a, 'lease', 'lab-c/c-qemu', '--for', '20m', '--wait')
    check('leased lab-c/c-qemu' in p.stdout, 'lease: %s' % p.stdout)
    b = wait_board(a, 'c-qemu', 'leased', lambda b: 'holder' in b)
    check(net.submitter.startswith(b['holder']) and b['state'] == 'busy'
          and b.get('lease_until'), 'boards on A: %s' % b)
    check('leased to %s' % b['holder'] in a.cmd('boards'), 'boards text')
    print('lease: granted through B, shown on A: %s until %s' %
          (b['holder'], b['lease_until']))

    p = run(a, 'exec', 'lab-c/c-qemu', '--timeout', T, '--',
            'echo hello-from-$(uname -m); exit 3', rc=3)
    check('hello-from-x86_64' in p.stdout, 'exec output: %r' % p.stdout)
    print('exec: output and exit status 3 came back')

    run(a, 'lease', 'renew', 'lab-c/c-qemu', '--for', '40m')
    r = wait_board(a, 'c-qemu', 'renewed', lambda x: x.get(
        'lease_until', '') > b['lease_until'])
    print('renew: the lease now ends at %s' % r['lease_until'])

    blob = os.urandom(1 << 20)
    src, back = os.path.join(net.dir, 'blob'), os.path.join(net.dir, 'back')
    with open(src, 'wb') as f:
        f.write(blob)
    run(a, 'put', 'lab-c/c-qemu', src, '/tmp/blob', '--timeout', T)
    p = run(a, 'exec', 'lab-c/c-qemu', '--', 'wc -c </tmp/blob')
    check(p.stdout.strip() == str(1 << 20), 'size on board: %r' % p.stdout)
    run(a, 'get', 'lab-c/c-qemu', '/tmp/blob', back, '--timeout', T)
    with open(back, 'rb') as f:
        check(f.read() == blob, 'get: not the bytes put')
    print('put/get: 1 MiB there and back, byte for byte')

    p = run(a, 'exec', 'lab-c/c-qemu', '--', 'true', key=second, rc=1)
    check('leased to another key' in p.stderr, 'second key: %s' % p.stderr)
    print('second key: refused (%s)' % p.stderr.strip())

    console(net, a)
    p = run(a, 'exec', 'lab-c/c-qemu', '--', 'echo after-console')
    check(p.stdout.strip() == 'after-console', 'exec after console: %r' %
          p.stdout)
    print('console: typed a command under a pty, read its answer, left')

    run(a, 'exec', 'lab-c/c-qemu', '--', 'touch /tmp/marker')
    run(a, 'power', 'lab-c/c-qemu', 'cycle', '--timeout', T)
    p = run(a, 'exec', 'lab-c/c-qemu', '--timeout', T, '--',
            'test -e /tmp/marker && echo still || echo rebooted', rc=0)
    check(p.stdout.strip() == 'rebooted', 'after cycle: %r' % p.stdout)
    print('power cycle: the board booted again')

    p = run(a, 'lease', 'lab-c/c-1', '--for', '5m', '--wait',
            key=outsider, rc=1)
    check('may not lease' in p.stderr and 'policy.leases' in p.stderr,
          'outsider: %s' % p.stderr)
    print('outsider: %s' % p.stderr.strip())

    run(a, 'lease', 'release', 'lab-c/c-qemu')
    wait_board(a, 'c-qemu', 'released', lambda b: 'holder' not in b and
               b['state'] == 'idle')
    p = run(a, 'exec', 'lab-c/c-qemu', '--', 'true', rc=1)
    check('not leased' in p.stderr, 'after release: %s' % p.stderr)
    print('release: the board is free again')


def second_short(net):
    with open(os.path.join(net.dir, 'second.key.pub')) as f:
        return f.read().split()[-1][:12]


def test_expiry(net, a, c, second):
    run(a, 'lease', 'lab-c/c-1', '--for', '12s', '--wait', key=second)
    wait_board(a, 'c-1', 'leased', lambda b: 'holder' in b)
    p = net.run('run', '--home', c.home, '--config', c.cfg, '--board', 'c-1',
                '--suite', 'smoke', check_rc=False)
    check(p.returncode == 1 and 'in use by this lab' in p.stderr,
          'local run on a leased board: %d %s' % (p.returncode, p.stderr))
    print('one lock: a local run is refused while the lease holds it')
    p = run(a, 'submit', '--lab', 'lab-c', '--board', 'c-1', '--suite',
            'smoke')
    req = p.stdout.split()[1]
    time.sleep(3)
    st = a.req_status(req) or {}
    bs = [b for lab in st.get('labs', []) for b in lab['boards']]
    check(all(not b['final'] for b in bs), 'job ran under a lease: %s' % bs)

    # a second lease waits in the queue and takes the board before the job
    run(a, 'lease', 'lab-c/c-1', '--for', '5m')
    wait_board(a, 'c-1', 'a lease and a job queued', lambda b: b['queue'] == 2)
    wait_board(a, 'c-1', 'leased to the waiting key',
               lambda b: net.submitter.startswith(b.get('holder', '-')), 90)
    st = a.req_status(req) or {}
    bs = [b for lab in st.get('labs', []) for b in lab['boards']]
    check(all(not b['final'] for b in bs), 'job ran before a lease: %s' % bs)
    print('expiry: the first lease ended by itself, the waiting one took'
          ' the board before the queued job')
    run(a, 'lease', 'release', 'lab-c/c-1')
    wait_board(a, 'c-1', 'released', lambda b: 'holder' not in b, 90)

    def done():
        st = a.req_status(req) or {}
        bs = [b for lab in st.get('labs', []) for b in lab['boards']
              if b['final']]
        return bs[0] if bs else None
    b = wait_for('the queued job', done, 120, 0.5)[0]
    check(b['status'] == 'PASS', 'queued job: %s' % b)
    print('release: the queued job ran (%s)' % b['status'])

    run(a, 'lease', 'lab-c/c-1', '--for', '10m', '--wait', key=second)
    wait_board(a, 'c-1', 'leased again', lambda b: 'holder' in b)
    p = run(a, 'exec', 'lab-c/c-1', '--', 'echo local-$((2+3))', key=second)
    check(p.stdout.strip() == 'local-5', 'exec on c-1: %r' % p.stdout)
    c.stop()
    c.start()
    wait_for('B-C up again', lambda: c.peers_up() == 1, 60, 0.2)
    b = board(c, 'lab-c', 'c-1')
    check(b and second_short(net) == b.get('holder'), 'after restart: %s' % b)
    p = run(a, 'exec', 'lab-c/c-1', '--', 'echo again', key=second)
    check(p.stdout.strip() == 'again', 'exec after restart: %r' % p.stdout)
    print('restart: the lease held, its holder used the board again')
    p = run(a, 'board', 'lab-c/c-1', 'revoke', rc=1)
    check("not this node's lab" in p.stderr, 'revoke on A: %s' % p.stderr)
    c.cmd('board', 'lab-c/c-1', 'revoke')
    wait_board(a, 'c-1', 'revoked', lambda b: 'holder' not in b)
    print('revoke: the operator ended a lease')


def test(net):
    env = need_board(net.root)
    try:
        second, second_pub = keygen(net, 'second')
        outsider_key, _ = keygen(net, 'outsider')
        policy = ('policy:\n  leases:\n    submitters: [%s, %s]\n'
                  '    boards: [c-qemu, c-1]\n    max: 1h\n' %
                  (net.submitter, second_pub))
        a = net.node('lab-a', 27301, [local_board('a-1')])
        b = net.node('lab-b', 27302, [local_board('b-1')], seeds=[a])
        c = net.node('lab-c', 27303, [qemu_board('c-qemu', env),
                                      local_board('c-1')],
                     seeds=[b], extra=policy)
        a.trust, b.trust, c.trust = [b], [a, c], [b]
        a.start()
        b.start()
        c.start()
        wait_for('A-B and B-C up', lambda: a.peers_up() == 1 and
                 b.peers_up() == 2 and c.peers_up() == 1, 60, 0.2)
        wait_for("C's boards on A", lambda: board(a, 'lab-c', 'c-1'),
                 60, 0.2)
        test_qemu(net, a, c, second, outsider_key)
        test_expiry(net, a, c, second)
        check(a.peers_up() == 1 and c.peers_up() == 1, 'A and C linked')
    finally:
        net.close()


if __name__ == '__main__':
    main(test, Net)
