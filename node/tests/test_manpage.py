#!/usr/bin/env python3
"""labmesh(1) against the program: the man page has one subsection
".SS labmesh NAME" for every command `labmesh --help` lists (and no
other), and each subsection names exactly the options `labmesh NAME
--help` shows. Any difference fails, with both sides printed.

usage: test_manpage.py LABMESH MANPAGE"""
import re
import subprocess
import sys

OPT = re.compile(r'--[a-z][a-z0-9-]*')


def help_text(labmesh, *args):
    p = subprocess.run([labmesh] + list(args) + ['--help'],
                       capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        raise SystemExit('FAIL: labmesh %s --help: exit %d: %s' % (
            ' '.join(args), p.returncode, p.stderr.strip()))
    return p.stdout


def commands(labmesh):
    out, names, inside = help_text(labmesh), [], False
    for line in out.splitlines():
        if line.startswith('Commands:'):
            inside = True
        elif inside and not line.strip():
            break
        elif inside:
            names.append(line.split()[0])
    return names


def man_sections(path):
    """{command: source text of its subsection}, with troff escapes for
    fonts and hyphens undone."""
    text = open(path, encoding='utf-8').read()
    text = re.sub(r'\\f[BIRP]', '', text)
    text = text.replace('\\-', '-').replace('\\e', '\\')
    secs, cur = {}, None
    for line in text.splitlines():
        if line.startswith('.\\"'):
            continue
        if line.startswith('.SS ') or line.startswith('.SH '):
            m = re.match(r'\.SS "?labmesh ([a-z-]+)"?$', line)
            cur = m.group(1) if m else None
            if cur:
                secs[cur] = ''
            continue
        if cur:
            secs[cur] += line + '\n'
    return secs


def main():
    labmesh, man = sys.argv[1], sys.argv[2]
    cmds = commands(labmesh)
    secs = man_sections(man)
    bad = []
    if not cmds:
        bad.append('labmesh --help lists no commands')
    for c in cmds:
        if c not in secs:
            bad.append('%s: no ".SS labmesh %s" in the man page' % (c, c))
    for c in secs:
        if c not in cmds:
            bad.append('%s: in the man page, not in labmesh --help' % c)
    for c in cmds:
        if c not in secs:
            continue
        shown = set(OPT.findall(help_text(labmesh, c)))
        documented = set(OPT.findall(secs[c]))
        if shown != documented:
            bad.append('%s: --help only: %s; man page only: %s' % (
                c, ' '.join(sorted(shown - documented)) or '-',
                ' '.join(sorted(documented - shown)) or '-'))
    for b in bad:
        print('FAIL: ' + b)
    if bad:
        return 1
    print('ok: %d commands, their options alike in --help and %s' % (
        len(cmds), man))
    return 0


if __name__ == '__main__':
    sys.exit(main())
