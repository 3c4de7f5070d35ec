#!/usr/bin/env python3
"""The executor never reads the node's key: while a node runs two jobs
on a local board, an inotify watch (IN_OPEN, read through ctypes) on
HOME/node.key counts every open of that file after the node's start-up;
there must be none. The executors sign their run records with a one-off
key of their job, which the node checks before it publishes the run: the
jobs still end done with a run record each. A last open of node.key by
the test itself shows the watch sees opens (so a count of 0 means none
happened, not a dead watch)."""
import ctypes
import ctypes.util
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(__file__))
from jobstest import Net, check, local_board, main, wait_for  # noqa: E402

IN_OPEN = 0x20
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC


class Watch:
    """IN_OPEN events of one file."""

    def __init__(self, path):
        libc = ctypes.CDLL(ctypes.util.find_library('c'), use_errno=True)
        self.fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        check(self.fd >= 0, 'inotify_init1: errno %d' % ctypes.get_errno())
        wd = libc.inotify_add_watch(self.fd, path.encode(), IN_OPEN)
        check(wd >= 0, 'inotify_add_watch %s: errno %d' %
              (path, ctypes.get_errno()))

    def opens(self):
        n = 0
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return n
            off = 0
            while off + 16 <= len(data):
                _, mask, _, name_len = struct.unpack_from('iIII', data, off)
                n += bool(mask & IN_OPEN)
                off += 16 + name_len

    def close(self):
        os.close(self.fd)


def boards(n, req):
    st = n.req_status(req) or {}
    return [b for lab in st.get('labs', []) for b in lab['boards']]


def test(net):
    watch = None
    try:
        n = net.node('lab-key', 17231, [local_board('host-k')])
        n.start()
        wait_for('the advert', lambda: n.cli('--json', 'boards',
                                             check_rc=False).returncode == 0)
        key = os.path.join(n.home, 'node.key')
        watch = Watch(key)
        reqs = [n.cli('submit', '--suite', 'smoke').stdout.split()[1]
                for _ in range(2)]
        for r in reqs:
            bs, _ = wait_for('%s final' % r[:12], lambda: (
                lambda bs: bs if bs and all(b['final'] for b in bs)
                else None)(boards(n, r)), 120, 0.1)
            check(bs[0]['state'] == 'done', 'job %s: %s' % (r[:12], bs))
        opened = watch.opens()
        check(opened == 0, 'HOME/node.key opened %d time(s) after the'
              ' node started, while its jobs ran' % opened)
        with open(key, 'rb'):
            pass
        seen, _ = wait_for('the watch to see an open', watch.opens, 5, 0.05)
        check(seen >= 1, 'the inotify watch saw no open')
        print('2 jobs done, node.key opened 0 times while they ran (the'
              ' watch saw the test\'s own open)')
        return 0
    finally:
        if watch:
            watch.close()


if __name__ == '__main__':
    main(test, Net)
