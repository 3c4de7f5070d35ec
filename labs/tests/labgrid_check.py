#!/usr/bin/python3
"""Load labgrid environment files with labgrid's own Environment and
build every target: the fixtures are what labgrid reads. A target whose
RemotePlace needs a coordinator counts as loaded once labgrid tries to
reach it. Exit 77 when labgrid is not installed.

usage: labgrid_check.py ENV.yaml..."""
import sys
import warnings

try:
    from labgrid import Environment
except ImportError:
    print('labgrid is not installed')
    sys.exit(77)

warnings.simplefilter('ignore')
bad = 0
for path in sys.argv[1:]:
    env = Environment(path)
    for name in env.config.get_targets():
        try:
            t = env.get_target(name)
            what = ' '.join(sorted(type(x).__name__ for x in t.resources + t.drivers))
        except ConnectionRefusedError:
            what = 'RemotePlace (coordinator not running)'
        except Exception as e:  # noqa: BLE001 - any refusal is a failure
            print('not ok - %s: target %s: %s: %s' % (path, name, type(e).__name__, e))
            bad += 1
            continue
        print('ok - %s: target %s loads in labgrid: %s' % (path, name, what))
sys.exit(1 if bad else 0)
