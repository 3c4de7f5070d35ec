#!/usr/bin/env python3
"""Per-peer caps of the node, shown from the outside:

1. requests per peer per minute (NODE_MAX_REQ_PER_MIN = 600): a peer
   talking to the node directly sends 1,000 new, validly signed requests
   at once; the node stores exactly 600 of them, then counts the rest as
   bad messages and bans the peer (NODE_GARBAGE_BAN = 64 of them).
2. credit (NODE_CREDIT_INITIAL = 512): a peer that pulls a 3,000-record
   feed with one want and never returns credit gets exactly 512 records;
   each credit it returns lets that many more through, up to what the
   want asked for (NODE_WANT_RECORDS x 2 = 1,024).
3. pending bytes (NODE_MAX_PENDING_BYTES = 8 MiB): the same with a feed
   of ~200 KiB records: the node stops once 8 MiB are unacknowledged
   (it may finish the batch that crossed the line), long before credit
   would stop it, and one batch's credit back lets one batch through.
4. one upstream per author: C dials A and B, which both hold A's feed of
   RECORDS records; what A and B sent C adds up to that feed once, not
   twice.
"""
import re
import subprocess
import time
import lmtest
from lmtest import check, wait_for

BASE = 17120
REQ_CAP = 600           # NODE_MAX_REQ_PER_MIN
REQ_SENT = 1000
GARBAGE_BAN = 64        # NODE_GARBAGE_BAN
CREDIT_INITIAL = 512    # NODE_CREDIT_INITIAL
WANT_CAP = 1024         # PROTO_MAX_WANT: one want's records
FEED = 3000             # records appended to the feeds pulled here
PENDING_MAX = 8 * 1024 * 1024   # NODE_MAX_PENDING_BYTES
BATCH_MAX = 1024 * 1024 - 4096  # WIRE_MAX_BATCH_BYTES
BIG_FEED = 100          # records of ~200 KiB: 20 MiB
BIG_BATCH = 5           # of them in one batch


def hostile(net, *args, timeout=120):
    p = subprocess.run([net.tools[0]] + [str(a) for a in args],
                       capture_output=True, text=True, timeout=timeout)
    print(p.stdout.rstrip())
    check(p.returncode == 0, 'hostile %s: %s' % (args[0], p.stderr))
    return p.stdout


def own_seq(n):
    f = n.feeds().get(n.id)
    return f['seq'] if f else 0


def requests_cap(net, base):
    n = net.node('reqcap', base)
    n.start()
    st0 = n.status()
    hostile(net, 'requests', n.endpoint, n.id, 1, REQ_SENT)
    # the node works through what it was sent: wait until it is done
    held, last = -1, time.time()
    while time.time() - last < 3:
        now = len(n.json('debug', 'requests'))
        if now != held:
            held, last = now, time.time()
        check(time.time() - last < 60, 'the node settles')
        time.sleep(0.2)
    st = n.status()
    bad, bans = (st['bad_messages'] - st0['bad_messages'],
                 st['bans'] - st0['bans'])
    print('requests: 1 peer sent %d new requests; the node holds %d, counted'
          ' %d bad messages, %d ban(s)' % (REQ_SENT, held, bad, bans))
    check(held == REQ_CAP, 'the node took exactly %d requests from the'
          ' peer, not %d' % (REQ_CAP, held))
    check(bans == 1 and bad >= GARBAGE_BAN, 'the peer was banned as a'
          ' flooder once over the cap')
    check('(hostile) gone: banned' in n.logtext(), 'the ban is logged')
    check(not any(p['lab'] == 'hostile' and p['state'] == 'up'
                  for p in n.peers()), 'the flooder is no longer a peer')
    n.stop()


def credit_cap(net, base):
    n = net.node('server', base + 1)
    n.start()
    n.cmd('debug', 'append-records', str(FEED))
    wait_for('server feed', lambda: own_seq(n) == FEED + 1, 60)
    out = hostile(net, 'want', n.endpoint, n.id, base + 2, n.id, 1,
                  WANT_CAP, 100, 1000)
    got = [int(line.split(':')[1].split()[0]) for line in out.splitlines()
           if line.startswith(('want:', 'credit'))]
    print('records: %d with no credit returned, then %d after credit 100,'
          ' %d after credit 1000' % tuple(got))
    check(got[0] == CREDIT_INITIAL, 'with no credit back, exactly %d'
          ' records (got %d)' % (CREDIT_INITIAL, got[0]))
    check(got[1] == 100, 'credit 100 lets 100 more through (got %d)'
          % got[1])
    check(got[2] == WANT_CAP - CREDIT_INITIAL - 100, 'then the rest of'
          ' the want, %d records (got %d)'
          % (WANT_CAP - CREDIT_INITIAL - 100, got[2]))
    n.stop()


def want_stop(net, base):
    """A want of max 0 drops what the node had not sent yet of that
    want: credit then brings nothing more of it."""
    n = net.node('stopper', base + 8)
    n.start()
    n.cmd('debug', 'append-records', str(FEED))
    wait_for('stopper feed', lambda: own_seq(n) == FEED + 1, 60)
    st0 = n.status()
    out = hostile(net, 'want', n.endpoint, n.id, base + 9, n.id, 1,
                  WANT_CAP, 'stop', 1000)
    got = [int(line.split(':')[1].split()[0]) for line in out.splitlines()
           if line.startswith(('want:', 'stop:', 'credit'))]
    st = n.status()
    stopped = st['wants_stopped'] - st0['wants_stopped']
    print('stop: %d records with no credit returned, %d after the stop,'
          ' %d after credit 1000; %d records left unsent' % (
              got[0], got[1], got[2], stopped))
    check(got[0] == CREDIT_INITIAL, 'with no credit back, exactly %d'
          ' records (got %d)' % (CREDIT_INITIAL, got[0]))
    check(got[1] == 0 and got[2] == 0, 'after the stop, credit brings'
          ' nothing of the want (got %d, %d)' % (got[1], got[2]))
    check(stopped == WANT_CAP - CREDIT_INITIAL, 'the node counts the %d'
          ' records left unsent (got %d)' % (WANT_CAP - CREDIT_INITIAL,
                                              stopped))
    n.stop()


def pending_cap(net, base):
    n = net.node('bigsrv', base + 6)
    n.start()
    out = hostile(net, 'bigfeed', n.endpoint, n.id, BIG_FEED)
    author = out.split()[0]
    wait_for('the big feed stored', lambda: n.feeds().get(author, {}).get(
        'seq') == BIG_FEED, 30)
    # credit for the first batch (5 records of ~200 KiB fill one)
    out = hostile(net, 'want', n.endpoint, n.id, base + 7, author, 1,
                  WANT_CAP, BIG_BATCH)
    (r0, b0, y0), (r1, b1, y1) = [
        tuple(int(v) for v in re.search(r': (\d+) .*records in (\d+) '
                                        r'batches, (\d+) bytes', x).groups())
        for x in out.splitlines() if x.startswith(('want:', 'credit'))]
    print('big records: %d records in %d batches, %d bytes with no credit'
          ' back (cap %d bytes + one batch); credit %d: %d more records in'
          ' %d batch(es)' % (r0, b0, y0, PENDING_MAX, BIG_BATCH, r1, b1))
    check(r0 == b0 * BIG_BATCH, '%d records a batch' % BIG_BATCH)
    check(r0 < CREDIT_INITIAL and r0 < BIG_FEED, 'bytes, not credit or the'
          ' feed, stopped the node (%d records)' % r0)
    check(PENDING_MAX <= y0 < PENDING_MAX + BATCH_MAX, 'unacknowledged'
          ' bytes within the cap and one batch: %d' % y0)
    check(b1 == 1, 'one batch credited, one batch more (got %d)' % b1)
    n.stop()


def one_upstream(net, base):
    a = net.node('ua', base + 3)
    b = net.node('ub', base + 4, seeds=[a])
    c = net.node('uc', base + 5, seeds=[a, b])
    a.start()
    a.cmd('debug', 'append-records', str(FEED))
    wait_for('A feed', lambda: own_seq(a) == FEED + 1, 60)
    b.start()
    wait_for('B holds A feed', lambda: b.feeds().get(a.id, {}).get('seq')
             == FEED + 1, 60)
    c.start()
    t0 = time.time()
    wait_for('C holds A feed', lambda: c.feeds().get(a.id, {}).get('seq')
             == FEED + 1, 60)
    print('C pulled A feed (%d records) in %.2f s' % (FEED + 1,
                                                     time.time() - t0))
    time.sleep(1)

    def sent_to(x, y):
        return sum(p['records_sent'] for p in x.peers() if p['id'] == y.id)
    sa, sb = sent_to(a, c), sent_to(b, c)
    rc = {p['lab']: p['records_received'] for p in c.peers()}
    print('records sent to C: by A %d, by B %d (A feed %d, plus two'
          ' adverts); C counted from A %d, from B %d'
          % (sa, sb, FEED + 1, rc.get('ua', 0), rc.get('ub', 0)))
    # B's advert reaches C from B or from A; everything else is A's feed
    check(sa + sb <= FEED + 1 + 1 + 4, 'C pulled A feed from one upstream'
          ' at a time: %d + %d records sent for %d' % (sa, sb, FEED + 2))
    check(sa + sb >= FEED + 1, 'the sent counters add up to the feed')


def test(net):
    base = net.base(BASE)
    requests_cap(net, base)
    credit_cap(net, base)
    want_stop(net, base)
    pending_cap(net, base)
    one_upstream(net, base)


lmtest.main(test)
