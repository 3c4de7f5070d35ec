"""dashlib: what the dashboard tests share: a two-node network on loopback
where node A is filled beforehand by dash-tool (the synthetic labs plus the
hostile lab-x) and node B learns every run record by replication and
serves the dashboard with `labmesh node --http`."""
import hashlib
import http.client
import json
import os
import subprocess
import time

import lmtest
from lmtest import check, wait_for


def commit(i):
    return hashlib.blake2b(b"commit-%d" % i, digest_size=32).hexdigest()[:40]


class DashNet:
    def __init__(self, net, zmq_port, http_port):
        self.net = net
        self.http_port = http_port
        tool = net.tools[0]
        self.a = net.node('dasha', zmq_port, max_peers=2)
        self.b = net.node('dashb', zmq_port + 1, seeds=[self.a], max_peers=2)
        p = subprocess.run([tool, self.a.home], check=True,
                           capture_output=True, text=True)
        self.seed = json.loads(p.stdout)
        self.a.start()
        feeds = {k: v['seq'] for k, v in self.a.feeds().items()
                 if k != self.a.id}
        check(len(feeds) == 3, 'A holds three lab feeds: %r' % feeds)
        self.start_b()

        def has_all():
            got = self.b.feeds()
            return all(got.get(k, {}).get('seq') == s
                       for k, s in feeds.items())
        wait_for('B has every run record', has_all, 60)

    def start_b(self):
        """Start B with --http."""
        self.b.start(args=['--http', '127.0.0.1:%d' % self.http_port])
        wait_for('B serves HTTP', lambda: self.get('/')[0] == 200, 10)

    def get(self, path, method='GET', body=None, headers=None):
        """(status, headers dict with lowercase names, body bytes)"""
        c = http.client.HTTPConnection('127.0.0.1', self.http_port,
                                       timeout=30)
        try:
            c.request(method, path, body=body, headers=headers or {})
            r = c.getresponse()
            data = r.read()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, data
        except (ConnectionError, OSError) as e:
            raise lmtest.Fail('%s %s: %s' % (method, path[:80], e))
        finally:
            c.close()

    def cli(self, *args, rc=0):
        """B's `labmesh ARGS`: its output (bytes); it must exit rc."""
        p = self.b.cli(*args, check_rc=False, timeout=60, text=False)
        check(p.returncode == rc, 'labmesh %s: exit %d %s' %
              (' '.join(args), p.returncode, p.stderr.decode()[:300]))
        return p.stdout


JOBS_SCHEMA = """CREATE TABLE IF NOT EXISTS jobs(id INTEGER PRIMARY KEY,
 request_id BLOB NOT NULL, board TEXT NOT NULL, submitter BLOB,
 state INT NOT NULL, priority INT NOT NULL, attempts INT DEFAULT 0,
 created_ms INT, updated_ms INT, expires_ms INT, pid INT DEFAULT 0,
 text TEXT DEFAULT '', UNIQUE(request_id, board))"""


def make_jobs(home, request_hex):
    """A jobs.db as the jobs code keeps it: two boards of one request,
    one running (state 5) and one queued (state 1)."""
    import sqlite3
    db = sqlite3.connect(os.path.join(home, 'jobs.db'))
    db.execute(JOBS_SCHEMA)
    rid = bytes.fromhex(request_hex)
    db.execute("INSERT INTO jobs(request_id, board, state, priority,"
               " created_ms, updated_ms, text) VALUES(?, 'dashb-board', 5,"
               " 10, 1000, 2000, 'suite 1 of 2: <b>kselftest</b>')", (rid,))
    db.execute("INSERT INTO jobs(request_id, board, state, priority,"
               " created_ms, updated_ms) VALUES(?, 'other-board', 1, 10,"
               " 1000, 1000)", (rid,))
    db.commit()
    db.close()
