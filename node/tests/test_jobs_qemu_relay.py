#!/usr/bin/env python3
"""A job's kernel through a node that never held it. Three labs in a
line: lab-a (a QEMU x86_64 board) trusts and connects only lab-b (a local
board), lab-c (where the submitter is, a local board) only lab-b. A
Debian kernel and initrd submitted at lab-c as an artifact for lab-a:
lab-a's job fetches both blobs through lab-b, which lacks them, fetches
them from lab-c, checks them and serves them on; the board boots the
kernel and the job passes. lab-a and lab-b end with lab-c's blobs, byte
for byte."""
import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import Net, check, local_board, main, need_board, \
    qemu_board, wait_for  # noqa: E402

COMMIT = 'c0ffee' * 6 + 'c0ff'


def blob_id(path):
    with open(path, 'rb') as f:
        return hashlib.blake2b(f.read(), digest_size=32).hexdigest()


def held(n, bid):
    return os.path.exists(os.path.join(n.home, 'blobs', bid[:2], bid))


def peer_ids(n):
    return sorted(p['id'] for p in n.peers() if p['state'] == 'up')


def test(net):
    env = need_board(net.root)
    try:
        base = net.base(18230)
        b = net.node('lab-b', base + 1, [local_board('host-b')])
        a = net.node('lab-a', base, [qemu_board('qemu-a', env)],
                     seeds=[b], trust=[b])
        c = net.node('lab-c', base + 2, [local_board('host-c')],
                     seeds=[b], trust=[b])
        for n in (b, a, c):
            n.start()
        wait_for('the line a - b - c', lambda: b.peers_up() == 2 and
                 a.peers_up() == 1 and c.peers_up() == 1, 60, 0.2)
        ids = [blob_id(env['KERNEL']), blob_id(env['INITRD'])]
        check(not any(held(n, i) for n in (a, b, c) for i in ids),
              'a lab holds the kernel before the submission')
        p = c.cli('submit', '--kernel', env['KERNEL'], '--initrd',
                  env['INITRD'], '--describe', env['KVERSION'], '--arch',
                  'x86_64', '--git', 'https://salsa.debian.org/kernel-team/'
                  'linux.git', '--branch', 'bookworm', '--commit', COMMIT,
                  '--config', 'cloud-amd64', '--lab', 'lab-a', '--suite',
                  'smoke', '--wait', '--timeout', '15m', check_rc=False,
                  timeout=1200)
        print(p.stdout[-1500:])
        check(all(held(c, i) for i in ids), 'lab-c does not hold the blobs')
        check(p.returncode == 0, 'submit --wait exit %d: %s %s' % (
            p.returncode, p.stderr, a.tail()))
        check('done: PASS' in p.stdout, 'the job did not pass')
        for n in (a, b):
            for i, path in zip(ids, (env['KERNEL'], env['INITRD'])):
                mine = os.path.join(n.home, 'blobs', i[:2], i)
                check(os.path.exists(mine), '%s lacks blob %s' % (n.name,
                                                                  i[:12]))
                with open(mine, 'rb') as f, open(path, 'rb') as g:
                    check(f.read() == g.read(), 'blob %s on %s differs' %
                          (i[:12], n.name))
        check(peer_ids(a) == [b.id] and peer_ids(c) == [b.id],
              'lab-a and lab-c got linked')
        print('kernel relayed: lab-c to lab-a through lab-b, booted')
    finally:
        net.close()
    return 0


if __name__ == '__main__':
    main(test, Net)
