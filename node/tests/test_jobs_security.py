#!/usr/bin/env python3
"""Security of the jobs side, on two labs with local boards: a submitter
the policy does not list gets a decline naming the policy; a replayed
request (the same bytes, or the same nonce re-signed) and an expired one
are not run; a request with a forged signature, given to the first node
or sent by a peer over the network, is refused there, counted as that
peer's garbage and never reaches the other node; the per-key quota
declines; only the submitter's key cancels. (Shell code in branch and config names is tried
in test_jobs_git.py.)"""
import hashlib
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import Net, check, local_board, main, wait_for  # noqa: E402

OTHER = 'ab' * 32  # a submitter id that is not ours


def lab(st, name):
    for x in (st or {}).get('labs', []):
        if x['lab'] == name:
            return x
    return None


def answered(node, req, name):
    return wait_for('%s to answer' % name, lambda: (
        lambda l: l if l and l['answer'] != 'waiting' else None)(
            lab(node.req_status(req), name)), 30, 0.2)[0]


def finished(node, req, name):
    def fin():
        l = lab(node.req_status(req), name)
        return l if l and l['boards'] and all(b['final'] for b in
                                               l['boards']) else None
    return wait_for('%s to finish' % name, fin, 60, 0.2)[0]


def test(net):
    try:
        a = net.node('lab-open', 18501, [local_board('host-a')],
                     'policy:\n  submitters: any\n  quota_per_key: 7\n')
        a.start()
        b = net.node('lab-closed', 18502, [local_board('host-b')],
                     'policy:\n  submitters: [%s]\n' % OTHER, seeds=[a])
        b.start()
        wait_for('peers', lambda: a.peers_up() == 1 and b.peers_up() == 1,
                 step=0.2)
        wait_for('adverts', lambda: len(json.loads(
            a.cli('--json', 'boards').stdout)) == 2, step=0.2)

        # 1. policy
        saved = os.path.join(net.dir, 'req1')
        p = a.cli('submit', '--suite', 'smoke', '--save', saved,
                  '--nonce', '11' * 16)
        req = p.stdout.split()[1]
        finished(a, req, 'lab-open')
        # a request that does not name lab-closed: it says nothing to
        # the network, and keeps why for its own node's `status`
        closed = answered(b, req, 'lab-closed')
        check(closed['answer'] == 'declined' and 'policy' in
              closed['reason'] and 'submitters' in closed['reason'],
              'the policy reason does not name the policy: %s' % closed)
        check(lab(a.req_status(req), 'lab-closed') is None,
              'lab-closed answered a request that did not name it: %s'
              % a.req_status(req))
        # named, it answers the submitter with a signed decline
        p = a.cli('submit', '--suite', 'smoke', '--lab', 'lab-closed')
        closed = answered(a, p.stdout.split()[1], 'lab-closed')
        check(closed['answer'] == 'declined' and 'policy' in
              closed['reason'] and 'submitters' in closed['reason'],
              'the policy decline does not name the policy: %s' % closed)
        print('policy decline: %s' % closed['reason'])

        # 2. replay: the same bytes, and the same nonce re-signed
        p = a.cli('debug', 'submit-raw', saved, check_rc=False)
        check('known' in p.stdout, 'replayed bytes taken: %s' % p.stdout)
        p = a.cli('submit', '--suite', 'smoke', '--nonce', '11' * 16)
        req2 = p.stdout.split()[1]
        l = answered(a, req2, 'lab-open')
        check(l['answer'] == 'declined' and 'replayed' in l['reason'],
              'a replayed nonce was accepted: %s' % l)

        # 3. expired before it arrives
        late = os.path.join(net.dir, 'late')
        p = a.cli('submit', '--suite', 'smoke', '--expires', '1s', '--save',
                  late, '--no-send')
        time.sleep(1.5)
        p = a.cli('debug', 'submit-raw', late, check_rc=False)
        check(p.returncode != 0 and 'expired' in (p.stdout + p.stderr),
              'an expired request was taken: %s %s' % (p.stdout, p.stderr))

        # 4. forged signature: refused by the first node, never flooded
        raw = bytearray(open(saved, 'rb').read())
        raw[-5] ^= 0x40
        forged = os.path.join(net.dir, 'forged')
        open(forged, 'wb').write(raw)
        fid = hashlib.blake2b(bytes(raw), digest_size=32).hexdigest()
        p = a.cli('debug', 'submit-raw', forged, check_rc=False)
        check(p.returncode != 0, 'a forged request was taken')
        time.sleep(1)
        for n in (a, b):
            ids = [r['id'] for r in json.loads(
                n.cli('debug', 'requests').stdout)]
            check(fid not in ids, 'the forged request reached %s' % n.name)

        # 4b. forged signature from a network peer (over CURVE, after a
        # valid hello): not stored, not forwarded, counted as the
        # sender's garbage; the same tool's validly signed request is
        # stored and forwarded (a control: the path works)
        hostile = net.tools[0]

        def ids(n):
            return set(r['id'] for r in json.loads(
                n.cli('--json', 'debug', 'requests').stdout))

        def bad(n):
            return json.loads(n.cli('--json', 'debug',
                                    'status').stdout)['bad_messages']
        before = {n.name: ids(n) for n in (a, b)}
        bad0, badb = bad(a), bad(b)
        p = subprocess.run([hostile, 'peer-request', a.endpoint, a.id,
                            'nowhere', 'forged'], capture_output=True,
                           text=True, timeout=60)
        check(p.returncode == 0, 'hostile: %s %s' % (p.stdout, p.stderr))
        time.sleep(1.5)
        for n in (a, b):
            check(ids(n) == before[n.name], 'a forged request from a peer'
                  ' reached %s: %s' % (n.name, ids(n) - before[n.name]))
        check(bad(a) > bad0, 'the forged request was not counted as the'
              ' peer\'s garbage (%d, was %d)' % (bad(a), bad0))
        check('bad request' in open(a.log).read(), 'no garbage logged')
        # B would count a forwarded forgery as A's garbage
        check(bad(b) == badb and 'bad request' not in open(b.log).read(),
              'the forged request was forwarded to %s' % b.name)
        subprocess.run([hostile, 'peer-request', a.endpoint, a.id,
                        'nowhere', 'valid'], capture_output=True, timeout=60)
        new, _ = wait_for('the valid request on both nodes', lambda: (
            lambda x, y: x if x and x == y else None)(
                ids(a) - before[a.name], ids(b) - before[b.name]), 20, 0.2)
        check(len(new) == 1, 'valid control: %s' % new)
        print('forged request from a peer: dropped, garbage %d -> %d;'
              ' a valid one is stored and forwarded' % (bad0, bad(a)))

        # 5. cancel: only the submitter's key
        r1 = a.cli('submit', '--suite', 'smoke').stdout.split()[1]
        r2 = a.cli('submit', '--suite', 'smoke').stdout.split()[1]
        other = os.path.join(net.dir, 'other.key')
        net.run('keygen', '--out', other)
        p = a.cli('cancel', r2, '--key', other, check_rc=False)
        check(p.returncode != 0 and 'submitter' in p.stderr,
              'another key cancelled: %s %s' % (p.stdout, p.stderr))
        a.cli('cancel', r2)
        l = finished(a, r2, 'lab-open')
        check(l['boards'][0]['state'] == 'cancelled',
              'not cancelled: %s' % l)
        finished(a, r1, 'lab-open')

        # 6. a cancel floods: submitted and cancelled at lab-closed's
        # node, it stops the job queued at lab-open
        blocker = a.cli('submit', '--suite', 'smoke').stdout.split()[1]
        rc = b.cli('submit', '--suite', 'smoke', '--lab',
                   'lab-open').stdout.split()[1]
        answered(b, rc, 'lab-open')
        b.cli('cancel', rc)
        l = finished(b, rc, 'lab-open')
        check(l['boards'][0]['state'] == 'cancelled',
              'the flooded cancel did not stop the job: %s' % l)
        finished(a, blocker, 'lab-open')

        # 7. quota: 7 jobs a day on lab-open (5 so far)
        r3 = a.cli('submit', '--suite', 'smoke').stdout.split()[1]
        finished(a, r3, 'lab-open')
        a.cli('submit', '--suite', 'smoke')
        r5 = a.cli('submit', '--suite', 'smoke').stdout.split()[1]
        l = answered(a, r5, 'lab-open')
        check(l['answer'] == 'declined' and 'quota' in l['reason'],
              'quota not enforced: %s' % l)
        print('security OK')
    finally:
        net.close()
    return 0


if __name__ == '__main__':
    main(test, Net)
