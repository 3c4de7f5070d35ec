/*
 * error: descriptions of the PROTO_E_* codes. See error.h.
 */
#include "proto/error.h"

#include <string.h>

static const char *const s_msgs[] = {
	[1] = "input ends inside a value",
	[2] = "trailing bytes after the value",
	[3] = "integer or length not in its shortest encoding",
	[4] = "wrong msgpack type for the field",
	[5] = "ext types are not allowed",
	[6] = "float32 is not allowed (float64 only)",
	[7] = "float is NaN or infinite",
	[8] = "string is not valid UTF-8",
	[9] = "string contains a NUL byte",
	[10] = "map keys are not in bytewise order",
	[11] = "map key repeated",
	[12] = "nesting too deep",
	[13] = "container count exceeds the bytes that remain",
	[14] = "wrong number of fields",
	[15] = "list longer than its cap",
	[16] = "object, string or bin over its size cap",
	[17] = "bin of the wrong length",
	[18] = "unknown format version",
	[19] = "unknown kind or type",
	[20] = "value out of range",
	[21] = "bad syntax (name, path, hex or endpoint)",
	[22] = "prev_id must be nil exactly when seq is 1",
	[23] = "does not re-encode to the same bytes",
	[24] = "bad signature",
	[25] = "key file permissions too open",
	[26] = "malformed key file",
	[27] = "required field is empty",
	[28] = "time out of range (after the year 2100)",
	[29] = "request lives longer than allowed (expires - created)",
};

const char *proto_strerror(int err)
{
	int i = -1000 - err;

	if (err == 0)
		return "success";
	if (i >= 1 && i < (int)(sizeof(s_msgs) / sizeof(s_msgs[0])) &&
	    s_msgs[i])
		return s_msgs[i];
	if (proto_is_errno(err))
		return strerror(-err);
	return "unknown error";
}
