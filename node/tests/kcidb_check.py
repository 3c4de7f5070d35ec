#!/usr/bin/env python3
"""KCIDB I/O v5.3 validation: the upstream schema with format checking.

kcidb-v5.3.schema.json beside this file is the KCIDB I/O library's own v5.3
schema exported as JSON, unedited. Format checking is on for `date-time`
(RFC 3339) and `uri` (RFC 3986): python3-jsonschema checks formats only
through optional libraries (rfc3339-validator, rfc3987), which a machine
may lack, so both checkers are defined here and always used.

As a program: kcidb_check.py FILE... prints each document's first errors
and exits 1 when one does not validate.
"""
import datetime
import json
import os
import re
import sys

import jsonschema

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "kcidb-v5.3.schema.json")

_DATE_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})"
                        r"(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
# RFC 3986 section 3: scheme ":" hier-part [ "?" query ] [ "#" fragment ],
# each part of unreserved, sub-delims, ":" "@" "/" "?" and %XX only.
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:"
                  r"(?:[A-Za-z0-9._~!$&'()*+,;=:@/?#\[\]-]|%[0-9A-Fa-f]{2})*$")


def _date_time(s):
    if not isinstance(s, str):
        return True
    m = _DATE_TIME.match(s)
    if not m:
        return False
    frac = (m.group(3) or ".0")[1:7].ljust(6, "0")
    zone = "+00:00" if m.group(4) in ("Z", "z") else m.group(4)
    try:
        datetime.datetime.fromisoformat("%sT%s.%s%s" % (
            m.group(1), m.group(2), frac, zone))
    except ValueError:
        return False
    return True


def _uri(s):
    if not isinstance(s, str):
        return True
    if not _URI.match(s):
        return False
    # an authority, when there is one, is not empty
    rest = s.split(":", 1)[1]
    return not rest.startswith("//") or len(rest) > 2 and rest[2] != "/"


def format_checker():
    fc = jsonschema.FormatChecker()
    fc.checks("date-time")(_date_time)
    fc.checks("uri")(_uri)
    return fc


def validator():
    """A validator of the upstream v5.3 schema, format checking on."""
    with open(SCHEMA) as f:
        schema = json.load(f)
    cls = getattr(jsonschema, "Draft202012Validator",
                  jsonschema.Draft7Validator)
    cls.check_schema(schema)
    return cls(schema, format_checker=format_checker())


def errors(doc, v=None):
    """The schema errors of doc, in path order."""
    v = v or validator()
    return sorted(v.iter_errors(doc), key=lambda e: list(map(str, e.path)))


def main(paths):
    v = validator()
    bad = 0
    for p in paths:
        with open(p) as f:
            doc = json.load(f)
        errs = errors(doc, v)
        for e in errs[:5]:
            print("%s: %s: %s" % (p, "/".join(map(str, e.path)), e.message))
        if errs:
            bad += 1
            print("%s: %d errors against the KCIDB v5.3 schema" %
                  (p, len(errs)))
        else:
            print("%s: valid against the KCIDB v5.3 schema (formats"
                  " checked)" % p)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
