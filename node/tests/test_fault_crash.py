#!/usr/bin/env python3
"""Crash: node A is killed with SIGKILL at a random moment, again and again
(10 times; 100 with LM_TEST_LONG=1), each time during one of three kinds of
work, in turn: receiving B's feed (replication), running jobs (requests
submitted to the network, run on both labs' local boards), or writing its
own feed (store writes). After every restart A must still hold every record
it held before the kill. At the end A and B converge to the same records,
B has no evidence against A (a record A lost and wrote again differently
would be equivocation), every job of every request is final with one run
record at most per board, and both stores pass `labmesh store check`.
Then a burst of quick restarts (more hellos than a node takes from one key
in a minute): A and B must be peers again well within that minute."""
import os
import random
import sqlite3
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from faultlib import LONG, check, leftovers, main, port_block, \
    store_check, wait_for  # noqa: E402

KILLS = 100 if LONG else 10
BATCH = 3000  # records appended per replication/store round
BURST = 40  # quick restarts, over NODE_MAX_HELLO_PER_MIN


def final(st):
    return st and st.get('done') and all(
        b['final'] for lab in st['labs'] for b in lab['boards'])


FINAL = {6: 'done', 7: 'error', 8: 'cancelled'}  # enum job_state


def jobs_of(n, wanted):
    db = sqlite3.connect('file:%s?mode=ro' % os.path.join(n.home, 'jobs.db'),
                         uri=True, timeout=10)
    try:
        return [(r, st, text) for r, st, text in db.execute(
            'SELECT request_id, state, text FROM jobs') if r in wanted]
    finally:
        db.close()


def test(net):
    base = port_block(19500)
    rnd = random.Random(os.environ.get('LM_SEED') or time.time())
    a = net.node('crash-a', base, boards=['a-host', 'a-host2'])
    b = net.node('crash-b', base + 1, seeds=[a])
    a.start()
    b.start()
    wait_for('A and B peer', lambda: a.peers_up() == 1 and b.peers_up() == 1,
             20, 0.1)
    reqs = []
    kinds = {'replication': 0, 'jobs': 0, 'store': 0}
    t0 = time.time()
    for i in range(KILLS):
        kind = ('replication', 'jobs', 'store')[i % 3]
        had = a.seq(a.id), a.seq(b.id)
        ids = a.record_ids()
        if kind == 'replication':
            b.cli('debug', 'append-records', str(BATCH))
        elif kind == 'jobs':
            for _ in range(3):
                reqs.append(a.submit())
        else:
            a.cli('debug', 'append-records', str(BATCH))
        time.sleep(rnd.uniform(0, 1.5))
        pid = a.proc.pid
        a.kill()
        kinds[kind] += 1
        time.sleep(0.3)  # the parent-death signal reaches the executors
        left = leftovers(a.home)
        check(not left, 'processes survived A (pid %d): %s' % (pid, left))
        a.start()
        now = a.seq(a.id), a.seq(b.id)
        check(now[0] >= had[0] and now[1] >= had[1],
              'kill %d (%s): A went back from %s to %s' % (i + 1, kind, had,
                                                         now))
        lost = ids - a.record_ids()
        check(not lost, 'kill %d (%s): %d records lost' % (i + 1, kind,
                                                           len(lost)))
    print('kills survived: %d (%s) in %.0f s' % (
        KILLS, ', '.join('%s %d' % kv for kv in kinds.items()),
        time.time() - t0))
    # a burst of restarts, more hellos than B takes from a key in a
    # minute: the session must come back well within that minute
    for _ in range(BURST):
        a.kill()
        a.start()
    _, t_up = wait_for('A and B peer again', lambda: a.peers_up() == 1 and
                       b.peers_up() == 1, 30, 0.2)
    print('after a burst of %d more restarts, A and B peer again in %.1f s'
          % (BURST, t_up))
    t1 = time.time()
    wait_for('feeds converge', lambda: a.feeds() == b.feeds() and
             a.record_ids() == b.record_ids() and
             a.status()['appending'] == 0 and b.status()['appending'] == 0,
             300, 0.5)
    print('A and B hold the same records %.1f s after the last restart' %
          (time.time() - t1))
    # every job final in each lab's own jobs table (the truth), and the
    # user-facing view of the last requests says so too
    wanted = set(bytes.fromhex(r) for r in reqs)
    states = {}
    for n, boards in ((a, 2), (b, 1)):
        rows, _ = wait_for('%s: every job final' % n.name, lambda: (
            lambda rows: rows if len(rows) == boards * len(wanted) and all(
                st in FINAL for _, st, _ in rows) else None)(
                    jobs_of(n, wanted)), 300, 0.5)
        for _, st, text in rows:
            k = 'done' if st == 6 else '%s (%s)' % (
                FINAL[st], text.split(';')[0])
            states[k] = states.get(k, 0) + 1
    for r in reqs[-3:]:
        wait_for('status of %s done' % r[:12], lambda: (
            lambda s: final(s) and len(s['labs']) == 2)(a.req_status(r)),
            120, 0.5)
    print('jobs: %d requests, %d jobs, all final: %s' % (
        len(reqs), sum(states.values()), states))
    for n in (a, b):
        check(n.status()['evidence'] == 0, '%s holds evidence' % n.name)
        check(not any(f['flagged'] for f in n.feeds().values()),
              '%s flagged a feed' % n.name)
    db = a.db()
    dup = db.execute('SELECT hex(request), board, COUNT(*) FROM res_runs'
                     ' GROUP BY request, board HAVING COUNT(*) > 1'
                     ).fetchall()
    runs = db.execute('SELECT COUNT(*) FROM res_runs').fetchone()[0]
    db.close()
    check(not dup, 'a job ran twice: %s' % dup)
    a.stop()
    b.stop()
    ra = store_check(net, a)
    rb = store_check(net, b)
    check(ra == rb, 'record counts differ: %d vs %d' % (ra, rb))
    print('records checked: %d on A, %d on B; %d run records, none twice;'
          ' store check ok on both' % (ra, rb, runs))


main(test)
