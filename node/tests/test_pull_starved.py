#!/usr/bin/env python3
"""A node catches up from a peer that is starved of CPU.

A's store holds 240 feeds of synthetic signed runs (lm-mkruns). B starts
empty, seeds from A, and pulls them while A is stopped (SIGSTOP) for 3 s
of every 3.5 s, as a node on a machine running many more nodes than it
has cores may not run for seconds. B keeps up to 64 wants in flight to
A, which serves them in turn as B's credit comes back: a want that waits
there is not a claim A holds back. So B must end with every feed of A
having pulled each once, no pull stalled, and no claim of A's dropped
(which B would learn again only from a later digest).

usage: test_pull_starved.py LABMESH LM_MKRUNS
"""
import os
import signal
import subprocess
import threading
import time

import lmtest
from lmtest import check, wait_for

BASE = 17960
FEEDS = 240
STOP_S, RUN_S = 3.0, 0.5


def test(net):
    base = net.base(BASE)
    a = net.node('psa', base)
    b = net.node('psb', base + 1, seeds=[a])
    runs = ''.join('run %d lab-%d b x86_64 t main %s %d\nend\n' %
                   (s, s, '%040x' % s, 1000000) for s in range(1, FEEDS + 1))
    subprocess.run([net.tools[0], a.home], input=runs, check=True,
                   capture_output=True, text=True)
    a.start()
    ids = {a.id, b.id}
    want = {k: v['seq'] for k, v in a.feeds().items() if k not in ids}
    check(len(want) == FEEDS, 'A holds %d feeds' % len(want))

    done = threading.Event()

    def starve():
        while not done.is_set():
            os.kill(a.proc.pid, signal.SIGSTOP)
            done.wait(STOP_S)
            os.kill(a.proc.pid, signal.SIGCONT)
            done.wait(RUN_S)

    t0 = time.time()
    b.start()
    th = threading.Thread(target=starve)
    th.start()
    try:
        wait_for('B holds every feed of A',
                 lambda: {k: v['seq'] for k, v in b.feeds().items()
                          if k not in ids} == want, 180, step=0.5)
    finally:
        done.set()
        th.join()
        os.kill(a.proc.pid, signal.SIGCONT)
    st = b.status()
    print('B caught up in %.1f s: %d pulls, %d stalled, %d waited for A'
          % (time.time() - t0, st['pulls_started'], st['pulls_stalled'],
             st['pulls_waited']))
    check(st['pulls_stalled'] == 0,
          'no pull stalled: %d' % st['pulls_stalled'])
    check(st['pulls_started'] <= FEEDS + 2,
          'each feed pulled once: %d pulls' % st['pulls_started'])
    check(st['duplicates_pulled'] + st['duplicates_other'] == 0,
          'no record came twice')


if __name__ == '__main__':
    lmtest.main(test)
