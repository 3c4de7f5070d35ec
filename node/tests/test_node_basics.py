#!/usr/bin/env python3
"""Node basics: the store is in WAL mode; --log-level warn hides the info
lines --log-level info shows; SIGINT stops the node as cleanly as SIGTERM
(exit 0, a stopping line, the store passes integrity_check); with no
--config the node serves a default lab with one local board."""
import json
import os
import signal
import sqlite3
import subprocess
import time
import lmtest
from lmtest import check, wait_for

BASE = 17110
INFO_LINE = 'listening on'  # logged at info once the node is up


def store_pragma(home, pragma):
    db = sqlite3.connect('file:%s?mode=ro' % os.path.join(home, 'store.db'),
                         uri=True, timeout=5)
    try:
        return db.execute('PRAGMA %s' % pragma).fetchone()[0]
    finally:
        db.close()


def start(net, home, port, *extra):
    """A node with no config; stderr into home/node.log."""
    os.makedirs(home, mode=0o700, exist_ok=True)
    log = os.path.join(home, 'node.log')
    with open(log, 'w') as f:
        proc = subprocess.Popen([net.labmesh, 'node', '--home', home,
                                 '--listen', 'tcp://127.0.0.1:%d' % port]
                                + list(extra), stdout=f, stderr=f)
    wait_for('node in %s up' % home, lambda: os.path.exists(
        os.path.join(home, 'ctl')) and proc.poll() is None, 10)
    return proc, log


def stop_with(proc, log, sig):
    """Stop the node with sig: its exit status and its whole log."""
    try:
        time.sleep(0.5)
        proc.send_signal(sig)
        rc = proc.wait(10)
    finally:
        lmtest.stop_process(proc)
    return rc, open(log).read()


def status(net, home):
    return net.run('--home', home, '--json', 'debug', 'status').stdout


def test(net):
    base = net.base(BASE)
    # default lab, WAL, log level info, SIGINT
    home = os.path.join(net.dir, 'dflt')
    proc, log = start(net, home, base, '--log-level', 'info')
    try:
        wait_for('default node answers', lambda: status(net, home), 10)

        boards = json.loads(net.run('--home', home, '--json', 'boards').stdout)
        print('default lab boards: %r' % [(b['lab'], b['board'], b['arch'],
                                           b['transport'], b['boot'])
                                          for b in boards])
        check(len(boards) == 1, 'one board in the default lab')
        b = boards[0]
        check(b['board'] == 'host' and b['transport'] == 'local' and
              b['boot'] == 'none' and b['arch'] == os.uname().machine and
              b['lab'] != '' and b['state'] == 'idle',
              'the default board is the local host: %r' % b)
        mode = store_pragma(home, 'journal_mode')
        print('store journal_mode: %s' % mode)
        check(mode == 'wal', 'the store is in WAL mode, got %s' % mode)
    except BaseException:
        lmtest.stop_process(proc)
        raise
    rc, text = stop_with(proc, log, signal.SIGINT)
    print('SIGINT: exit %d; log:\n%s' % (rc, text.rstrip()))
    check(rc == 0, 'SIGINT: exit 0, got %d' % rc)
    check('node stopping' in text, 'SIGINT: the node says it is stopping')
    check(not os.path.exists(os.path.join(home, 'ctl')),
          'SIGINT: control socket removed')
    ic = store_pragma(home, 'integrity_check')
    check(ic == 'ok', 'SIGINT: store integrity_check %s' % ic)
    check(INFO_LINE in text and ' info ' in text,
          'at --log-level info the node logs "%s" at info' % INFO_LINE)

    # --log-level warn: the same start, none of the info lines
    home2 = os.path.join(net.dir, 'quiet')
    proc, log = start(net, home2, base + 1, '--log-level', 'warn')
    try:
        wait_for('quiet node answers', lambda: status(net, home2), 10)
    except BaseException:
        lmtest.stop_process(proc)
        raise
    rc, text = stop_with(proc, log, signal.SIGTERM)
    print('--log-level warn: exit %d, %d log lines: %r'
          % (rc, len(text.splitlines()), text))
    check(rc == 0, 'SIGTERM: exit 0')
    check(INFO_LINE not in text and ' info ' not in text,
          '--log-level warn hides info lines')


lmtest.main(test)
