#!/usr/bin/env python3
"""Disk full: node A's --home is a small tmpfs. After a first job, the
filesystem is filled. Then A refuses new work with a clear error (submit
exits non-zero naming "No space left on device"), stays up, does not blame
its peer B for what B sends meanwhile (a request and records), and reports
the failure in its log. When space returns, A takes B's records and B's
request by itself (the request runs on A's board), accepts new work, and
both stores pass `labmesh store check`. Rounds: 1 (3 with LM_TEST_LONG=1)."""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from faultlib import LONG, Skip, check, main, port_block, store_check, \
    wait_for  # noqa: E402

ROUNDS = 3 if LONG else 1
SIZE = '24m'


def fill(path):
    """Fill the filesystem at path; return the bytes written."""
    f = os.path.join(path, 'filler')
    subprocess.run(['dd', 'if=/dev/zero', 'of=' + f, 'bs=64k'],
                   capture_output=True)
    st = os.statvfs(path)
    check(st.f_bavail == 0, 'the filesystem is full')
    return os.path.getsize(f)


def a_took(a, req):
    st = a.req_status(req)
    for lab in (st or {}).get('labs', []):
        if lab['lab'] == 'full-a' and lab['answer'] == 'accepted':
            return all(b['final'] for b in lab['boards'])
    return False


def test(net):
    mnt = os.path.join(net.dir, 'small')
    os.makedirs(mnt)
    p = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=%s,mode=0700' %
                        SIZE, 'lmf-diskfull', mnt], capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise Skip('cannot mount a tmpfs: %s' % p.stderr.strip())
    try:
        run(net, mnt)
    finally:
        for n in net.nodes:
            n.kill()
        subprocess.run(['umount', '-l', mnt], capture_output=True)


def run(net, mnt):
    base = port_block(19700)
    a = net.node('full-a', base, home=mnt)
    b = net.node('full-b', base + 1, seeds=[a])
    a.start()
    b.start()
    wait_for('A and B peer', lambda: a.peers_up() == 1, 20, 0.1)
    first = a.submit()
    wait_for('first job on A', lambda: a_took(a, first), 60, 0.1)
    for rnd in range(ROUNDS):
        if rnd:
            # a clean stop folds SQLite's WAL back: each round starts
            # with no room held in advance
            a.stop()
            a.start()
            wait_for('A and B peer', lambda: a.peers_up() == 1, 30, 0.1)
        filled = fill(mnt)
        t_full = time.time()
        # SQLite may still have room in pages it holds (the WAL of an
        # earlier round): what it can store it may take; soon it refuses
        took = []
        for _ in range(50):
            p = a.cli('submit', '--suite', 'smoke', check_rc=False)
            if p.returncode != 0:
                break
            took.append(p.stdout.split()[1])
        check(p.returncode != 0, 'A took 50 requests on a full disk')
        check('No space left on device' in p.stderr,
              'the refusal names the cause: %r' % p.stderr)
        print('round %d: disk full (%d KiB filler); %d request(s) fit in'
              ' space SQLite held, then submit refused: %s' % (
                  rnd + 1, filled // 1024, len(took), p.stderr.strip()))
        req = b.submit()
        b.cli('debug', 'append-records', '2000')
        want = b.seq(b.id)
        wait_for('B done appending', lambda: b.status()['appending'] == 0,
                 60, 0.1)
        want = b.seq(b.id)
        time.sleep(3)
        check(a.alive(), 'A is up on a full disk')
        st = a.status()
        check(st['bad_messages'] == 0 and st['bans'] == 0,
              'A blamed B for its own full disk: %s' % st)
        check(a.peers_up() == 1, 'A still peers with B')
        check('No space left on device' in a.logtext(),
              'A logs why it stopped taking work')
        held = a.seq(b.id)
        check(held < want, 'A could not store B\'s records while full')
        os.unlink(os.path.join(mnt, 'filler'))
        _, t_rec = wait_for('A catches up with B', lambda: a.seq(b.id) ==
                            b.seq(b.id), 120, 0.5)
        _, t_req = wait_for('A runs the request it missed', lambda: a_took(
            a, req), 120, 0.5)
        for r in took:
            wait_for('a request taken while full runs', lambda: a_took(
                a, r), 120, 0.5)
        r2 = a.submit()
        wait_for('A accepts new work', lambda: a_took(a, r2), 60, 0.5)
        print('round %d: full for %.0f s; A held %d of B\'s %d records;'
              ' space back: caught up in %.1f s, missed request run after'
              ' %.1f s, new work accepted' % (rnd + 1, time.time() - t_full,
                                            held, want, t_rec, t_req))
    a.stop()
    b.stop()
    ra = store_check(net, a)
    rb = store_check(net, b)
    check(ra == rb, 'A %d records, B %d' % (ra, rb))
    print('records checked: %d on A, %d on B; store check ok on both' %
          (ra, rb))


main(test)
