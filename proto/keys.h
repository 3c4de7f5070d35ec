/*
 * keys: Ed25519 identities. A node's or submitter's public key is its id
 * (64 hex; 12 hex for display). The same key, converted to Curve25519, is
 * the node's ZeroMQ CURVE key pair (Z85 text for zmq/czmq).
 *
 * Files (see proto/README.md for the exact format):
 *   KEYFILE      secret, mode 0600: "labmesh-ed25519-secret-v1\n" then
 *                the 128-hex libsodium secret key (seed || public) "\n"
 *   KEYFILE.pub  public: "labmesh-ed25519-public-v1\n" then 64 hex "\n"
 * Loading a secret file that group or others can read is refused.
 *
 * Secret material lives in key_pair_t; wipe it with key_wipe() (the key
 * functions wipe their own temporaries with sodium_memzero).
 */
#ifndef LABMESH_PROTO_KEYS_H
#define LABMESH_PROTO_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/caps.h"

#define KEY_SECRET_MAGIC "labmesh-ed25519-secret-v1"
#define KEY_PUBLIC_MAGIC "labmesh-ed25519-public-v1"
#define KEY_HEX_LEN 64   /* hex id, without NUL */
#define KEY_SHORT_LEN 12 /* short hex id, without NUL */
#define KEY_Z85_LEN 40   /* Z85 of a 32-byte key, without NUL */

typedef struct key_pair {
	uint8_t pk[32]; /* Ed25519 public key: the id */
	uint8_t sk[64]; /* libsodium secret key: seed || pk */
} key_pair_t;

/* A fresh random key pair. Returns 0 (or -EIO if libsodium fails). */
int key_generate(key_pair_t *ret_kp);
/* The key pair of a 32-byte seed (deterministic: tests, vectors). */
int key_from_seed(const uint8_t seed[32], key_pair_t *ret_kp);
/* sodium_memzero the whole pair. */
void key_wipe(key_pair_t *kp);

/*
 * Write kp to path (mode 0600, O_CREAT|O_EXCL: -EEXIST unless overwrite)
 * and its public half to path.pub (mode 0644). On failure returns
 * -errno and writes a one-line reason into err (errsz bytes; err may be
 * NULL).
 */
int key_save(const key_pair_t *kp, const char *path, bool overwrite,
	     char *err, size_t errsz);
/*
 * Load a secret key file. Refuses (PROTO_E_KEYPERM) a file readable or
 * writable by group/others, PROTO_E_KEYFORMAT for bad contents (including
 * a public key that does not match the seed), -errno for I/O. On failure
 * err holds a one-line reason such as
 *   "KEYFILE: permissions 0644 are too open; run chmod 600 KEYFILE".
 */
int key_load(const char *path, key_pair_t *ret_kp, char *err, size_t errsz);
/* Load a .pub file (any mode). Same error convention. */
int key_load_public(const char *path, uint8_t ret_pk[32], char *err,
		    size_t errsz);

/* 64 lowercase hex + NUL. */
void key_hex(const uint8_t pk[32], char out[KEY_HEX_LEN + 1]);
/* The first 12 hex digits + NUL: the display form. */
void key_short(const uint8_t pk[32], char out[KEY_SHORT_LEN + 1]);
/* Parse 64 hex digits (either case, nothing else); 0 or -EINVAL. */
int key_parse_hex(const char *s, uint8_t ret_pk[32]);

/*
 * The CURVE (Curve25519) key pair of kp in Z85 (40 chars + NUL each), as
 * zmq_curve_* / zcert want them. Returns 0 or -EINVAL (a key libsodium
 * cannot convert). Wipe ret_secret after use.
 */
int key_curve(const key_pair_t *kp, char ret_public[KEY_Z85_LEN + 1],
	      char ret_secret[KEY_Z85_LEN + 1]);
/* The CURVE public key of an Ed25519 id, in Z85 (a peer from config). */
int key_curve_public(const uint8_t pk[32], char ret_public[KEY_Z85_LEN + 1]);
/* The CURVE public key of an Ed25519 id, raw 32 bytes. */
int key_curve_public_raw(const uint8_t pk[32], uint8_t ret_curve[32]);

#endif
