#!/usr/bin/env python3
"""An adversarial peer against a node, one attack at a time, while an
honest peer keeps replicating to it.

A target node and an honest node that seeds it. The target holds
FILL_REQUESTS requests of ~16.5 KB (what request-ids makes it send) and a
BLOB_MIB MiB blob (what blob-get asks for); it serves the dashboard
(node.http). One replication = `labmesh debug append-records 200` on the
honest node, timed until the target's store holds the 200th record.

For each mode of `adversary` (every message kind with its extreme field
values, and the attacks named in the modes' table): an unloaded
replication, then the attack; replications during it; the attack stopped;
replications again from AFTER_S later. Unloaded samples are taken
before every mode, so they spread over the same minutes as the attacks
(the machine is shared and its load drifts); the bound is against their
median. Throughout, a thread asks the target's control socket for its
status and another samples its RSS. One row per mode:

- honest replication during the attack <= RATIO_MAX x unloaded (medians:
  one slow sample on a shared machine is noise; unloaded: this row's
  samples and the next one's), and from AFTER_S after it <= RATIO_MAX x
  unloaded; no single one, during or after, over STALL_MAX x (a stall is
  not noise). A row that broke only the RATIO_MAX bounds is run again
  at the end, against unloaded samples taken just before it and just
  after it, up to AGAIN_MAX times; the first run within the bounds
  passes it (a load spike does not come back on cue; a real cost does,
  every time);
- RSS peak <= RSS_PEAK_KIB over the level before the attack, and back
  within RSS_SETTLED_KIB once the node has trimmed (TRIM_WAIT_S; skipped
  in a sanitized build, whose allocator keeps freed memory);
- the control socket answers within CTL_MAX_S;
- the honest peer is still up at the end of the attack;
- the target holds the honest feed again within RECOVER_S (else it is
  restarted, so the next row measures the next attack);
- request-times: no request with absurd times is stored;
- http: an honest GET of the dashboard is answered during the attack.

Then, with the request-ids attack going on, SIGTERM stops the target
within STOP_MAX_S, and `labmesh store check` passes on every store.

The slow relay stands between a far node and the target: the far node
trusts only a middle node (seeded with the target) and the relay's key,
so its feed reaches the target two hops away, by the middle node or the
relay; that row is judged against unloaded samples of the same path.

Short by default (every mode, briefly); LM_TEST_LONG=1
takes more samples and longer attacks; LM_ADV_MODES=a,b
runs only those modes.
"""
import os
import sqlite3
import hashlib
import statistics
import subprocess
import threading
import time
import types
import urllib.request

import lmtest
from lmtest import Fail, check, wait_for

BASE = 27000                  # ports 27000-27099, blocks of 20
LONG = os.environ.get('LM_TEST_LONG') == '1'
RECORDS = 200                 # one replication
RATIO_MAX = 2.0
AFTER_S = 2.0                 # after the attack stopped
RSS_PEAK_KIB = 32 * 1024
RSS_SETTLED_KIB = 3 * 1024
TRIM_WAIT_S = 12              # two NODE_TRIM_MS (5 s) and a tick: what is
                              # freed just after one trim goes at the next
CTL_MAX_S = 1.0
STOP_MAX_S = 2.0
REPL_TIMEOUT_S = 30 if LONG else 12
WARMUP_S = 5.0 if LONG else 1.0
SAMPLES_DURING = 9 if LONG else 5
SAMPLES_BASE = 3 if LONG else 2
SAMPLES_AFTER = 5 if LONG else 3
AGAIN_MAX = 2                 # runs again of a row only too slow
STALL_MAX = 10.0              # no single replication this many x unloaded
RECOVER_S = 20                # to catch up after an attack, or a restart
FILL_REQUESTS = 600
BLOB_MIB = 8
HTTP_CONNS = 1000

# mode, its argument ('author': the honest node's id, 'blob': the held blob)
MODES = [
    ('request-ids', None),
    ('request-summary', None),
    ('request-ids-in', None),
    ('vectors', None),
    ('liar', 'author'),
    ('digest', None),
    ('ranges', None),
    ('subdigest', None),
    ('subranges', None),
    ('slow-relay', 'relay'),
    ('request-times', None),
    ('hellos', None),
    ('blob-get', 'blob'),
    ('http', None),
    ('peers', None),
    ('peers-delta', None),
    ('request', None),
    ('want', 'author'),
    ('records', None),
    ('credit', 'author'),
    ('blob-data', None),
    ('ping', None),
    ('pong', None),
    ('cancel', None),
    ('lease', None),
    ('relay', None),
    ('relay-back', None),
]


def sanitized(path):
    out = subprocess.run(['ldd', path], capture_output=True, text=True).stdout
    return 'libasan' in out


class Monitor:
    """The target's RSS (every 50 ms) and how long its control socket
    takes to answer `debug status` (every 200 ms), per window."""

    def __init__(self, node):
        self.node = node
        self.lock = threading.Lock()
        self.rss_peak = 0
        self.ctl_max = 0.0
        self.ctl_fail = 0
        self.ctl_t0 = None  # the call in flight
        self.running = True
        self.threads = [threading.Thread(target=self._rss, daemon=True),
                        threading.Thread(target=self._ctl, daemon=True)]
        for t in self.threads:
            t.start()

    def window(self):
        """Start a new window; return the last one's (rss_peak, ctl_max,
        ctl_failures)."""
        with self.lock:
            ctl = self.ctl_max
            if self.ctl_t0:  # a call still waiting counts so far
                ctl = max(ctl, time.time() - self.ctl_t0)
            w = (self.rss_peak, ctl, self.ctl_fail)
            self.rss_peak, self.ctl_max, self.ctl_fail = 0, 0.0, 0
        return w

    def _rss(self):
        while self.running:
            try:
                r = self.node.rss_kib()
            except (OSError, AttributeError):
                r = 0
            with self.lock:
                self.rss_peak = max(self.rss_peak, r)
            time.sleep(0.05)

    def _ctl(self):
        while self.running:
            if not self.node.alive():
                time.sleep(0.1)
                continue
            t0 = time.time()
            with self.lock:
                self.ctl_t0 = t0
            try:
                p = self.node.cli('--json', 'debug', 'status',
                                  check_rc=False, timeout=10)
                ok = p.returncode == 0
            except (subprocess.TimeoutExpired, OSError):
                ok = False  # counted: a failed call, not a dead monitor
            dt = time.time() - t0
            with self.lock:
                self.ctl_t0 = None
                self.ctl_max = max(self.ctl_max, dt)
                self.ctl_fail += 0 if ok else 1
            time.sleep(0.2)

    def stop(self):
        self.running = False
        for t in self.threads:
            t.join(15)


class Replicator:
    """Appends on the honest node; sees the target's store."""

    def __init__(self, honest, target):
        self.h, self.t = honest, target
        self.author = bytes.fromhex(honest.id)
        self.hdb = self._db(honest)
        self.tdb = self._db(target)

    @staticmethod
    def _db(node):
        return sqlite3.connect('file:%s?mode=ro' % os.path.join(
            node.home, 'store.db'), uri=True, timeout=5)

    @staticmethod
    def _seq(db, author):
        r = db.execute('SELECT seq FROM feeds WHERE author = ?',
                       (author,)).fetchone()
        return r[0] if r else 0

    def held(self):
        return self._seq(self.tdb, self.author)

    def once(self):
        """Seconds until the target holds RECORDS new honest records
        (REPL_TIMEOUT_S when it does not: that fails the row)."""
        want = self._seq(self.hdb, self.author) + RECORDS
        t0 = time.time()
        self.h.cmd('debug', 'append-records', str(RECORDS))
        while True:
            try:
                if self.held() >= want:
                    return time.time() - t0
            except sqlite3.Error:
                pass
            if time.time() - t0 > REPL_TIMEOUT_S:
                return REPL_TIMEOUT_S
            time.sleep(0.005)

    def settle(self, timeout=30):
        """Whether the target holds all the honest feed within timeout."""
        try:
            wait_for('the target to catch up with the honest feed',
                     lambda: self.held() >= self._seq(self.hdb, self.author),
                     timeout)
            return True
        except Fail:
            return False


def put_blob(home, mib):
    data = os.urandom(mib << 20)
    bid = hashlib.blake2b(data, digest_size=32).hexdigest()
    d = os.path.join(home, 'blobs', bid[:2])
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, bid), 'wb') as f:
        f.write(data)
    return bid


def stored_requests(node):
    db = sqlite3.connect('file:%s?mode=ro' % os.path.join(
        node.home, 'store.db'), uri=True, timeout=5)
    try:
        return db.execute('SELECT count(*) FROM requests').fetchone()[0]
    finally:
        db.close()


def honest_up(t, h):
    return any(p['id'] == h.id and p['state'] == 'up' for p in t.peers())


def http_get(port):
    """An honest dashboard GET: (status, bytes, seconds); status 0 when it
    failed."""
    t0 = time.time()
    try:
        with urllib.request.urlopen('http://127.0.0.1:%d/api/status' % port,
                                    timeout=5) as r:
            body = r.read()
            return r.status, len(body), time.time() - t0
    except OSError:
        return 0, 0, time.time() - t0


class Attack:
    def __init__(self, net, t, h, stage, mode, arg, blob, secs=600):
        adv = net.tools[0]
        if mode == 'http':
            argv = [adv, 'http', '127.0.0.1', str(stage['http']),
                    str(HTTP_CONNS), str(secs)]
        else:
            argv = [adv, mode, t.endpoint, t.id, str(stage['adv']),
                    str(secs)]
            if arg == 'author':
                argv.append(h.id)
            elif arg == 'blob':
                argv.append(blob)
            elif arg == 'relay':
                argv += [stage['far'].id, stage['far'].endpoint,
                         stage['relay_key']]
        self.mode = mode
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.alive():
            self.proc.terminate()
        out, _ = self.proc.communicate(timeout=30)
        return out.strip()


def restart(t, h, rep):
    t.stop()
    t.start()
    wait_for('honest peer up again', lambda: honest_up(t, h), 20)
    check(rep.settle(60), 'the restarted target caught up')


def run_mode(net, t, h, rep, mon, stage, blob, mode, arg, limit_rss,
             n_base=SAMPLES_BASE):
    row = {'mode': mode, 'arg': arg, 'fails': []}
    if arg == 'relay':
        # the far node's feed, two hops away: its own unloaded samples
        rep = stage['far_rep']
        row['own_base'] = True
        n_base = 2 * SAMPLES_BASE + 1
    base = [rep.once() for _ in range(n_base)]
    if not rep.settle(RECOVER_S):
        restart(t, h, rep)
    time.sleep(0.3)
    rss0 = t.rss_kib()
    req0 = stored_requests(t)
    mon.window()
    atk = Attack(net, t, h, stage, mode, arg, blob)
    time.sleep(WARMUP_S)
    if not atk.alive():
        row['fails'].append('adversary exited: %s' % atk.stop()[-300:])
    during = [rep.once() for _ in range(SAMPLES_DURING)]
    if mode == 'http':
        st, n, dt = http_get(stage['http'])
        row['extra'] = 'GET %d, %d B, %.2f s' % (st, n, dt)
        if st != 200 or n == 0 or dt > 2:
            row['fails'].append('honest dashboard GET: status %d, %d bytes,'
                                ' %.1f s' % (st, n, dt))
    try:
        up = honest_up(t, h)
    except Fail:
        up = False
    if not up:
        row['fails'].append('honest peer not up during the attack')
    out = atk.stop()
    t_stop = time.time()
    row['out'] = out.splitlines()[-1] if out else ''
    if mode == 'request-times':
        new = stored_requests(t) - req0
        row['extra'] = '%d stored' % new
        if new:
            row['fails'].append('%d requests with absurd times stored' % new)
    time.sleep(max(0, t_stop + AFTER_S - time.time()))
    afters = [rep.once() for _ in range(SAMPLES_AFTER)]
    after = statistics.median(afters)
    peak, ctl_max, ctl_fail = mon.window()
    # the node gives freed memory back every NODE_TRIM_MS
    deadline = t_stop + TRIM_WAIT_S
    rss1 = t.rss_kib()
    while rss1 - rss0 > RSS_SETTLED_KIB and time.time() < deadline:
        time.sleep(0.2)
        rss1 = t.rss_kib()
    row.update(base=base, during=during, after=after, afters=afters,
               rss0=rss0,
               peak=max(peak, rss1) - rss0, settled=rss1 - rss0,
               ctl=ctl_max, ctl_fail=ctl_fail)
    if peak - rss0 > limit_rss:
        row['fails'].append('RSS +%d KiB' % (peak - rss0))
    if rss1 - rss0 > limit_rss * RSS_SETTLED_KIB // RSS_PEAK_KIB:
        row['fails'].append('RSS +%d KiB after (%s)' % (
            rss1 - rss0, t.memory()))
    if ctl_max > CTL_MAX_S or ctl_fail:
        row['fails'].append('control socket %.1f s (%d failed)'
                            % (ctl_max, ctl_fail))
    check(t.alive(), 'the target survived %s' % mode)
    if not rep.settle(RECOVER_S):
        # later rows measure the next attack, not this one's aftermath
        row['fails'].append('not caught up %.0f s after' % RECOVER_S)
        restart(t, h, rep)
        mon.window()
    if n_base > SAMPLES_BASE and not row.get('own_base'):
        # a row run again: unloaded samples after it too, so a drift of
        # the machine's load while it ran moves its baseline as well
        row['base'] += [rep.once() for _ in range(n_base)]
    print('%-14s during %s ms, after %s ms, RSS +%d/+%d KiB, ctl %.0f ms;'
          ' %s' % (mode, ms(during), ms(afters), row['peak'], row['settled'],
                   ctl_max * 1000, row['out']), flush=True)
    return row


def ms(xs):
    return ' '.join('%.0f' % (x * 1000) for x in xs)


def baseline(rows, i):
    """Row i's unloaded median: its own samples and the next row's (or
    the one before), taken minutes apart at most, so a drift of the
    machine's load moves both sides; the slow relay's path only its own."""
    r = rows[i]
    if r.get('own_base') or r.get('again'):
        return statistics.median(r['base'])
    near = [j for j in (i + 1, i - 1) if 0 <= j < len(rows) and
            not rows[j].get('own_base')][:1]
    return statistics.median(r['base'] + [x for j in near
                                          for x in rows[j]['base']])


def timing_fails(r, base):
    d = statistics.median(r['during'])
    worst = max(r['during'] + r['afters'])
    fails = []
    if d > RATIO_MAX * base:
        fails.append('during %.1fx' % (d / base))
    if r['after'] > RATIO_MAX * base:
        fails.append('after %.1fx' % (r['after'] / base))
    if worst > STALL_MAX * base:
        fails.append('a stall of %.1f s' % worst)
    return fails


def slow_only(rows, i):
    """Whether row i broke only the 2x bounds: on a shared machine, one
    load spike can do that; a cost the node really pays does it again."""
    f = timing_fails(rows[i], baseline(rows, i))
    return bool(not rows[i]['fails'] and f and
                not any('stall' in x for x in f))


def judge(rows):
    direct = [x for r in rows if not r.get('own_base') for x in r['base']]
    if direct:  # none when only modes with a base of their own ran
        print('\nunloaded replication of %d records: median %.0f ms over'
              ' %d samples (%s); each row against its own and its'
              ' neighbour\'s' % (RECORDS, statistics.median(direct) * 1000,
                                 len(direct), ms(direct)))
    print('%-14s %7s %9s %6s %8s %9s %6s %8s %8s %7s  %s' % (
        'mode', 'base ms', 'during ms', 'ratio', 'worst ms', 'after ms',
        'ratio', 'peak KiB', 'after KiB', 'ctl ms', 'result'))
    failed = []
    for i, r in enumerate(rows):
        base = baseline(rows, i)
        d = statistics.median(r['during'])
        worst = max(r['during'] + r['afters'])
        fails = timing_fails(r, base) + r['fails']
        res = 'ok' if not fails else 'FAIL: ' + '; '.join(fails)
        if r.get('extra'):
            res += ' (%s)' % r['extra']
        if r.get('again'):
            res += ' (run again: %s)' % r['again']
        print('%-14s %7.0f %9.0f %6.1f %8.0f %9.0f %6.1f %+8d %+8d %7.0f  %s'
              % (r['mode'], base * 1000, d * 1000, d / base, worst * 1000,
                 r['after'] * 1000, r['after'] / base, r['peak'],
                 r['settled'], r['ctl'] * 1000, res))
        if fails:  # the reasons too: the last line may be all one sees
            failed.append('%s (%s)' % (r['mode'], '; '.join(fails)))
    return failed


def stop_under_attack(net, t, h, stage, blob):
    atk = Attack(net, t, h, stage, 'request-ids', None, blob)
    time.sleep(1.5)
    t0 = time.time()
    t.proc.terminate()
    try:
        t.proc.wait(10)
    except subprocess.TimeoutExpired:
        t.proc.kill()
        t.proc.wait()
    dt = time.time() - t0
    atk.stop()
    t.proc = None
    print('SIGTERM under the request-ids attack: stopped in %.2f s (bound'
          ' %.1f s)' % (dt, STOP_MAX_S))
    return dt


def test(net):
    base = lmtest.port_block(BASE, 27000, 27100, 20)
    # ports, and what the slow relay's mode needs
    stage = {'target': base, 'honest': base + 1, 'http': base + 2,
             'adv': base + 5}
    t = net.node('target', stage['target'],
                 extra='  http: "127.0.0.1:%d"\n' % stage['http'])
    h = net.node('honest', stage['honest'], seeds=[t])
    # the slow relay's stage: a far node that only a middle node and the
    # relay's key may reach, so its feed comes to the target two hops away
    key = os.path.join(net.dir, 'relay.key')
    net.run('keygen', '--out', key)
    relay = types.SimpleNamespace(id=open(key + '.pub').read().split()[-1])
    m = net.node('middle', base + 4, seeds=[t])
    far = net.node('far', base + 3, seeds=[m], trust=[m, relay])
    stage.update(far=far, relay_key=key)
    blob = put_blob(t.home, BLOB_MIB)
    for n in (t, h, m, far):
        n.start()
    wait_for('honest peer up', lambda: honest_up(t, h), 10)
    adv = net.tools[0]
    p = subprocess.run([adv, 'fill-requests', t.endpoint, t.id,
                        str(FILL_REQUESTS)], capture_output=True, text=True,
                       timeout=120)
    check(p.returncode == 0, 'fill-requests: %s' % p.stderr)
    _, dt = wait_for('the target holds the requests', lambda: stored_requests(
        t) >= FILL_REQUESTS, 60, 0.2)
    print('target holds %d requests (%.1f s)' % (stored_requests(t), dt))
    rep = Replicator(h, t)
    stage['far_rep'] = Replicator(far, t)
    stage['far_rep'].once()
    rep.once()  # warm-up
    check(rep.settle(60), 'the target caught up: seq %d of %d, peers %s' % (
        rep.held(), rep._seq(rep.hdb, rep.author), t.peers()))
    limit = RSS_PEAK_KIB * (100 if sanitized(net.labmesh) else 1)
    mon = Monitor(t)
    rows = []
    try:
        only = os.environ.get('LM_ADV_MODES')  # e.g. "liar,hellos"
        for mode, arg in MODES:
            if only and mode not in only.split(','):
                continue
            rows.append(run_mode(net, t, h, rep, mon, stage, blob, mode, arg,
                                 limit))
        for i in [i for i in range(len(rows)) if slow_only(rows, i)]:
            first = []
            for _ in range(AGAIN_MAX):
                first.append(', '.join(timing_fails(rows[i],
                                                    baseline(rows, i))))
                rows[i] = run_mode(net, t, h, rep, mon, stage, blob,
                                   rows[i]['mode'], rows[i]['arg'], limit,
                                   2 * SAMPLES_BASE + 1)
                rows[i]['again'] = 'before: ' + '; '.join(first)
                if not slow_only(rows, i):
                    break
        dt = stop_under_attack(net, t, h, stage, blob)
    finally:
        mon.stop()
    failed = judge(rows)
    for n in (h, m, far):
        n.stop()
    for n in (t, h, m, far):
        p = n.cli('store', 'check', check_rc=False, timeout=120)
        print('store check %s: exit %d %s' % (n.name, p.returncode,
                                             p.stdout.strip()[-200:]))
        if p.returncode != 0:
            failed.append('store check of %s' % n.name)
    if dt > STOP_MAX_S:
        failed.append('SIGTERM took %.1f s' % dt)
    check(not failed, 'bounds broken: %s' % ', '.join(failed))


lmtest.main(test)
