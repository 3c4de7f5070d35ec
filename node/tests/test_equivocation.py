#!/usr/bin/env python3
"""Equivocation: a peer that signs two different records at the same seq
of its feed is flagged; both records are kept (one in the feed, one as
evidence), nothing more of that author is taken or propagated."""
import json
import os
import sqlite3
import subprocess
import lmtest
from lmtest import check, wait_for

BASE = 17660


def test(net):
    base = net.base(BASE)
    hostile = net.tools[0]
    n = net.node('judge', base)
    m = net.node('bystander', base + 1, seeds=[n])
    n.start()
    m.start()
    wait_for('bystander up', lambda: any(p['state'] == 'up'
                                         for p in n.peers()), 5)
    p = subprocess.run([hostile, 'equivocate', n.endpoint, n.id],
                       capture_output=True, text=True, timeout=30)
    check(p.returncode == 0, 'equivocating peer ran')
    liar = p.stdout.strip()
    wait_for('author flagged', lambda: n.feeds().get(liar, {}).get('flagged'),
             5)
    print([l for l in n.logtext().splitlines() if 'equivocated' in l][0])
    check(n.status()['evidence'] == 1, 'one evidence row')
    wait_for('flag shown in peers', lambda: any(
        q['id'] == liar and q['equivocation'] for q in n.peers()), 5)
    import time
    time.sleep(1)
    check(n.feeds()[liar]['seq'] == 1, 'seq 2 after the flag not taken')
    check(m.feeds().get(liar, {}).get('seq', 0) <= 1,
          'nothing past the evidence reached the bystander')


lmtest.main(test)
