/*
 * lease: a submitter's hold on one board of one lab, and what the holder
 * does with it. Two signed objects:
 *
 * Lease operation (by the submitter's key), an array of 10:
 *   [version, submitter, op, lab, board, seq, value, arg, data, sig]
 *   version    uint, LEASE_VERSION
 *   submitter  bin 32, Ed25519 public key
 *   op         uint, enum lease_op
 *   lab, board name syntax
 *   seq        uint >= 1: strictly increasing per submitter and board
 *              (labmesh uses wall-clock microseconds); the lab refuses
 *              one not above the last it took
 *   value      uint: take/renew the length in ms (1..LEASE_MAX_MS);
 *              exec its timeout in s; put the offset of data; put-end
 *              the file's size; get the offset to read from;
 *              power enum lease_power; console how long the lab
 *              waits for the console to answer, in ms (0: its own
 *              default); others 0
 *   arg        text <= PROTO_MAX_TEXT: exec the command, put/get the
 *              path on the board; others ""
 *   data       bin <= LEASE_MAX_DATA: put the bytes at value; console
 *              the keys typed; others empty
 *   sig        bin 64 over LEASE_SIG_PREFIX (NUL included) || the bytes
 *              before sig
 * id = BLAKE2b-256 of the whole encoding.
 *
 * Lease reply (by the lab's node key), an array of 8:
 *   [version, node, op_id, index, final, status, data, sig]
 *   node       bin 32: the lab's node id (the signer)
 *   op_id      bin 32: the id of the operation answered
 *   index      uint: 0, 1, 2... replies to one operation, in order
 *   final      bool: the last reply to op_id
 *   status     int: exec the exit status; else 0 or a negative errno,
 *              data then the reason (text)
 *   data       bin <= LEASE_MAX_DATA: output, file bytes, console output
 *   sig        bin 64 over LEASE_REPLY_SIG_PREFIX || the bytes before sig
 */
#ifndef LABMESH_PROTO_LEASE_H
#define LABMESH_PROTO_LEASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/caps.h"
#include "proto/keys.h"
#include "proto/types.h"

#define LEASE_VERSION 1
#define LEASE_SIG_PREFIX "labmesh-lease-v1"
#define LEASE_REPLY_SIG_PREFIX "labmesh-lease-reply-v1"

enum lease_op {
	LEASE_TAKE = 1,
	LEASE_RENEW,
	LEASE_RELEASE,
	LEASE_EXEC,
	LEASE_PUT,
	LEASE_PUT_END,
	LEASE_GET,
	LEASE_POWER,
	LEASE_CONSOLE,
};
#define LEASE_OP_MAX LEASE_CONSOLE

enum lease_power { LEASE_POWER_ON = 0, LEASE_POWER_OFF, LEASE_POWER_CYCLE };

/* "take", "renew"...; "?" out of range. Borrowed. */
const char *lease_op_name(int op);

typedef struct {
	uint32_t version;
	uint8_t submitter[32];
	enum lease_op op;
	char lab[PROTO_MAX_NAME + 1];
	char board[PROTO_MAX_NAME + 1];
	uint64_t seq;
	uint64_t value;
	const char *arg; /* decoded: NUL-terminated copy in argbuf */
	const uint8_t *data; /* decoded: borrowed from the input bytes */
	size_t data_len;
	uint8_t sig[64]; /* decoded only */
	uint8_t id[32];	 /* decoded only */
	char argbuf[PROTO_MAX_TEXT + 1];
} lease_t;

typedef struct {
	uint32_t version;
	uint8_t node[32];
	uint8_t op_id[32];
	uint64_t index;
	bool final;
	int64_t status;
	const uint8_t *data; /* decoded: borrowed from the input bytes */
	size_t data_len;
	uint8_t sig[64]; /* decoded only */
} lease_reply_t;

/* Encode and sign l (submitter = key->pk; version, sig, id ignored).
 * 0 with bytes in *ret_data (caller frees), *ret_len and ret_id, or the
 * PROTO_E_* code lease_decode would refuse them with. */
int lease_sign(const lease_t *l, const key_pair_t *key, uint8_t **ret_data,
	       size_t *ret_len, uint8_t ret_id[32]);
/* Strict decode + re-encode check + signature + id, at most
 * PROTO_MAX_LEASE bytes; *ret borrows data (data). 0 or PROTO_E_*. */
int lease_decode(const void *data, size_t len, lease_t *ret);
/* The bytes of a decoded lease operation again. */
int lease_encode(const lease_t *l, uint8_t **ret_data, size_t *ret_len);

/* The same three for replies (node = key->pk). */
int lease_reply_sign(const lease_reply_t *r, const key_pair_t *key,
		     uint8_t **ret_data, size_t *ret_len);
int lease_reply_decode(const void *data, size_t len, lease_reply_t *ret);
int lease_reply_encode(const lease_reply_t *r, uint8_t **ret_data,
		       size_t *ret_len);

#endif
