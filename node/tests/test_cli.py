#!/usr/bin/env python3
"""The labmesh command: --help everywhere, --version, exit statuses with a
one-line reason, keygen (default path, --out, --force, 0600), id (made on
first use, stable), a too-open node key refused, boards without a node,
a clean stop on SIGTERM."""
import json
import os
import signal
import socket
import stat
import subprocess
import lmtest
from lmtest import check

CMDS = ['keygen', 'id', 'node', 'peers', 'boards', 'debug', 'suites',
        'run', 'import']


def run(net, *args, env=None):
    return subprocess.run([net.labmesh] + list(args), capture_output=True,
                          text=True, timeout=30, env=env)


def test(net):
    p = run(net, '--help')
    check(p.returncode == 0, '--help')
    for c in CMDS:
        check(c in p.stdout, 'top help lists %s' % c)
        q = run(net, c, '--help')
        check(q.returncode == 0 and 'usage: labmesh ' + c in q.stdout,
              '%s --help' % c)
        lines = q.stdout.splitlines()
        check(len(lines) > 1 and lines[1].strip() != '',
              '%s --help: no blank line right after the usage line' % c)
    # debug SUB --help: the debug usage, and not a word to a node. A
    # listener stands in for the node's control socket and must see no
    # connection.
    home = os.path.join(net.dir, 'dbg')
    os.makedirs(home)
    ctl = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ctl.bind(os.path.join(home, 'ctl'))
    ctl.listen(4)
    ctl.setblocking(False)
    for args in (['status', '--help'], ['feeds', '-h'],
                 ['append-records', '5', '--help'], ['-h', 'stop']):
        q = run(net, '--home', home, 'debug', *args)
        check(q.returncode == 0 and 'usage: labmesh debug' in q.stdout
              and not q.stderr, 'debug %s: usage, exit 0' % ' '.join(args))
        try:
            conn, _ = ctl.accept()
            conn.close()
            check(False, 'debug %s contacted the node' % ' '.join(args))
        except BlockingIOError:
            pass
    ctl.close()
    check(run(net, '--version').stdout.startswith('labmesh '), '--version')
    q = run(net, 'frobnicate')
    check(q.returncode == 2 and len(q.stderr.strip().splitlines()) == 1,
          'unknown command: exit 2, one line')
    q = run(net, 'peers', '--bogus')
    check(q.returncode == 2, 'bad option: exit 2')
    home = os.path.join(net.dir, 'h')
    q = run(net, '--home', home, 'peers')
    check(q.returncode == 1 and 'no node is running' in q.stderr,
          'peers without a node: exit 1 with a reason')
    q = run(net, '--home', home, '--json', 'boards')
    check(q.returncode == 0 and json.loads(q.stdout) == [],
          'boards without a node or store: []')
    # keygen: default path under XDG_CONFIG_HOME
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(net.dir, 'xdg'))
    q = run(net, '--json', 'keygen', env=env)
    check(q.returncode == 0, 'keygen default: ' + q.stderr)
    k = json.loads(q.stdout)
    path = os.path.join(net.dir, 'xdg', 'labmesh', 'key')
    check(k['path'] == path and len(k['id']) == 64, 'keygen json')
    check(stat.S_IMODE(os.stat(path).st_mode) == 0o600, 'secret key 0600')
    check(os.path.exists(path + '.pub'), 'public key written')
    q = run(net, 'keygen', env=env)
    check(q.returncode == 1 and '--force' in q.stderr, 'no silent overwrite')
    q = run(net, 'keygen', '--force', '--out', path, env=env)
    check(q.returncode == 0 and q.stdout.strip() != k['id'], '--force')
    # id: made on first use, then stable; a too-open key refused
    id1 = run(net, '--home', home, 'id').stdout.strip()
    id2 = run(net, 'id', '--home', home).stdout.strip()
    check(len(id1) == 64 and id1 == id2, 'id stable')
    os.chmod(os.path.join(home, 'node.key'), 0o644)
    q = run(net, '--home', home, 'id')
    check(q.returncode == 1 and 'chmod' in q.stderr, 'too-open key refused: '
          + q.stderr.strip())
    os.chmod(os.path.join(home, 'node.key'), 0o600)
    # a bad config names file and line
    cfg = os.path.join(net.dir, 'bad.yaml')
    with open(cfg, 'w') as f:
        f.write('lab: {name: x}\nnode: {listen: nope}\n')
    q = run(net, '--home', home, 'node', '--config', cfg)
    check(q.returncode == 1 and 'bad.yaml:2' in q.stderr,
          'bad config: ' + q.stderr.strip())
    # a node started with no config serves the default lab; SIGTERM stops it
    port = net.base(17650)
    n = net.node('dflt', port)
    n.config = lambda: None
    proc = subprocess.Popen([net.labmesh, 'node', '--home', n.home,
                             '--listen', 'tcp://127.0.0.1:%d' % port],
                            stderr=subprocess.PIPE, text=True)
    lmtest.wait_for('default node up', lambda: os.path.exists(
        os.path.join(n.home, 'ctl')) and n.status(), 10)
    b = n.boards_json()
    check(len(b) == 1 and b[0]['transport'] == 'local', 'default lab board')
    check(stat.S_IMODE(os.stat(os.path.join(n.home, 'ctl')).st_mode) == 0o600
          , 'ctl mode 0600')
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=10)
    check(proc.returncode == 0 and 'stopping' in err, 'clean stop')
    check(not os.path.exists(os.path.join(n.home, 'ctl')), 'ctl removed')


lmtest.main(test)
