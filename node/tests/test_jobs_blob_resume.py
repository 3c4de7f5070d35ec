#!/usr/bin/env python3
"""A blob fetch resumes. Lab 1 runs a suite (`bigout`, in a suite
directory of the test) whose output, about 12 MiB of random text, is a
blob of many chunks; lab 2 is asked for that log (`labmesh log RUN
--suite bigout`), so it fetches the blob from lab 1. Midway the serving
node is stopped (SIGSTOP) and the fetching node killed (SIGKILL) with
part of the blob in its partial file. Once lab 1 runs again and lab 2 is
restarted and asked again, the fetch goes on from the partial file: lab
1 sends about what was missing, not the whole blob again (its payload
byte counter), and the blob lab 2 ends with is lab 1's, verified."""
import glob
import hashlib
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import (Net, check, local_board, main, wait_for,  # noqa: E402
                      write_suite)

CHUNK = 256 * 1024  # PROTO_MAX_BLOB_CHUNK
BIG_SH = ('#!/bin/sh\necho "1..1"\nhead -c 9000000 /dev/urandom | base64\n'
          'echo "ok 1 - big output"\n')
BIG_YAML = ('name: bigout\nversion: 1\nkind: functional\n'
            'description: a large output\ntimeout: 120\nparser: tap\n')


def suites_dir(d):
    return write_suite(d, 'bigout', BIG_YAML, BIG_SH)


def sent(n):
    return json.loads(n.cli('--json', 'debug', 'status').stdout)['bytes_sent']


def part(n):
    """(path, size) of the node's partial blob file, or (None, 0)."""
    for p in glob.glob(os.path.join(n.home, 'blobs', 'tmp', '*.part')):
        try:
            return p, os.path.getsize(p)
        except OSError:
            pass
    return None, 0


def test(net):
    asker = None
    try:
        net.env['LABMESH_SUITES'] = suites_dir(os.path.join(net.dir,
                                                            'suites'))
        a = net.node('lab-src', 17221, [local_board('host-a')]).start()
        b = net.node('lab-dst', 17222, [local_board('host-b')],
                     seeds=[a]).start()
        wait_for('peers', lambda: a.peers_up() == 1 and b.peers_up() == 1,
                 step=0.2)
        req = a.cli('submit', '--suite', 'bigout', '--lab',
                    'lab-src').stdout.split()[1]

        def run_on(n):
            st = n.req_status(req) or {}
            for lab in st.get('labs', []):
                for x in lab['boards']:
                    if x['final'] and x['run']:
                        return x['run']
            return None
        run, _ = wait_for('the run on lab 1', lambda: run_on(a), 120, 0.2)
        wait_for('the run record on lab 2', lambda: run_on(b), 60, 0.2)
        # the log blob: the largest blob lab 1 holds
        blobs = [p for p in glob.glob(os.path.join(a.home, 'blobs', '??',
                                                   '*'))]
        big = max(blobs, key=os.path.getsize)
        total = os.path.getsize(big)
        bid = os.path.basename(big)
        check(total > 16 * CHUNK, 'the log blob is %d bytes' % total)
        check(not glob.glob(os.path.join(b.home, 'blobs', '??', bid)),
              'lab 2 already holds the blob')

        # the first fetch, interrupted midway
        asker = subprocess.Popen(
            [net.labmesh, '--home', b.home, 'log', run, '--suite',
             'bigout'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=net.env)
        wait_for('a partial file on lab 2', lambda: part(b)[1] >= 4 * CHUNK,
                 60, 0.002)
        os.kill(a.proc.pid, signal.SIGSTOP)
        b.kill(signal.SIGKILL)
        asker.kill()
        asker.wait()
        path, held = part(b)
        check(path and 4 * CHUNK <= held < total,
              'partial file after the kill: %s bytes of %d' % (held, total))
        os.kill(a.proc.pid, signal.SIGCONT)
        print('interrupted: lab 2 held %d of %d bytes (%d chunks)' % (
            held, total, held // CHUNK))

        # the second fetch, after a restart of lab 2
        b.start()
        wait_for('peers again', lambda: a.peers_up() == 1 and
                 b.peers_up() == 1, 60, 0.2)
        before = sent(a)
        p = b.cli('log', run, '--suite', 'bigout', timeout=300)
        served = sent(a) - before
        mine = os.path.join(b.home, 'blobs', bid[:2], bid)
        check(os.path.exists(mine), 'lab 2 does not hold the blob')
        with open(mine, 'rb') as f:
            got = f.read()
        check(hashlib.blake2b(got, digest_size=32).hexdigest() == bid and
              got == open(big, 'rb').read(), 'the blob differs')
        check(got.decode() in p.stdout, 'log does not print the blob')
        check(not part(b)[0], 'a partial file is left')
        # what lab 1 sent: the missing part (and messages around it),
        # not the whole blob again
        missing = total - held
        check(missing <= served < missing + 2 * CHUNK,
              'lab 1 sent %d bytes for %d missing (of %d): the fetch did'
              ' not resume from the partial file' % (served, missing, total))
        print('resumed: lab 1 sent %d bytes for the %d missing (%d of the'
              ' blob held before)' % (served, missing, held))
        print('blob resume OK')
    finally:
        if asker and asker.poll() is None:
            asker.kill()
            asker.wait()
        for n in net.nodes:
            if n.proc and n.proc.poll() is None:
                os.kill(n.proc.pid, signal.SIGCONT)
        net.close()
    return 0


if __name__ == '__main__':
    main(test, Net)
