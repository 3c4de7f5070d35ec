#!/usr/bin/env python3
"""A hostile peer sends 10,000 garbage frames, oversized frames,
non-canonical encodings and forged records: the node stays up, its RSS
stays bounded, and an honest node's new advert arrives within 2 s."""
import subprocess
import time
import lmtest
from lmtest import check, wait_for

BASE = 17500
RSS_GROWTH_MAX_KIB = 32 * 1024


def board_state(node, lab):
    for b in node.boards_json():
        if b['lab'] == lab:
            return b['state']
    return None


def sanitized(path):
    # ASan's quarantine holds freed memory: RSS says nothing there
    out = subprocess.run(['ldd', path], capture_output=True, text=True).stdout
    return 'libasan' in out


def test(net):
    base = net.base(BASE)
    hostile = net.tools[0]
    rss_limit = RSS_GROWTH_MAX_KIB * (100 if sanitized(net.labmesh) else 1)
    n = net.node('target', base)
    h = net.node('honest', base + 1, seeds=[n])
    n.start()
    h.start()
    wait_for('honest up', lambda: any(p['state'] == 'up'
                                      for p in n.peers()), 5)
    wait_for('honest advert', lambda: board_state(n, 'honest') == 'idle', 5)
    time.sleep(0.5)
    rss0 = n.rss_kib()
    t0 = time.time()
    atk = subprocess.Popen([hostile, 'attack', n.endpoint, n.id, '10000'],
                           stdout=subprocess.PIPE, text=True)
    time.sleep(1.0)
    check(atk.poll() is None, 'the attack is still going on')
    h.cmd('debug', 'set-board', 'honest-board', 'maintenance', '3')
    _, dt = wait_for('new advert during the attack',
                     lambda: board_state(n, 'honest') == 'maintenance', 2)
    print('honest advert arrived %.3f s after it was published, during'
          ' the attack' % dt)
    out, _ = atk.communicate(timeout=240)
    print(out.strip())
    check(atk.returncode == 0, 'attack program ran')
    print('attack took %.1f s' % (time.time() - t0))
    check(n.alive(), 'target still running')
    st = n.status()
    print('target counted %d bad messages, %d bans, %d refused connections'
          % (st['bad_messages'], st['bans'], st['refused_connections']))
    rss1 = n.rss_kib()
    print('target RSS: %d KiB before, %d KiB after' % (rss0, rss1))
    check(rss1 - rss0 < rss_limit, 'RSS bounded')
    # a second attack: memory must not keep growing with the traffic
    atk = subprocess.run([hostile, 'attack', n.endpoint, n.id, '10000'],
                         stdout=subprocess.PIPE, text=True, timeout=240)
    check(atk.returncode == 0 and n.alive(), 'second attack, target up')
    rss2 = n.rss_kib()
    print('target RSS right after a second attack: %d KiB' % rss2)
    check(rss2 - rss0 < rss_limit, 'RSS bounded after a second attack')
    # buffers freed after a burst go back to the system at the node's next
    # trim (every 5 s): a leak would keep RSS up, a burst does not
    _, dt = wait_for('RSS back near its level before the attacks',
                     lambda: n.rss_kib() - rss0 < rss_limit // 4, 15)
    print('target RSS %d KiB, %.1f s after the second attack'
          % (n.rss_kib(), dt))
    h.cmd('debug', 'set-board', 'honest-board', 'idle', '0')
    _, dt = wait_for('new advert after the attack',
                     lambda: board_state(n, 'honest') == 'idle', 2)
    print('next advert arrived %.3f s after it was published' % dt)
    log = n.logtext()
    check('bad message' in log and 'banned' in log,
          'garbage counted and peers banned')
    check(any(p['id'] == h.id and p['state'] == 'up' for p in n.peers()),
          'honest peer still up')
    check(all(p['lab'] != 'hostile' for p in h.peers()),
          'made-up peers were not passed on to the honest node')
    # max_peers 8 for the peers it dials; nodes that dial it are admitted
    # up to twice that (NODE_INBOUND_FACTOR), so the overlay stays whole
    check(len(n.peers()) <= 16, 'peer table within 2 x max_peers')


lmtest.main(test)
