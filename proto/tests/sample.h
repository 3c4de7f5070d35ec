/*
 * sample: deterministic sample objects (fixed seed keys, fixed times and
 * nonces) shared by the unit tests, the golden vectors, the fuzz seed
 * corpus generator and the benchmark. Everything built here must sign and
 * decode; the golden vectors pin their exact bytes.
 */
#ifndef LABMESH_PROTO_TESTS_SAMPLE_H
#define LABMESH_PROTO_TESTS_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "proto/desc.h"
#include "proto/keys.h"
#include "proto/lease.h"
#include "proto/msg.h"
#include "proto/record.h"
#include "proto/request.h"

/* Key pair n (0: the lab node, 1: a submitter, 2: another node). */
void sample_key(int n, key_pair_t *ret_kp);

/* Fill rec with a sample body of kind (run: n_cases cases per suite). */
void sample_record(enum record_kind kind, uint64_t seq, size_t n_cases,
		   record_t *rec);
/* Fill req with a sample request with the given kernel form. */
void sample_request(enum request_kernel_type type, request_t *req);
void sample_desc(node_desc_t *d);
/*
 * Fill m with a sample message of type; nested objects come from the
 * other samples, signed, in buffers kept until sample_free().
 */
void sample_msg(enum msg_type type, msg_t *m);
/* Signed encodings (caller frees *ret_data). Abort on failure. */
void sample_record_bytes(enum record_kind kind, uint64_t seq, size_t n_cases,
			 uint8_t **ret_data, size_t *ret_len);
/* The sample run, its second suite a SKIP with a suite-level reason. */
void sample_run_reason_bytes(uint8_t **ret_data, size_t *ret_len);
/* The sample accept, with two boards refused. */
void sample_accept_refused_bytes(uint8_t **ret_data, size_t *ret_len);
/* A signed lease operation (exec: a command and some data) and a signed
 * reply to it; the caller frees. */
void sample_lease_bytes(enum lease_op op, uint8_t **ret_data, size_t *ret_len);
void sample_reply_bytes(uint8_t **ret_data, size_t *ret_len);
void sample_request_bytes(enum request_kernel_type type, uint8_t **ret_data,
			  size_t *ret_len);
void sample_free(void);

#endif
