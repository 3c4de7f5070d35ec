/*
 * contract: the behaviour every transport promises, checked on a live
 * transport. Runs on local, ssh, a serial pty and the QEMU board alike:
 * exact exit codes (0, 1, 3, 127, 255), output without a trailing newline,
 * a 100 KB line, a 1 MiB random binary file put and got back identical
 * (mode kept), a timed-out `sleep 1000` killed with the session still
 * usable, stdin not inherited, stderr kept apart where the transport can,
 * output streamed as it arrives, and the output cap with its marker.
 */
#ifndef LABMESH_TRANSPORTS_TESTS_CONTRACT_H
#define LABMESH_TRANSPORTS_TESTS_CONTRACT_H

#include "transports/transport.h"

/* Run every check on t, printing "label: check: ok|FAIL ..." lines to
 * stderr. Returns the number of failed checks (0: the contract holds). */
int contract_run(transport_t *t, const char *label);

/* For targets on this host (ssh to loopback, stand-ins): how many live
 * processes have exactly this command line (argv joined by spaces). */
int contract_count_procs(const char *cmdline);

#endif
