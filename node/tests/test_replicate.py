#!/usr/bin/env python3
"""100,000 records authored by A replicate through B to C; B is SIGKILLed
midway and restarted. C ends with all of them: seq contiguous, every
signature and hash link valid, SQLite integrity ok, no duplicates."""
import json
import os
import sqlite3
import time
import lmtest
from lmtest import check, wait_for

BASE = 17200
N = int(os.environ.get('LM_RECORDS', '100000'))
TOTAL = N + 1  # A's advert is its seq 1


def seq_of(node, author):
    f = node.feeds().get(author)
    return f['seq'] if f else 0


def test(net):
    base = net.base(BASE)
    # max_peers keeps the line: C can reach A's feed only through B
    a = net.node('repa', base, max_peers=1)
    b = net.node('repb', base + 1, seeds=[a], max_peers=2)
    c = net.node('repc', base + 2, seeds=[b], max_peers=1)
    for n in (a, b, c):
        n.start()
    wait_for('C sees B', lambda: any(p['state'] == 'up' for p in c.peers()), 5)
    check(len(c.peers()) == 1, 'C peers only with B')
    t0 = time.time()
    a.cmd('debug', 'append-records', str(N))
    s, _ = wait_for('C passes 30%', lambda: seq_of(c, a.id) >= TOTAL * 3 // 10 and
                    seq_of(c, a.id), 120)
    b.kill()
    print('B killed with C at seq %d (%.1f s)' % (s, time.time() - t0))
    time.sleep(0.5)
    b.start()
    wait_for('C has all %d' % N, lambda: seq_of(c, a.id) == TOTAL, 180)
    print('C has all %d records %.1f s after the append began' %
          (N, time.time() - t0))
    check(seq_of(a, a.id) == TOTAL, 'A has its own %d' % N)
    check(seq_of(b, a.id) == TOTAL, 'B has all after restart')
    c.stop()
    res = json.loads(c.cmd('debug', 'check-store'))
    print('check-store on C:', res)
    check(res['bad_signature'] == 0 and res['bad_chain'] == 0 and
          res['bad_seq'] == 0 and res['integrity'], 'C store verifies')
    db = sqlite3.connect(os.path.join(c.home, 'store.db'))
    author = bytes.fromhex(a.id)
    cnt, mn, mx, dist = db.execute(
        'SELECT COUNT(*), MIN(seq), MAX(seq), COUNT(DISTINCT seq) FROM records'
        ' WHERE author = ?', (author,)).fetchone()
    check((cnt, mn, mx, dist) == (TOTAL, 1, TOTAL, TOTAL),
          'contiguous 1..N once each: %r' % ((cnt, mn, mx, dist),))
    ids = db.execute('SELECT COUNT(DISTINCT id), COUNT(*) FROM records'
                     ).fetchone()
    check(ids[0] == ids[1], 'no duplicate ids')
    check(db.execute('PRAGMA integrity_check').fetchone()[0] == 'ok',
          'integrity_check')


lmtest.main(test)
