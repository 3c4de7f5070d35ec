#!/usr/bin/env python3
"""Feeds reconcile by range digests, not whole vectors.

A's store is filled beforehand with 240 feeds of synthetic signed runs
(lm-mkruns); B starts empty and seeds from A:
- B ends with every feed of A, through digests and their answers (ranges),
  pulling each feed once: A queues as many of B's wants as B keeps in
  flight to it, so none goes unanswered and stalls;
- idle, the pair sends digests only (the safety net), each of the same
  fixed size, far below the whole vector of that many feeds, and no
  ranges or vector entries;
- once converged, neither node holds an entry of the other's vector per
  feed (`peer_vector_entries` of `debug status`);
- B stopped, runs of ten new feeds written into its store meanwhile and
  five records appended to A's own feed, B started again: each gets what
  it missed, through B's digest (B restarted: it remembers no session)
  and A's answer;
- B frozen (SIGSTOP) past the liveness timeout while A appends: A finds
  B silent, B says it stalled and blames no one; the session
  resumes on both sides, each sends the changes since it last
  told the other as a vector, no ranges, and the digests that follow
  a few seconds later are equal;
- C, a node of the version before digests (NODIGEST_NODE: no
  MSG_FEATURE_DIGEST in its hello), joins: it gets whole vectors, sends
  whole vectors, and ends with every feed, no message refused anywhere;
  it sends whole request-id lists, not request summaries.
Timing is not asserted.

usage: test_digest_repl.py LABMESH LM_MKRUNS NODIGEST_NODE
"""
import subprocess
import time
import lmtest
from lmtest import check, wait_for

BASE = 17730
FEEDS = 240
ENTRY = 40  # bytes of a vector entry on the wire, about


def runs(seeds, at):
    return ''.join('run %d lab-%d b x86_64 t main %s %d\nend\n' %
                   (s, s, '%040x' % (s + at), 1000000 + at) for s in seeds)


def mkruns(net, node, seeds, at):
    out = subprocess.run([net.tools[0], node.home], input=runs(seeds, at),
                         check=True, capture_output=True, text=True).stdout
    check(len(out.split()) == len(seeds), 'lm-mkruns stored %d runs' %
          len(seeds))


def test(net):
    base = net.base(BASE)
    a = net.node('dga', base)
    b = net.node('dgb', base + 1, seeds=[a])
    ids = {a.id, b.id}
    mkruns(net, a, range(1, FEEDS + 1), 0)
    a.start()
    b.start()
    want = a.seqs_except(ids)
    check(len(want) == FEEDS, 'A holds %d feeds: %d' % (FEEDS, len(want)))

    # (a) a new link converges
    wait_for('B holds every feed of A',
             lambda: b.seqs_except(ids) == want, 120)
    for n in (a, b):
        check(n.sent('digest')[0] >= 1, '%s sent a digest' % n.name)
    check(a.sent('ranges')[0] >= 1, 'A answered with ranges')
    # A queues every want B keeps in flight to it: no want goes
    # unanswered, so no pull stalls and no feed is pulled twice (a few
    # allowed for a loaded machine: each stall is a 2 s wait unanswered)
    st = b.status()
    print('B: %d pulls, %d stalled' % (st['pulls_started'],
                                       st['pulls_stalled']))
    check(st['pulls_stalled'] <= 4 and st['pulls_started'] <= FEEDS + 4,
          'B pulled each feed once: %d pulls, %d stalled' %
          (st['pulls_started'], st['pulls_stalled']))
    print('converged: A sent %r digest, %r ranges, %r vector (msgs, bytes)'
          % (a.sent('digest'), a.sent('ranges'), a.sent('vector')))

    # per-peer vector state: what differs only, not an entry per feed
    wait_for('vector state held is not per feed',
             lambda: all(n.status()['peer_vector_entries'] <= 4
                         for n in (a, b)), 60)

    # (c) idle: digests of a fixed size, nothing more
    before = {n.name: {k: n.sent(k) for k in ('digest', 'ranges', 'vector')}
              for n in (a, b)}
    wait_for('a safety-net digest each way',
             lambda: all(n.sent('digest')[0] > before[n.name]['digest'][0]
                         for n in (a, b)), 120, step=1)
    whole = (FEEDS + 2) * ENTRY
    for n in (a, b):
        d0, r0, v0 = (before[n.name][k] for k in ('digest', 'ranges',
                                                  'vector'))
        d1, r1, v1 = n.sent('digest'), n.sent('ranges'), n.sent('vector')
        per = (d1[1] - d0[1]) / (d1[0] - d0[0])
        print('%s idle: %d digests of %.0f B each (a whole vector: ~%d B),'
              ' %d ranges, %d vector bytes' % (n.name, d1[0] - d0[0], per,
                                              whole, r1[0] - r0[0],
                                              v1[1] - v0[1]))
        check(per <= 1024 and per * 8 < whole,
              '%s: a digest is small and fixed (%.0f B)' % (n.name, per))
        check(r1 == r0 and v1 == v0,
              '%s: equal digests, no ranges and no vector sent' % n.name)

    # (b) records each took while the other did not hear of them: a new
    # session's digests find them
    a_ranges = a.sent('ranges')[0]
    a_digests = a.sent('digest')[0]
    b.stop()
    a.cmd('debug', 'append-records', '5')
    news = range(FEEDS + 1, FEEDS + 11)
    mkruns(net, b, news, 7)
    b.start()
    want = {k: v for k, v in b.seqs_except(set()).items() if k not in ids}
    check(len(want) == FEEDS + 10, 'B holds %d feeds' % len(want))
    own = wait_for('A appended', lambda: a.seq(a.id) >= 6 and a.seq(a.id),
                   30)[0]
    wait_for('A holds what B took while apart',
             lambda: a.seqs_except(ids) == want, 120)
    wait_for('B holds what A appended meanwhile',
             lambda: b.seq(a.id) == own, 120)
    check(b.sent('digest')[0] >= 1 and a.sent('ranges')[0] > a_ranges,
          'B (restarted) sent a digest and A answered it with ranges')
    # A resumed its side of the session: its own digest follows a few
    # seconds later; (e) starts once it has gone and been answered
    wait_for("A's later digest to the restarted B",
             lambda: a.sent('digest')[0] > a_digests, 30, 0.2)
    time.sleep(1)

    # (e) a session resumed, both nodes up all along (B frozen past the
    # liveness timeout): each sends what changed since it last told the
    # other as a vector, no ranges; the digests come later, and are equal
    at = {n.name: {k: n.sent(k) for k in ('digest', 'ranges', 'vector')}
          for n in (a, b)}
    mark = len(b.logtext())
    b.pause()
    paused = time.monotonic()
    a.cmd('debug', 'append-records', '3')
    wait_for('A finds B gone', lambda: not any(
        p['state'] == 'up' for p in a.peers() if p['id'] == b.id), 20, 0.2)
    # A judges from B's last message, which may predate the pause, so
    # A can find B gone before B has been stopped for the liveness
    # window: B's stall is made surely longer than the window and a
    # tick (5 s + 1 s), and 1.5 s past A's verdict
    time.sleep(max(1.5, paused + 7.5 - time.monotonic()))
    b.resume()
    own = a.seq(a.id)
    _, dt = wait_for('B holds what A appended while it was frozen',
                     lambda: b.seq(a.id) == own, 60)
    print('resumed: B caught up %.1f s after SIGCONT' % dt)
    # B knows it was the one that stalled past the liveness window: it
    # says so, and ends the session (if at all) naming its own stall
    after = b.logtext()[mark:]
    gone = [ln for ln in after.splitlines() if ' gone: ' in ln]
    check('this node did not run for' in after,
          'B does not say it was stalled')
    check(all('this node did not run' in ln for ln in gone),
          'B blames A for its own stall: %s' % gone)
    wait_for('a digest each way after the resumed session',
             lambda: all(n.sent('digest')[0] > at[n.name]['digest'][0]
                         for n in (a, b)), 60, step=0.5)
    for n in (a, b):
        r0, r1 = at[n.name]['ranges'], n.sent('ranges')
        v0, v1 = at[n.name]['vector'], n.sent('vector')
        print('%s resumed: %d ranges, %d vector messages (%d B)' % (
            n.name, r1[0] - r0[0], v1[0] - v0[0], v1[1] - v0[1]))
        check(r1 == r0, '%s: no ranges for a resumed session' % n.name)
    check(a.sent('vector')[0] > at['dga']['vector'][0],
          'A told B its appended feed by a vector')

    # (d) mixed versions: a peer without digests
    c = net.node('dgc', base + 2, seeds=[a])
    c.start(program=net.tools[1])
    want = a.seqs_except({c.id})
    wait_for('C (no digests) holds every feed',
             lambda: c.seqs_except({c.id}) == want, 120)
    check(c.sent('digest')[0] == 0 and c.sent('ranges')[0] == 0,
          'C sent no digest and no ranges')
    check(c.sent('vector')[0] >= 1, 'C sent vectors')
    # requests: C takes no summary, so it is sent whole id lists and
    # sends them (A and B compare summaries)
    check(c.sent('request-summary')[0] == 0 and c.sent('request-ids')[0] >= 1,
          'C sent request ids, no summary')
    check(b.sent('request-summary')[0] >= 1, 'B sent A request summaries')
    for n in (a, b, c):
        check(n.status()['bad_messages'] == 0, '%s: no garbage' % n.name)


lmtest.main(test)
