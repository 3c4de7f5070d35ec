#!/usr/bin/env python3
"""bench-network: scale figures of a loopback network of real nodes.

For each size N (10, 50, 100 by default) and each of S random sparse
topologies (seeds of the random generator), N `labmesh node` processes,
each with one `local` board and the default max_peers, start staggered on
127.0.0.1; node i names one or two random earlier nodes as seeds, and peer
exchange does the rest. Then:

  overlay      every node holds every node's advert (the overlay is one
               connected piece);
  flood        R requests, each from a random node (above 100 nodes for
               a lab named nowhere, which every lab declines): the time
               until every
               node holds it (from the nodes' own `last_request_ms`),
               against the time to the origin's direct peers (one hop);
               request messages sent per node per request against the
               node's peer count;
  replication  (first topology of each size) a burst of B records
               appended at one node: the time until
               every node holds them (`last_record_ms`), against the time
               to the origin's direct peers; payload bytes sent by all
               nodes per record delivered, against the record size;
               records received in records messages (duplicates
               too) per new record taken;
               the same for records published one at a time (an advert
               republished every TRICKLE_S, first topology);
  steady       (first topology of each size) CPU from /proc/PID/stat and
               payload bytes sent per node over an idle window, per minute;
  memory       RSS per idle node, and of one node whose store holds
               a million records, then one record of each of 10,000
               feeds (filled by lm-fill-store, kept in
               build/bench-cache between runs).

Counters come from `labmesh debug status` (bytes are message payloads:
ZeroMQ/CURVE framing adds about 40 bytes per message, TCP/IP more).
Prints one JSON object per line (scripts/bench reads them); progress on
stderr. Ports: 30000-39999.

  bench-network [--sizes 10,50,100] [--topologies 3] [--requests 3]
                [--burst 10000] [--idle 20] [--trickle 10]
                [--store-records 1000000] [--store-feeds 10000]
                [--cache DIR] [--homes DIR] [--overlay-timeout S]
(topologies: 3 up to N = 100, 1 above; burst: 10,000 records, at most
a million deliveries: 1,000 at N = 1,000)
  LM_BENCH_LOG=debug keeps the nodes' logs at that level,
  LM_BENCH_KEEP=1 keeps their homes.
"""
import argparse
import concurrent.futures
import json
import os
import random
import resource
import shutil
import signal
import socket
import sqlite3
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import lmtest  # copied beside this script by the build

HERE = os.path.dirname(os.path.abspath(__file__))
LABMESH = os.path.join(HERE, 'labmesh')
HOSTILE = os.path.join(HERE, 'hostile')
FILL = os.path.join(HERE, 'lm-fill-store')
PORT_LO, PORT_HI = 30000, 39999
CLK_TCK = os.sysconf('SC_CLK_TCK')
MIB = 1024 * 1024
TRICKLE_S = 0.5
TRICKLE_KINDS = ('vector', 'want', 'records', 'credit', 'ranges')
# between node starts: above 100 nodes, starting them faster than the
# machine takes their first exchanges leaves holes (see README.md)
STAGGER_S = os.environ.get('LM_BENCH_STAGGER')
HOMES = None  # where the nodes' homes go (--homes; default $TMPDIR)
LIVENESS = None  # the nodes' node.liveness (--liveness; default theirs)


def log(*a):
    print('bench-network:', *a, file=sys.stderr, flush=True)


def emit(figure, value, unit, baseline=None, target=None, met=None,
         ratio=None):
    row = {'figure': figure, 'value': value, 'unit': unit}
    if baseline is not None:
        row['baseline'] = baseline
        if ratio is None and baseline:
            ratio = value / baseline
    if ratio is not None:
        row['ratio'] = round(ratio, 4)
    if target is not None:
        row['target'] = target
        row['met'] = bool(met)
    print(json.dumps(row), flush=True)


def run(*args, timeout=30):
    p = subprocess.run(list(args), capture_output=True, text=True,
                       timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError('%s: %s' % (' '.join(args[:3]), p.stderr.strip()))
    return p.stdout


def s_frame(body, more, command=False):
    flags = (1 if more else 0) | (4 if command else 0)
    if len(body) > 255:
        return bytes([flags | 2]) + struct.pack('>Q', len(body)) + body
    return bytes([flags, len(body)]) + body


def s_recv_exact(sock, n):
    buf = b''
    while len(buf) < n:
        got = sock.recv(n - len(buf))
        if not got:
            raise RuntimeError('control socket closed')
        buf += got
    return buf


def s_recv_frame(sock):
    flags = s_recv_exact(sock, 1)[0]
    if flags & 2:
        size = struct.unpack('>Q', s_recv_exact(sock, 8))[0]
    else:
        size = s_recv_exact(sock, 1)[0]
    return flags, s_recv_exact(sock, size)


def ctl(home, command, *args, timeout=30):
    """One command on the node's control socket (a ZeroMQ REP socket on
    HOME/ctl, NULL security), spoken as a REQ peer in ZMTP 3.0 from here:
    a sweep of 1,000 nodes then costs no 1,000 `labmesh` processes."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(os.path.join(home, 'ctl'))
        sock.sendall(b'\xff' + bytes(8) + b'\x7f' + bytes([3, 0]) +
                     b'NULL'.ljust(20, b'\0') + bytes(32))
        s_recv_exact(sock, 64)
        ready = b'\x05READY\x0bSocket-Type' + struct.pack('>I', 3) + b'REQ'
        sock.sendall(s_frame(ready, False, command=True))
        flags, _ = s_recv_frame(sock)  # the node's READY
        if not flags & 4:
            raise RuntimeError('control socket: no READY')
        frames = [b'', command.encode(), b'json'] + \
            [a.encode() for a in args]
        sock.sendall(b''.join(s_frame(f, k < len(frames) - 1)
                              for k, f in enumerate(frames)))
        reply = []
        while True:
            flags, body = s_recv_frame(sock)
            if not flags & 4:
                reply.append(body)
                if not flags & 1:
                    break
    finally:
        sock.close()
    if len(reply) != 3 or reply[1] != b'ok':
        raise RuntimeError('%s: %s' % (command, reply[-1].decode()))
    return json.loads(reply[2])


def free_ports(n, start):
    ports, p = [], start
    while len(ports) < n:
        if p > PORT_HI:
            p = PORT_LO
        if lmtest.port_free(p, reuse=True):
            ports.append(p)
        p += 1
    return ports


def percentile(v, q):
    v = sorted(v)
    if not v:
        return 0
    k = min(len(v) - 1, max(0, int(round(q / 100.0 * (len(v) - 1)))))
    return v[k]


class Node:
    def __init__(self, root, i, port):
        self.i = i
        self.name = 'n%03d' % i
        self.home = os.path.join(root, self.name)
        os.makedirs(self.home, mode=0o700)
        self.endpoint = 'tcp://127.0.0.1:%d' % port
        self.id = None
        self.seeds = []
        self.proc = None

    def config(self):
        lines = ['lab: {name: %s}' % self.name, 'node:',
                 '  listen: "%s"' % self.endpoint]
        if LIVENESS:
            lines.append('  liveness: %s' % LIVENESS)
        if self.seeds:
            lines.append('  seeds:')
            for s in self.seeds:
                lines.append('    - {endpoint: "%s", key: %s}' %
                             (s.endpoint, s.id))
        lines += ['boards:',
                  '  - {name: local, arch: x86_64, transport: {type: local},'
                  ' boot: {method: none}}']
        path = os.path.join(self.home, 'lab.yaml')
        with open(path, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        return path

    def start(self):
        cfg = self.config()
        logf = open(os.path.join(self.home, 'node.log'), 'a')
        self.proc = subprocess.Popen(
            [LABMESH, 'node', '--home', self.home, '--config', cfg,
             '--log-level', os.environ.get('LM_BENCH_LOG', 'warn')],
            stdout=logf, stderr=logf)
        logf.close()

    def ready(self):
        return os.path.exists(os.path.join(self.home, 'ctl'))

    def make_id(self):
        self.id = run(LABMESH, '--home', self.home, 'id').strip()

    def ask(self, command):
        # a node deep in a burst, or starved of CPU, may take its time to
        # answer: ask again
        for k in range(3):
            try:
                return ctl(self.home, command, timeout=60)
            except (TimeoutError, socket.timeout):
                log('%s: no %s within 60 s, asking again' %
                    (self.name, command))
        return ctl(self.home, command, timeout=120)

    def status(self):
        return self.ask('status')

    def peer_ids(self):
        return {p['id'] for p in self.ask('peers')
                if p.get('state') == 'up'}

    def cpu_ticks(self):
        with open('/proc/%d/stat' % self.proc.pid) as f:
            fields = f.read().rsplit(')', 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime

    def rss_kib(self):
        return lmtest.rss_kib(self.proc.pid)

    def sockets(self):
        """Its open sockets: TCP connections (two per peer, one each
        way), the listener and the control socket."""
        fd = '/proc/%d/fd' % self.proc.pid
        n = 0
        for f in os.listdir(fd):
            try:
                n += os.readlink(os.path.join(fd, f)).startswith('socket:')
            except OSError:  # closed meanwhile
                pass
        return n

    def stop(self):
        lmtest.stop_process(self.proc)


def sweep(nodes):
    # a few at a time on the control sockets: the node answers from its
    # loop, so more at once would only queue
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as ex:
        return list(ex.map(lambda n: n.status(), nodes))


def stop_all(nodes, timeout=30):
    """SIGTERM to every node at once, then wait; SIGKILL what is left."""
    live = [n.proc for n in nodes if n.proc and n.proc.poll() is None]
    for p in live:
        p.send_signal(signal.SIGTERM)
    deadline = time.time() + timeout
    for p in live:
        try:
            p.wait(max(0.1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


class Network:
    def __init__(self, n, seed, port_start):
        self.rng = random.Random(seed)
        self.dir = tempfile.mkdtemp(prefix='lm-bench-net-', dir=HOMES)
        ports = free_ports(n, port_start)
        self.nodes = [Node(self.dir, i, ports[i]) for i in range(n)]
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
            list(ex.map(lambda nd: nd.make_id(), self.nodes))
        for node in self.nodes[1:]:
            k = 1 if self.rng.random() < 0.5 else 2
            node.seeds = self.rng.sample(self.nodes[:node.i],
                                         min(k, node.i))

    def start(self):
        # staggered: a node's seeds are up before it starts
        for node in self.nodes:
            node.start()
            time.sleep(float(STAGGER_S) if STAGGER_S else
                       0.03 if len(self.nodes) <= 100 else 0.15)
            if node.i % 100 == 99:
                log('started %d nodes' % (node.i + 1))
        deadline = time.time() + 60 + len(self.nodes) // 10
        while not all(n.ready() for n in self.nodes):
            dead = [n.name for n in self.nodes if n.proc.poll() is not None]
            if dead or time.time() > deadline:
                for name in dead[:3]:
                    with open(os.path.join(self.dir, name, 'node.log')) as f:
                        log('%s exited: %s' % (name, f.read()[-600:]))
                raise RuntimeError('nodes did not start (%d exited: %s)' %
                                   (len(dead), ' '.join(dead[:5])))
            time.sleep(0.1)

    def wait_connected(self, timeout):
        """Until every node holds every node's advert; (ok, min feeds, s,
        nodes holding every advert)."""
        t0 = time.time()
        n = len(self.nodes)
        while True:
            st = sweep(self.nodes)
            low = min(s['feeds'] for s in st)
            full = sum(s['feeds'] >= n for s in st)
            if low >= n:
                return True, low, time.time() - t0, full
            if time.time() - t0 > timeout:
                return False, low, time.time() - t0, full
            if n >= 200:
                log('overlay: %.0f s, %d of %d nodes hold every advert,'
                    ' fewest %d' % (time.time() - t0,
                                    sum(s['feeds'] >= n for s in st), n, low))
                time.sleep(4)
            time.sleep(1)

    def wait_quiet(self, key, timeout, settle=2.0):
        """Until the counter key (a status key, or a function of a node's
        status) of every node stops moving."""
        t0 = time.time()
        last = None
        get = key if callable(key) else (lambda s: s[key])
        while time.time() - t0 < timeout:
            cur = [get(s) for s in sweep(self.nodes)]
            if cur == last:
                return cur
            last = cur
            time.sleep(settle)
        return last

    def graph(self):
        by_id = {n.id: n.i for n in self.nodes}
        with concurrent.futures.ThreadPoolExecutor(max_workers=8) as ex:
            ids = list(ex.map(lambda n: n.peer_ids(), self.nodes))
        return [{by_id[p] for p in got if p in by_id} for got in ids]

    def close(self):
        stop_all(self.nodes)
        if os.environ.get('LM_BENCH_KEEP') != '1':
            shutil.rmtree(self.dir, ignore_errors=True)


def hops_from(graph, src):
    dist = {src: 0}
    front = [src]
    while front:
        nxt = []
        for u in front:
            for v in graph[u]:
                if v not in dist:
                    dist[v] = dist[u] + 1
                    nxt.append(v)
        front = nxt
    return dist


def flood(net, graph, requests, acc):
    nodes = net.nodes
    for r in range(requests):
        origin = net.rng.choice(nodes)
        path = os.path.join(net.dir, 'req%d' % r)
        # above 100 labs, a request for no lab: each lab declines it (one
        # record, N^2 deliveries in all) instead of running it (eight
        # records a lab: accept, events, run, adverts busy and idle)
        run(HOSTILE, 'make-request', path, '600000',
            *(['nowhere'] if len(nodes) > 100 else []))
        before = sweep(nodes)
        t_submit = int(time.time() * 1000)
        out = run(LABMESH, '--home', origin.home, 'debug', 'submit-raw',
                  path).strip()
        if out != 'new':
            raise RuntimeError('request not taken: %s' % out)
        deadline = time.time() + 60 + len(nodes) // 10
        while True:
            time.sleep(1)
            after = sweep(nodes)
            if all(s['last_request_ms'] >= t_submit for s in after):
                break
            if time.time() > deadline:
                acc['flood_missing'] += sum(
                    s['last_request_ms'] < t_submit for s in after)
                break
        t0 = after[origin.i]['last_request_ms']
        arrive = [s['last_request_ms'] - t0 for s in after
                  if s['last_request_ms'] >= t_submit]
        one_hop = [after[j]['last_request_ms'] - t0 for j in graph[origin.i]]
        acc['flood_all'].append(max(arrive))
        acc['flood_hop'].append(statistics.median(one_hop) if one_hop else 0)
        acc['flood_ecc'].append(max(hops_from(graph, origin.i).values()))
        for j, (a, b) in enumerate(zip(before, after)):
            sent = b['request_msgs_sent'] - a['request_msgs_sent']
            peers = max(1, len(graph[j]))
            acc['req_sent'].append(sent)
            acc['req_peers'].append(len(graph[j]))
            acc['req_ratio'].append(sent / peers)
        log('request %d: every node in %d ms' % (r, acc['flood_all'][-1]))
        # the declines every lab publishes replicate before the next one
        net.wait_quiet('records', 60 + len(nodes) // 2,
                       settle=0.5 if len(nodes) < 200 else 3)


def record_size(node):
    db = sqlite3.connect('file:%s?mode=ro' %
                         os.path.join(node.home, 'store.db'), uri=True,
                         timeout=10)
    try:
        row = db.execute('SELECT avg(length(bytes)) FROM records WHERE'
                         ' kind = (SELECT kind FROM records ORDER BY seq'
                         ' DESC LIMIT 1) AND author = ?',
                         (bytes.fromhex(node.id),)).fetchone()
        return float(row[0] or 0)
    finally:
        db.close()


def replicate(net, graph, burst, acc):
    nodes = net.nodes
    origin = net.rng.choice(nodes)
    before = sweep(nodes)
    t0 = int(time.time() * 1000)
    run(LABMESH, '--home', origin.home, 'debug', 'append-records', str(burst))
    want = [s['records'] + burst for s in before]
    deadline = time.time() + 600 + len(nodes)
    while True:
        time.sleep(2 if len(nodes) < 200 else 10)
        after = sweep(nodes)
        if all(a['records'] >= w for a, w in zip(after, want)):
            break
        log('burst: %.0f s, %d of %d nodes hold it' %
            (time.time() - t0 / 1000.0,
             sum(a['records'] >= w for a, w in zip(after, want)), len(nodes)))
        if time.time() > deadline:
            acc['repl_missing'] += sum(a['records'] < w
                                       for a, w in zip(after, want))
            log('burst: not at every node by the deadline')
            break
    time.sleep(1.5)  # last credits and vectors
    after = sweep(nodes)
    others = [s for s in after if s['id'] != origin.id]
    done = [s['last_record_ms'] - t0 for s in others]
    one_hop = [after[j]['last_record_ms'] - t0 for j in graph[origin.i]]
    sent = sum(b['bytes_sent'] - a['bytes_sent']
               for a, b in zip(before, after))
    msgs = sum(b['msgs_sent'] - a['msgs_sent'] for a, b in zip(before, after))
    delivered = sum(b['records_from_peers'] - a['records_from_peers']
                    for a, b in zip(before, after))
    # every record of records messages, duplicates too, against the new
    # ones they brought (the burst, and the few other records of the
    # same seconds)
    received = sum(b['records_received'] - a['records_received']
                   for a, b in zip(before, after))
    # where duplicates came from, and what moved pulls
    why = {k: sum(b.get(k, 0) - a.get(k, 0) for a, b in zip(before, after))
           for k in ('duplicates_pulled', 'duplicates_other', 'pulls_started',
                     'pulls_taken_over', 'pulls_preempted', 'pulls_stalled',
                     'pulls_stalled_first', 'pulls_waited',
                     'duplicates_stale', 'wants_unheld', 'wants_again',
                     'wants_queued', 'wants_unsent', 'pulls_stalled_read',
                     'wants_stop_sent', 'wants_stopped', 'pulls_judged_later',
                     'pushers_pruned', 'pulls_stalled_unponged',
                     'pulls_stalled_patience',
                     'beside_pull_author',
                     'beside_pull_relay', 'handovers', 'handovers_read',
                     'handovers_timed')}
    log('burst: %d received, %d new; duplicates %d from the peer pulled,'
        ' %d from others; pulls %d, moved %d to a better placed peer'
        ' (%d before any answer), %d for want of records (%d at the'
        ' first batch; %d with a peer that never answered a ping, %d'
        ' out of patience); %d waited for their peer' %
        (received, delivered, why['duplicates_pulled'],
         why['duplicates_other'], why['pulls_started'],
         why['pulls_taken_over'], why['pulls_preempted'],
         why['pulls_stalled'], why['pulls_stalled_first'],
         why['pulls_stalled_unponged'], why['pulls_stalled_patience'],
         why['pulls_waited']))
    log('burst: stall verdicts put off while messages waited unread %d;'
        ' stalled after a pong said the peer read the want %d; of'
        ' the duplicates from the peer pulled, %d answered an'
        ' earlier want; wants of records not held %d, again while served'
        ' %d, not served whole at once %d, dropped unsent %d; stops sent'
        ' as pulls left their peer %d, records left unsent by them %d;'
        ' records taken while their'
        ' pull was in flight to another peer: pushed by the author %d,'
        ' from a relay %d; pushers told our head as a pull of a batch'
        ' started %d; pulls that waited for their peer to read the stop'
        ' %d (ended by its pong %d, out of time %d)' %
        (why['pulls_judged_later'], why['pulls_stalled_read'],
         why['duplicates_stale'],
         why['wants_unheld'], why['wants_again'],
         why['wants_queued'], why['wants_unsent'],
         why['wants_stop_sent'], why['wants_stopped'],
         why['beside_pull_author'],
         why['beside_pull_relay'], why['pushers_pruned'],
         why['handovers'], why['handovers_read'], why['handovers_timed']))
    acc['repl_all'].append(max(done) / 1000.0)
    acc['repl_hop'].append(statistics.median(one_hop) / 1000.0)
    acc['repl_bytes'].append(sent / max(1, delivered))
    acc['repl_msgs'].append(msgs / max(1, delivered))
    acc['repl_dup'].append(received / max(1, delivered))
    acc['repl_cover'].append(delivered / (burst * (len(nodes) - 1)))
    acc['rec_size'].append(record_size(origin))


def trickle(net, count, acc):
    """Records one at a time, as labs publish them: one node republishes
    its advert (a new record, pushed at once) every TRICKLE_S."""
    nodes = net.nodes
    origin = net.rng.choice(nodes)
    before = sweep(nodes)
    for k in range(count):
        run(LABMESH, '--home', origin.home, 'debug', 'set-board', 'local',
            'busy' if k % 2 == 0 else 'idle', str(k))
        time.sleep(TRICKLE_S)
    want = [s['records'] + count for s in before]
    deadline = time.time() + 120 + len(nodes) // 5
    while True:
        after = sweep(nodes)
        if all(a['records'] >= w for a, w in zip(after, want)) or \
                time.time() > deadline:
            break
        time.sleep(1)
    time.sleep(1.5)
    after = sweep(nodes)
    sent = sum(b['bytes_sent'] - a['bytes_sent']
               for a, b in zip(before, after))
    delivered = sum(b['records_from_peers'] - a['records_from_peers']
                    for a, b in zip(before, after))
    # the records' cost is what replication sends (as bench-delivery
    # counts it, and the digest answers of the while too); the pings and
    # digests of the same seconds go on without records (the steady
    # figure counts them), and are reported apart
    kinds = s_kinds(before, after)
    repl = sum(kinds.get(k, 0) for k in TRICKLE_KINDS)
    acc['trickle_bytes'].append(repl / max(1, delivered))
    acc['trickle_all'].append(sent / max(1, delivered))
    log('trickle: %d records delivered, %d B sent, %d B of it replication'
        ' (%s); by message type: %s' %
        (delivered, sent, repl, ', '.join(TRICKLE_KINDS),
         s_kinds_text(kinds)))
    db = sqlite3.connect('file:%s?mode=ro' %
                         os.path.join(origin.home, 'store.db'), uri=True,
                         timeout=10)
    try:
        row = db.execute('SELECT avg(length(bytes)) FROM records WHERE'
                         ' author = ? AND seq > 1',
                         (bytes.fromhex(origin.id),)).fetchone()
        acc['trickle_size'].append(float(row[0] or 0))
    finally:
        db.close()


def s_hellos(status):
    return status.get('sent_by_kind', {}).get('hello', {}).get('msgs', 0)


def s_kinds(before, after):
    """Bytes sent by message type between two sweeps of the same nodes."""
    kinds = {}
    for a, b in zip(before, after):
        for k, v in b.get('sent_by_kind', {}).items():
            kinds[k] = kinds.get(k, 0) + v['bytes'] - \
                a.get('sent_by_kind', {}).get(k, {}).get('bytes', 0)
    return kinds


def s_kinds_text(kinds):
    return ', '.join('%s %d' % kv for kv in sorted(
        kinds.items(), key=lambda kv: -kv[1]) if kv[1]) or 'nothing'


def steady(net, idle, acc):
    nodes = net.nodes
    time.sleep(3)
    a = sweep(nodes)
    ca = [n.cpu_ticks() for n in nodes]
    t0 = time.time()
    time.sleep(idle)
    b = sweep(nodes)
    cb = [n.cpu_ticks() for n in nodes]
    dt = time.time() - t0
    per_min = 60.0 / dt
    acc['idle_bytes'] = [(y['bytes_sent'] - x['bytes_sent']) * per_min
                         for x, y in zip(a, b)]
    acc['idle_msgs'] = [(y['msgs_sent'] - x['msgs_sent']) * per_min
                        for x, y in zip(a, b)]
    acc['idle_cpu'] = [100.0 * (y - x) / CLK_TCK / dt for x, y in zip(ca, cb)]
    # what the idle minutes carried, by message type, in all and from the
    # node that sent most: a node still catching up shows here
    kinds = s_kinds(a, b)
    top = max(range(len(nodes)), key=lambda i: acc['idle_bytes'][i])
    log('steady: %.0f s, %d B sent in all; by message type: %s; most from '
        'node %d (%d B/min: %s)' % (
            dt, sum(y['bytes_sent'] - x['bytes_sent'] for x, y in zip(a, b)),
            s_kinds_text(kinds), top, acc['idle_bytes'][top],
            s_kinds_text(s_kinds([a[top]], [b[top]]))))
    acc['idle_rss'] = [n.rss_kib() / 1024.0 for n in nodes]
    s_log_memory(nodes, acc['idle_rss'])


def s_log_memory(nodes, rss):
    """Where the memory of the largest nodes and of a median one is:
    malloc's arenas in use and free, SQLite's share, the feeds held."""
    order = sorted(range(len(nodes)), key=lambda i: rss[i])
    for i in order[-3:][::-1] + [order[len(order) // 2]]:
        try:
            st = nodes[i].status()
        except Exception:  # a node that does not answer: skip it
            continue
        m = st.get('memory') or {}
        tables = m.get('tables') or {}
        log('memory of node %d: RSS %.1f MiB; heap in use %.1f, free %.1f,'
            ' arena %.1f MiB; SQLite %.1f MiB; %d feeds, %d peers up, %d'
            ' sockets; tables: %s, peer_vector %d' % (
                i, rss[i], m.get('heap_in_use', 0) / 1048576.0,
                m.get('heap_free', 0) / 1048576.0,
                m.get('heap_arena', 0) / 1048576.0,
                m.get('sqlite', 0) / 1048576.0, st.get('feeds', 0),
                st.get('peers_up', 0), nodes[i].sockets(),
                ' '.join('%s %d' % kv for kv in sorted(tables.items())),
                st.get('peer_vector_entries', 0)))


def new_acc():
    return {k: [] for k in ('flood_all', 'flood_hop', 'flood_ecc', 'req_sent',
                           'req_peers', 'req_ratio', 'repl_all', 'repl_hop',
                           'repl_bytes', 'repl_msgs', 'repl_dup', 'rec_size',
                           'connect_s', 'degree', 'trickle_bytes', 'trickle_all',
                           'trickle_size', 'rss_connected', 'repl_cover',
                           'overlay_short')}


def network_size(n, topologies, requests, burst, idle, n_trickle,
                 port_start, acc, overlay_s=None):
    acc['flood_missing'] = 0
    acc['burst'] = burst
    acc['repl_missing'] = 0
    acc['errors'] = []
    acc['split'] = 0
    split = 0
    for t in range(topologies):
        seed = 1000 * n + t
        net = Network(n, seed, port_start)
        try:
            t_start = time.time()
            net.start()
            ok, low, secs, full = net.wait_connected(
                overlay_s or (60 + n // 2 if n <= 100 else 60 + n))
            log('N=%d topology %d: %s in %.1f s (start %.1f s)' %
                (n, t, 'connected' if ok else
                 'NOT CONNECTED (%d nodes hold every advert, fewest %d'
                 ' feeds)' % (full, low), secs, time.time() - t_start))
            if not ok:
                acc['overlay_short'].append((full, low, secs))
            graph = net.graph()
            reach = len(hops_from(graph, 0))
            if not ok:
                if reach < n:
                    log('N=%d topology %d: peer graph split (%d of %d'
                        ' reachable)' % (n, t, reach, n))
                    split += 1
                    acc['split'] = split
                    continue
                # one piece, some adverts still on their way: the
                # rest is measured all the same, and said so
            else:
                acc['connect_s'].append(secs)
            net.wait_quiet('records', min(30 + n // 2, 180),
                           settle=1.0 if n < 200 else 3)
            # and the peer tables: nodes dial the peers they learn of
            # until they have max_peers; the sessions they start then
            # (a hello, the table, a digest each) are not the idle cost
            t_settle = time.time()
            net.wait_quiet(s_hellos, min(60 + n // 2, 300), settle=5)
            log('N=%d topology %d: no new session for 5 s after %.1f s' %
                (n, t, time.time() - t_settle))
            graph = net.graph()  # the links settled meanwhile
            try:
                s_phases(net, n, t, graph, requests, burst, idle, n_trickle,
                         acc)
            except Exception as e:  # what was measured is still reported
                log('N=%d topology %d: stopped: %r' % (n, t, e))
                acc['errors'].append(repr(e))
        finally:
            net.close()
    return acc, split


def s_phases(net, n, t, graph, requests, burst, idle, n_trickle, acc):
    acc['degree'] += [len(g) for g in graph]
    acc['rss_connected'] += [nd.rss_kib() / 1024.0
                             for nd in net.nodes]
    if t == 0 and idle > 0 and n > 100:
        # above 100 nodes, idle first: the requests and the burst cost
        # minutes of replication, and the idle figures are cheap
        s_idle(net, n, t, idle, acc)
    flood(net, graph, requests, acc)
    log('N=%d topology %d: flood done' % (n, t))
    if t == 0:
        # the 10,000-record burst once per size: at N = 100 it
        # is a million verified inserts on a 2-core machine
        replicate(net, graph, burst, acc)
        log('N=%d topology %d: burst done in %.1f s' %
            (n, t, acc['repl_all'][-1]))
    if t == 0 and idle > 0 and n <= 100:
        s_idle(net, n, t, idle, acc)
    if t == 0 and n_trickle:
        trickle(net, n_trickle, acc)
        log('N=%d topology %d: trickle done' % (n, t))


def s_idle(net, n, t, idle, acc):
    net.wait_quiet('records', min(60 + n // 2, 180),
                   settle=2.0 if n < 200 else 5)
    steady(net, idle, acc)
    log('N=%d topology %d: idle window done' % (n, t))


def s_report_steady(tag, n, acc):
    if acc['rss_connected']:
        rss = statistics.median(acc['rss_connected'])
        emit('%s: memory, RSS per idle node, connected (median; max %.1f)' %
             (tag, max(acc['rss_connected'])), round(rss, 2), 'MiB',
             target='value <= 10', met=rss <= 10)
    if 'idle_cpu' in acc:
        cpu = statistics.mean(acc['idle_cpu'])
        emit('%s: steady, CPU per node (mean; max %.2f%%)' %
             (tag, max(acc['idle_cpu'])), round(cpu, 3), '% of a core',
             target='value < 1', met=cpu < 1)
        b = statistics.mean(acc['idle_bytes'])
        emit('%s: steady, bytes sent per node per minute (mean; max %.0f;'
             ' %.0f msgs)' % (tag, max(acc['idle_bytes']),
                              statistics.mean(acc['idle_msgs'])),
             round(b), 'B/min', target='value <= 4096', met=b <= 4096)
        rss = statistics.median(acc['idle_rss'])
        emit('%s: memory, RSS per idle node %s (median;'
             ' max %.1f)' % (tag, 'after the burst' if n <= 100 else
                             'before the requests', max(acc['idle_rss'])),
             round(rss, 2),
             'MiB', target='value <= 10', met=rss <= 10)


def report_size(n, topologies, acc, split):
    tag = 'net N=%d' % n + (' liveness %s' % LIVENESS if LIVENESS else '')
    emit('%s: topologies connected (default max_peers 8)' % tag,
         # a split graph is one whose overlay fell short too
         topologies - len(acc['overlay_short']), 'of %d' % topologies,
         target='value = %d' % topologies,
         met=split == 0 and not acc['overlay_short'])
    for full, low, secs in acc['overlay_short']:
        emit('%s: overlay, nodes holding every advert after %.0f s (one'
             ' peer graph; the fewest held %d)' % (tag, secs, low), full,
             'of %d' % n, target='value = %d' % n, met=False)
    for e in acc['errors']:
        emit('%s: run stopped early: %s' % (tag, e), 1, 'error',
             target='value = 0', met=False)
    s_report_steady(tag, n, acc)
    if not acc['flood_all']:
        return
    if acc['connect_s']:
        emit('%s: overlay, time until every node holds every advert'
             ' (median)' % tag, round(statistics.median(acc['connect_s']), 1),
             's')
    emit('%s: peers per node (mean; max %d)' % (tag, max(acc['degree'])),
         round(statistics.mean(acc['degree']), 2), 'peers')
    hop = statistics.median(acc['flood_hop']) or 1
    med = statistics.median(acc['flood_all'])
    emit('%s: flood, time to every node, median (baseline: one hop;'
         ' up to %d hops)' % (tag, max(acc['flood_ecc'])), med, 'ms',
         baseline=hop)
    emit('%s: flood, time to every node, p99' % tag,
         percentile(acc['flood_all'], 99), 'ms', baseline=hop)
    sent = statistics.mean(acc['req_sent'])
    peers = statistics.mean(acc['req_peers'])
    worst = max(acc['req_ratio'])
    emit('%s: flood, messages sent per request per node' % tag,
         round(sent, 3), 'msgs', baseline=round(peers, 3),
         target='ratio <= 2 (worst node %.2f)' % worst, met=worst <= 2)
    if acc['flood_missing']:
        emit('%s: flood, nodes missed within 60 s' % tag,
             acc['flood_missing'], 'nodes', target='value = 0', met=False)
    if acc['repl_missing']:
        emit('%s: replication, nodes without the whole burst at the'
             ' deadline' % tag, acc['repl_missing'], 'nodes',
             target='value = 0', met=False)
    if not acc['repl_all']:
        return
    emit('%s: replication, %d-record burst to every node' %
         (tag, acc['burst']), round(statistics.median(acc['repl_all']), 3), 's',
         baseline=round(statistics.median(acc['repl_hop']), 3))
    size = statistics.mean(acc['rec_size'])
    per = max(acc['repl_bytes'])
    emit('%s: replication, bytes sent per record delivered (worst)' % tag,
         round(per, 1), 'B', baseline=round(size, 1),
         target='ratio <= 1.5', met=per <= 1.5 * size)
    emit('%s: replication, records received per new record taken'
         ' (new records per record of the burst: %.4f)' %
         (tag, min(acc['repl_cover'])),
         round(max(acc['repl_dup']), 4), 'x', target='value = 1',
         met=max(acc['repl_dup']) <= 1.0001)
    if acc['trickle_bytes']:
        per = max(acc['trickle_bytes'])
        size = statistics.mean(acc['trickle_size'])
        emit('%s: replication one record at a time, bytes sent per record'
             ' delivered (%s)' % (tag, ', '.join(TRICKLE_KINDS)),
             round(per, 1), 'B', baseline=round(size, 1),
             target='ratio <= 1.5', met=per <= 1.5 * size)
        per = max(acc['trickle_all'])
        emit('%s: one record at a time, every message of the while per'
             ' record delivered (pings and digests too)' % tag,
             round(per, 1), 'B', baseline=round(size, 1))


def s_filled(cache, records, feeds):
    """A store of `records` records over `feeds` feeds, kept in cache."""
    os.makedirs(cache, exist_ok=True)
    name = 'store-%d.db' % records if feeds == 1 else \
        'store-%d-feeds-%d.db' % (records, feeds)
    db = os.path.join(cache, name)
    if not os.path.exists(db):
        log('filling a store with %d records of %d feeds (kept in %s)' %
            (records, feeds, cache))
        tmp = db + '.tmp'
        for f in (tmp, tmp + '-wal', tmp + '-shm'):
            if os.path.exists(f):
                os.unlink(f)
        run(FILL, tmp, os.path.join(cache, 'author.key'), str(records),
            str(feeds), timeout=3600)
        os.rename(tmp, db)
    return db


def s_rss_with(node, db):
    """RSS of node idle on a copy of the store db, and its status."""
    for f in ('', '-wal', '-shm'):
        p = os.path.join(node.home, 'store.db' + f)
        if os.path.exists(p):
            os.unlink(p)
    shutil.copyfile(db, os.path.join(node.home, 'store.db'))
    node.start()
    while not node.ready():
        time.sleep(0.1)
    st = node.status()
    time.sleep(6)  # a trim period
    rss = node.rss_kib() / 1024.0
    node.stop()
    return rss, st


def memory_lone(records, feeds, cache):
    """RSS of one node idle on an empty store, then on a store holding
    `records` records (a feed of another lab, as if replicated), then on
    one holding one record of each of `feeds` feeds (a node of a network
    of that many labs: one advert of each)."""
    db = s_filled(cache, records, 1) if records else None
    many = s_filled(cache, feeds, feeds) if feeds else None
    root = tempfile.mkdtemp(prefix='lm-bench-mem-')
    try:
        port = free_ports(1, PORT_LO + 9000)[0]
        node = Node(root, 0, port)
        node.start()
        while not node.ready():
            time.sleep(0.1)
        time.sleep(6)  # a trim period
        idle = node.rss_kib() / 1024.0
        node.stop()
        emit('memory: RSS of an idle node, empty store', round(idle, 2),
             'MiB', target='value <= 10', met=idle <= 10)
        if db:
            # a full vector, a scan of the feed: what a peer connecting
            # makes
            full, st = s_rss_with(node, db)
            emit('memory: RSS with %d records in the store (%d held)' %
                 (records, st['records']), round(full, 2), 'MiB',
                 baseline=round(idle, 2), target='value <= 64',
                 met=full <= 64)
            emit('store: bytes on disk per record',
                 round(os.path.getsize(db) / records, 1), 'B')
        if many:
            # our vector and the store's feed table: an entry per lab
            rss, st = s_rss_with(node, many)
            emit('memory: RSS with one record of each of %d feeds (%d'
                 ' feeds held): a node of a network of that many labs' %
                 (feeds, st['feeds']), round(rss, 2), 'MiB',
                 baseline=round(idle, 2), target='value <= 10',
                 met=rss <= 10)
            emit('memory: RSS per feed held, above the empty store',
                 round((rss - idle) * 1048576 / feeds), 'B')
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main():
    # a stopped run stops its nodes too (the finally blocks)
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(1))
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--sizes', default='10,50,100',
                    help='network sizes, comma-separated (default 10,50,100)')
    ap.add_argument('--topologies', type=int, default=None,
                    help='random peer graphs per size (default 3 up to N ='
                    ' 100, 1 above)')
    ap.add_argument('--requests', type=int, default=3,
                    help='requests flooded per topology (default 3)')
    ap.add_argument('--burst', type=int, default=None,
                    help='records of the burst (default 10,000; above 100'
                    ' nodes a million deliveries in all)')
    ap.add_argument('--idle', type=float, default=20,
                    help='seconds of the idle window (default 20)')
    ap.add_argument('--trickle', type=int, default=10,
                    help='records made one at a time (default 10; 0: none)')
    ap.add_argument('--overlay-timeout', type=float, default=None,
                    help='seconds (default 60 + N/2, above 100: 60 + N)')
    ap.add_argument('--store-records', type=int, default=1000000,
                    help='records of the lone node\'s store (default'
                    ' 1,000,000; 0: that phase skipped)')
    ap.add_argument('--store-feeds', type=int, default=10000,
                    help='feeds of one record each of the lone node\'s'
                    ' second store (default 10,000: a network of that many'
                    ' labs; 0: skipped)')
    ap.add_argument('--cache', default=os.path.join(HERE, '..', 'bench-cache'),
                    help='where the filled store is kept between runs')
    ap.add_argument('--homes', default=None,
                    help='directory for the nodes\' homes (default $TMPDIR);'
                    ' above a few hundred nodes the stores\' fsyncs make'
                    ' a disk the bottleneck: /dev/shm takes it out')
    ap.add_argument('--liveness', default=None,
                    help='the nodes\' node.liveness (5s to 10m; default'
                    ' theirs, 5s): how long a silent peer keeps its'
                    ' session, for more nodes than the cores can keep'
                    ' in time')
    a = ap.parse_args()
    global HOMES, LIVENESS
    HOMES = a.homes
    LIVENESS = a.liveness
    # a node holds a few dozen descriptors (its peers' connections, its
    # stores); the children inherit the raised limit
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    t0 = time.time()
    port = PORT_LO
    for n in [int(x) for x in a.sizes.split(',') if x]:
        t = time.time()
        # above 100 labs, one topology and a burst of a million
        # deliveries in all (1,000 records at N = 1,000) by default
        topologies = a.topologies or (3 if n <= 100 else 1)
        burst = a.burst or min(10000, 1000000 // n)
        acc = new_acc()
        try:
            acc, split = network_size(n, topologies, a.requests, burst,
                                      a.idle, a.trickle, port, acc,
                                      a.overlay_timeout)
        except BaseException:
            # stopped (SIGTERM, ^C): the phases done are reported
            if 'split' in acc:
                log('N=%d: stopped; reporting the phases done' % n)
                acc['errors'].append('stopped')
                report_size(n, topologies, acc, acc['split'])
            raise
        port = port + n + 100 if port + 2 * n + 100 <= PORT_HI else PORT_LO
        report_size(n, topologies, acc, split)
        log('N=%d: %.0f s' % (n, time.time() - t))
    if a.store_records or a.store_feeds:
        memory_lone(a.store_records, a.store_feeds,
                    os.path.abspath(a.cache))
    log('total %.0f s' % (time.time() - t0))


if __name__ == '__main__':
    main()
