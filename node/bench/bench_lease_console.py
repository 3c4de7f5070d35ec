#!/usr/bin/env python3
"""bench-lease-console: the round trip of a typed line on a leased
board's console, relayed against direct.

Three labs on loopback in a line, A - B - C (A and C do not link: trust
lists). C's board is a serial console on a pty path (socat in front of
`/bin/sh -i`, as a ser2net or USB serial line would be). A key leases it
through the network; then `labmesh console` runs under a pty, and a
line `echo m$((K*7))k` is typed at a random moment and timed until its
answer comes back, LINES times:

  relayed   the console used from lab A: each operation goes A -> B -> C
            and the lab's answers come back the same way;
  direct    the console used from lab C's own node (the same lease,
            the same session child, no relay): the baseline;
  pty       the same line typed straight on the pty, before any node
            opened it: what the serial line alone costs.

Target: relayed within 3x of direct (medians of the same run). Prints one
JSON object per line (scripts/bench reads them); progress on stderr.

  bench-lease-console [--lines 40]
  LM_BENCH_KEEP=1 keeps the nodes' homes.
"""
import argparse
import json
import os
import pty
import random
import select
import shutil
import statistics
import subprocess
import sys
import time

import lmtest  # copied beside this script by the build

HERE = os.path.dirname(os.path.abspath(__file__))
LABMESH = os.path.join(HERE, 'labmesh')


def say(*a):
    print('bench-lease-console:', *a, file=sys.stderr, flush=True)


class Reader:
    """What a file descriptor says, read until a token shows."""
    def __init__(self, fd):
        self.fd, self.seen = fd, b''

    def until(self, token, timeout):
        deadline = time.monotonic() + timeout
        while token not in self.seen:
            left = deadline - time.monotonic()
            if left <= 0:
                raise lmtest.Fail('no %r in %r' % (token, self.seen[-300:]))
            if select.select([self.fd], [], [], left)[0]:
                try:
                    self.seen += os.read(self.fd, 65536)
                except OSError:
                    raise lmtest.Fail('closed before %r' % token)
        self.seen = self.seen[self.seen.index(token) + len(token):]


def line_times(fd, reader, lines):
    """ms from typing each line to seeing its answer. Lines are typed
    at random moments (0.1 to 0.6 s apart), as a person would, not in
    step with the console's own polling."""
    rnd = random.Random(7)
    out = []
    for k in range(lines):
        token = b'm%dk' % (k * 7 + 700)
        t0 = time.monotonic()
        os.write(fd, b'echo m$((%d*7))k\r' % (k + 100))
        reader.until(token, 60)
        out.append((time.monotonic() - t0) * 1000)
        time.sleep(rnd.uniform(0.1, 0.6))
    return out


def pty_direct(path, lines):
    """The line typed on the pty path itself (no labmesh)."""
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    try:
        r = Reader(fd)
        os.write(fd, b'\r')
        time.sleep(0.3)
        return line_times(fd, r, lines)
    finally:
        os.close(fd)


def console(net, node, lines):
    """`labmesh console` from node, under a pty: the lines' times."""
    mfd, sfd = pty.openpty()
    p = subprocess.Popen([LABMESH, '--home', node.home, 'console',
                          'lab-c/line'], stdin=sfd, stdout=sfd, stderr=sfd,
                         env=net.env, start_new_session=True)
    os.close(sfd)
    r = Reader(mfd)
    try:
        r.until(b'type ~.', 60)
        os.write(mfd, b'\r')
        time.sleep(1)
        times = line_times(mfd, r, lines)
        os.write(mfd, b'\r~.')
        r.until(b'left the console', 60)
        p.wait(30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        os.close(mfd)
    return times


def setup(net, base, tty):
    b = net.node('lab-b', base + 1, boards=[lmtest.local_board('b-1')])
    a = net.node('lab-a', base, boards=[lmtest.local_board('a-1')],
                 seeds=[b], trust=[b])
    c = net.node('lab-c', base + 2, seeds=[b], trust=[b], boards=[
        '  - {name: line, arch: %s, transport: {type: serial, pty: %s},'
        ' boot: {method: none}}\n' % (os.uname().machine, tty)],
        extra='policy:\n  leases: {submitters: any}\n')
    b.trust = [a, c]
    for n in (b, a, c):
        n.start()
    lmtest.wait_for('the line of lab-c seen from lab-a', lambda: any(
        x['board'] == 'line' for x in a.boards_json()), 60, 0.2)
    p = a.cli('lease', 'lab-c/line', '--for', '30m', '--wait',
              timeout=120)
    say(p.stdout.strip())
    return a, c


def row(figure, value, **kw):
    d = {'figure': figure, 'value': round(value, 2), 'unit': 'ms'}
    d.update(kw)
    print(json.dumps(d), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--lines', type=int, default=40)
    args = ap.parse_args()
    if not shutil.which('socat'):
        say('socat is not installed: skipped')
        return 0
    net = lmtest.Net(LABMESH)
    net.own_key()
    sock = None
    try:
        tty = os.path.join(net.dir, 'tty')
        sock = subprocess.Popen(
            ['socat', 'PTY,link=%s,raw,echo=0' % tty,
             'EXEC:/bin/sh -i,pty,setsid,ctty,stderr,sane'],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        lmtest.wait_for('the pty', lambda: os.path.exists(tty), 10, 0.05)
        raw = pty_direct(tty, args.lines)
        a, c = setup(net, lmtest.port_block(29700, 29700, 29900), tty)
        say('direct: the console from lab-c itself')
        direct = console(net, c, args.lines)
        say('relayed: the console from lab-a, through lab-b')
        relayed = console(net, a, args.lines)
        say('direct, ms:', sorted(round(x) for x in direct))
        say('relayed, ms:', sorted(round(x) for x in relayed))
        d, r = statistics.median(direct), statistics.median(relayed)
        row('console line round trip, relayed A->B->C (median)', r,
            baseline=round(d, 2), ratio=round(r / d, 3),
            target='ratio <= 3', met=r <= 3 * d)
        row('console line round trip, the lab\'s own node (median)', d)
        row('console line round trip, relayed, 90th percentile',
            sorted(relayed)[int(len(relayed) * 0.9) - 1])
        row('console line round trip, the pty alone (median)',
            statistics.median(raw))
    except lmtest.Fail as e:
        say('FAIL:', e)
        for n in net.nodes:
            sys.stderr.write(n.tail(2000))
        return 1
    finally:
        net.close()
        if sock:
            sock.kill()
            sock.wait()
        net.remove(keep=bool(os.environ.get('LM_BENCH_KEEP')))
    return 0


if __name__ == '__main__':
    sys.exit(main())
