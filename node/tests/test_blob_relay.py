#!/usr/bin/env python3
"""A blob travels through a node that never held it. Three labs in a
line: lab-a trusts and connects only lab-b, lab-c only lab-b, so lab-a
and lab-c have no link. lab-c runs a suite whose output, a few MiB (the
size of a kernel image), is a blob only lab-c holds; lab-a is asked for
that log (`labmesh log RUN --suite big`). lab-b, asked by lab-a for a
blob it lacks, fetches it from lab-c, checks it, keeps it and serves it
on: lab-a ends with lab-c's blob, byte for byte and verified, and lab-b
with a verified copy it did not hold before."""
import glob
import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import (Net, check, local_board, main, wait_for,  # noqa: E402
                      write_suite)

CHUNK = 256 * 1024  # PROTO_MAX_BLOB_CHUNK
BIG_SH = ('#!/bin/sh\necho "1..1"\nhead -c 3000000 /dev/urandom | base64\n'
          'echo "ok 1 - big output"\n')
BIG_YAML = ('name: big\nversion: 1\nkind: functional\n'
            'description: a large output\ntimeout: 120\nparser: tap\n')


def held(n, bid):
    p = os.path.join(n.home, 'blobs', bid[:2], bid)
    return p if os.path.exists(p) else None


def peer_ids(n):
    return sorted(p['id'] for p in n.peers() if p['state'] == 'up')


def run_on(n, req):
    st = n.req_status(req) or {}
    for lab in st.get('labs', []):
        for x in lab['boards']:
            if x['final'] and x['run']:
                return x['run']
    return None


def test(net):
    try:
        net.env['LABMESH_SUITES'] = write_suite(
            os.path.join(net.dir, 'suites'), 'big', BIG_YAML, BIG_SH)
        base = net.base(17260)
        b = net.node('lab-b', base + 1, [local_board('host-b')])
        a = net.node('lab-a', base, [local_board('host-a')], seeds=[b],
                     trust=[b])
        c = net.node('lab-c', base + 2, [local_board('host-c')],
                     seeds=[b], trust=[b])
        b.start()
        a.start()
        c.start()
        wait_for('the line a - b - c', lambda: b.peers_up() == 2 and
                 a.peers_up() == 1 and c.peers_up() == 1, 60, 0.2)
        req = c.cli('submit', '--suite', 'big', '--lab',
                    'lab-c').stdout.split()[1]
        run, _ = wait_for('the run on lab-c', lambda: run_on(c, req), 120,
                          0.2)
        wait_for('the run record on lab-a', lambda: run_on(a, req), 60, 0.2)
        blobs = glob.glob(os.path.join(c.home, 'blobs', '??', '*'))
        big = max(blobs, key=os.path.getsize)
        total = os.path.getsize(big)
        bid = os.path.basename(big)
        check(total > 8 * CHUNK, 'the log blob is %d bytes' % total)
        check(not held(b, bid), 'lab-b already holds the blob')
        check(not held(a, bid), 'lab-a already holds the blob')
        check(peer_ids(a) == [b.id] and peer_ids(c) == [b.id],
              'lab-a and lab-c are linked: %s %s' % (peer_ids(a),
                                                    peer_ids(c)))

        p = a.cli('log', run, '--suite', 'big', timeout=300)
        want = open(big, 'rb').read()
        for n in (a, b):
            path = held(n, bid)
            check(path, '%s does not hold the blob' % n.name)
            got = open(path, 'rb').read()
            check(hashlib.blake2b(got, digest_size=32).hexdigest() == bid
                  and got == want, 'the blob on %s differs' % n.name)
            check(not glob.glob(os.path.join(n.home, 'blobs', 'tmp',
                                             '*.part')),
                  'a partial file is left on %s' % n.name)
        check(want.decode() in p.stdout, 'log does not print the blob')
        check(peer_ids(a) == [b.id] and peer_ids(c) == [b.id],
              'lab-a and lab-c got linked')
        print('relayed: %d bytes from lab-c to lab-a through lab-b' % total)
        print('blob relay OK')
    finally:
        net.close()
    return 0


if __name__ == '__main__':
    main(test, Net)
