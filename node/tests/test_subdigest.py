#!/usr/bin/env python3
"""A large range that differs is compared by its sub-ranges first.

A's store holds FEEDS feeds of a record each (lm-fill-store), ~47 to each
of the digest's 64 ranges; B starts empty and seeds from A:
- B catches up through whole ranges: it holds (almost) nothing in them,
  so no subdigest is sent either way (a round for nothing);
- B stopped, NEW new feeds written into its store meanwhile and
  five records appended to A's own feed, B started again: the ranges that
  differ hold ~47 entries each, so A answers B's digest with subdigests
  (B restarted: it sends its digest at once; A's comes seconds later, a
  resumed session's), B answers those with the entries of the sub-ranges
  that differ, and A sends back its own there. Each ends with what the
  other has, and A's answers (subdigests,
  subranges, ranges) weigh less than half of the entries of the ranges
  that differ, which is what whole ranges would have cost.
Timing is not asserted.

usage: test_subdigest.py LABMESH LM_FILL_STORE
"""
import os
import subprocess
import lmtest
from lmtest import check, wait_for

BASE = 17760
FEEDS = 3000
NEW = 12
ENTRY = 41  # bytes of a vector entry on the wire


def fill(net, node, feeds, key):
    """feeds feeds of one record each into node's store (node stopped),
    their keys derived from the key file key (made when missing)."""
    os.makedirs(node.home, exist_ok=True)
    subprocess.run([net.tools[0], os.path.join(node.home, 'store.db'),
                    os.path.join(net.dir, key), str(feeds), str(feeds)],
                   check=True, capture_output=True, text=True)


def rng(author):
    return int(author[:2], 16) >> 2


def answers(node):
    return sum(node.sent(k)[1] for k in ('subdigest', 'subranges', 'ranges'))


def test(net):
    base = net.base(BASE)
    a = net.node('sda', base)
    b = net.node('sdb', base + 1, seeds=[a])
    ids = {a.id, b.id}
    fill(net, a, FEEDS, 'a-authors.key')
    a.start()
    b.start()
    want = a.seqs_except(ids)
    check(len(want) == FEEDS, 'A holds %d feeds: %d' % (FEEDS, len(want)))

    # (a) a new node: whole ranges, no subdigest
    wait_for('B holds every feed of A',
             lambda: b.seqs_except(ids) == want, 300)
    for n in (a, b):
        check(n.sent('subdigest')[0] == 0,
              '%s: no subdigest to a node that held little' % n.name)
    print('converged: A sent %r ranges (msgs, bytes)' % (a.sent('ranges'),))

    # (b) apart: B takes new feeds, A appends to its own
    a0 = answers(a)
    b.stop()
    a.cmd('debug', 'append-records', '5')
    fill(net, b, NEW, 'b-authors.key')
    b.start()
    bwant = {k: v for k, v in b.seqs_except(set()).items() if k not in ids}
    check(len(bwant) == FEEDS + NEW, 'B holds %d feeds' % len(bwant))
    own = wait_for('A appended', lambda: a.seq(a.id) >= 6 and a.seq(a.id),
                   30)[0]
    wait_for('A holds what B took while apart',
             lambda: a.seqs_except(ids) == bwant, 120)
    wait_for('B holds what A appended meanwhile',
             lambda: b.seq(a.id) == own, 120)
    # the ranges that differ: those of B's new feeds and A's own; whole,
    # they would have cost their entries
    new = set(bwant) - set(want)
    differ = {rng(k) for k in new} | {rng(a.id)}
    feeds = list(a.seqs_except(set()))
    whole = sum(1 for k in feeds if rng(k) in differ) * ENTRY
    sent = answers(a) - a0
    for n in (a, b):
        print('%s sent: subdigest %r, subranges %r, ranges %r' %
              (n.name, n.sent('subdigest'), n.sent('subranges'),
               n.sent('ranges')))
    print('A answered %d ranges that differ with %d B (whole: %d B)' %
          (len(differ), sent, whole))
    check(a.sent('subdigest')[0] >= 1,
          "A answered B's digest with subdigests")
    check(b.sent('subranges')[0] >= 1, 'B answered them with subranges')
    check(sent * 2 < whole, 'A sent %d B, under half of %d B' %
          (sent, whole))
    for n in (a, b):
        check(n.status()['bad_messages'] == 0, '%s: no garbage' % n.name)


lmtest.main(test)
