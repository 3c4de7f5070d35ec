/*
 * error: the proto library's error codes. Every decoder failure has its own
 * negative code so tests (and logs) can say exactly why bytes were refused.
 * The codes sit below -1000 so they never collide with -errno values, which
 * proto functions also return (-ENOMEM never: allocation aborts; -EIO,
 * -EACCES, -EEXIST... from key file I/O).
 */
#ifndef LABMESH_PROTO_ERROR_H
#define LABMESH_PROTO_ERROR_H

#include <stdbool.h>

enum proto_error {
	PROTO_E_TRUNCATED = -1001,  /* input ends inside a value */
	PROTO_E_TRAILING = -1002,   /* bytes left after the value */
	PROTO_E_NONMINIMAL = -1003, /* integer or length not in shortest form */
	PROTO_E_TYPE = -1004,	    /* wrong msgpack type for the field */
	PROTO_E_EXT = -1005,	    /* ext types are never allowed */
	PROTO_E_FLOAT = -1006,	    /* float32 (only float64 is allowed) */
	PROTO_E_NAN = -1007,	    /* float is NaN or infinite */
	PROTO_E_UTF8 = -1008,	    /* str is not valid UTF-8 */
	PROTO_E_NUL = -1009,	    /* str contains a NUL byte */
	PROTO_E_UNSORTED = -1010,   /* map keys not in bytewise order */
	PROTO_E_DUPKEY = -1011,	    /* map key repeated */
	PROTO_E_DEPTH = -1012,	    /* nesting deeper than PROTO_MAX_DEPTH */
	PROTO_E_COUNT = -1013,	    /* container count exceeds bytes left */
	PROTO_E_ARITY = -1014,	    /* wrong number of fields for the type */
	PROTO_E_TOOMANY = -1015,    /* list longer than its named cap */
	PROTO_E_TOOBIG = -1016,	    /* object, str or bin over its size cap */
	PROTO_E_LENGTH = -1017,	    /* bin of the wrong exact length */
	PROTO_E_VERSION = -1018,    /* unknown format version */
	PROTO_E_KIND = -1019,	    /* unknown record kind / message type */
	PROTO_E_RANGE = -1020,	    /* value out of range (enum, seq...) */
	PROTO_E_SYNTAX = -1021,	    /* name, path, hex or endpoint syntax */
	PROTO_E_PREV = -1022,	    /* prev_id must be nil iff seq is 1 */
	PROTO_E_NONCANONICAL = -1023, /* does not re-encode to the same bytes */
	PROTO_E_SIG = -1024,	      /* signature does not verify */
	PROTO_E_KEYPERM = -1025,      /* secret key file readable by others */
	PROTO_E_KEYFORMAT = -1026,    /* key file malformed */
	PROTO_E_EMPTY = -1027,	      /* required text or list is empty */
	PROTO_E_TIME = -1028,	      /* a time past PROTO_MAX_TIME_MS */
	PROTO_E_LIFETIME = -1029,     /* request lives longer than allowed */
	PROTO_E_LAST = PROTO_E_LIFETIME, /* the last code, for tests */
};

/*
 * Whether rc is a -errno value (I/O or the system failed) rather than a
 * PROTO_E_* code (the bytes were refused). False for 0 and positive rc.
 */
static inline bool proto_is_errno(int rc)
{
	return rc < 0 && rc > -1000;
}

/*
 * A static description of a PROTO_E_* code, or strerror() of a -errno
 * value. Never NULL; the string is borrowed.
 */
const char *proto_strerror(int err);

#endif
