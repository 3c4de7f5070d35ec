#!/usr/bin/env python3
"""The node's sub-modules keep their one-way order (node/README.md).

usage: test_layers.py SOURCE_ROOT BUILD_ROOT

Three checks, each able to fail:
- includes: no file of a sub-module includes the header of a higher one
  (so no include loop can span two sub-modules);
- calls: no sub-module's library uses a symbol that a higher sub-module's
  library defines (read with nm from the built static libraries, so a
  call through a prototype written by hand is caught too);
- one owner: no global symbol is defined by two of the project's static
  libraries (the linker takes the first it meets from an archive and says
  nothing, so one module would call another's function of the same name).
Prints TAP-like lines and "N failed"; exits 1 when anything failed.
"""
import os
import re
import subprocess
import sys

# lowest first; each may call only those before it
ORDER = ["store", "results", "jobs", "net", "web", "cli"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"node/([a-z]+)/[A-Za-z0-9_]+\.h"', re.M)

fails = 0


def bad(msg):
    global fails
    fails += 1
    print("not ok -", msg)


def check_includes(src):
    n = 0
    for rank, mod in enumerate(ORDER):
        d = os.path.join(src, "node", mod)
        for f in sorted(os.listdir(d)):
            if not f.endswith((".c", ".h")):
                continue
            text = open(os.path.join(d, f), errors="replace").read()
            for other in INCLUDE.findall(text):
                n += 1
                if other not in ORDER:
                    bad("node/%s/%s includes a header of node/%s, which is no sub-module"
                        % (mod, f, other))
                elif ORDER.index(other) > rank:
                    bad("node/%s/%s includes node/%s, a higher sub-module" % (mod, f, other))
    print("# %d includes of node sub-module headers read" % n)


def symbols(lib):
    out = subprocess.run(["nm", "-g", "--defined-only", lib], capture_output=True,
                         text=True, check=True).stdout
    defined = {l.split()[-1] for l in out.splitlines() if len(l.split()) == 3}
    out = subprocess.run(["nm", "-g", "--undefined-only", lib], capture_output=True,
                         text=True, check=True).stdout
    undefined = {l.split()[-1] for l in out.splitlines() if l.strip()}
    return defined, undefined


def check_calls(build):
    libs = {}
    for mod in ORDER:
        lib = os.path.join(build, "node", mod, "liblabmesh-node-%s.a" % mod)
        if not os.path.exists(lib):
            bad("no library %s (build first)" % lib)
            return
        libs[mod] = symbols(lib)
    owner = {}
    for mod in ORDER:
        for s in libs[mod][0]:
            owner.setdefault(s, mod)
    for rank, mod in enumerate(ORDER):
        up = {}
        for s in sorted(libs[mod][1]):
            o = owner.get(s)
            if o and ORDER.index(o) > rank:
                up.setdefault(o, []).append(s)
        for o, syms in sorted(up.items()):
            bad("node/%s calls node/%s, a higher sub-module: %s" % (mod, o, ", ".join(syms)))
        if not up:
            print("ok - node/%s calls nothing above it (%d symbols defined, %d used from outside)"
                  % (mod, len(libs[mod][0]), len(libs[mod][1])))


# every static library of the project's own code
LIBS = ["proto/liblabmesh-proto.a", "labs/liblabmesh-labs.a",
        "transports/liblabmesh-transports.a", "suites/liblabmesh-suites.a"] + \
    ["node/%s/liblabmesh-node-%s.a" % (m, m) for m in ORDER]


def check_owners(build):
    seen = {}
    for lib in LIBS:
        path = os.path.join(build, lib)
        if not os.path.exists(path):
            bad("no library %s (build first)" % path)
            return
        for s in symbols(path)[0]:
            seen.setdefault(s, []).append(lib)
    twice = {s: libs for s, libs in seen.items() if len(libs) > 1}
    for s, libs in sorted(twice.items()):
        bad("%s is defined in %s" % (s, " and ".join(libs)))
    if not twice:
        print("ok - each of %d global symbols has one library of %d"
              % (len(seen), len(LIBS)))


def main():
    src, build = sys.argv[1], sys.argv[2]
    check_includes(src)
    check_calls(build)
    check_owners(build)
    print("%d failed" % fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
