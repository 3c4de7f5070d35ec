/*
 * sim: the node's replication protocol run by many simulated nodes in
 * one process, on simulated links (latency, loss, churn) in virtual
 * time, to measure what each node sends and receives per day at a given
 * volume of records and requests.
 *
 * A node's store is one number per feed (the highest seq it holds);
 * records are (author, seq, kind) and never bytes. Every message the
 * simulated nodes send is encoded with the node's own encoders (wire.c,
 * proto/msg.c) so its byte count is the real one; record sizes come from
 * real records signed once per kind (sim_wire.c). The replication rules
 * are modelled on node/net/node_repl.c, request flooding on node_flood.c
 * and pings on node_peer.c (sim_repl.c, sim_net.c name the function each
 * rule comes from); the safety net compares range digests
 * (node/net/digest.c).
 */
#ifndef LABMESH_NODE_SIM_SIM_H
#define LABMESH_NODE_SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a node sends, by message kind. vector-repair is a vector sent in
 * answer to a digest; digest is the safety net's range digest. */
enum sim_kind {
	SIM_HELLO = 0,
	SIM_PEERS,
	SIM_REQUEST,
	SIM_REQUEST_IDS,
	SIM_VECTOR,
	SIM_REPAIR,
	SIM_WANT,
	SIM_RECORDS,
	SIM_CREDIT,
	SIM_PING,
	SIM_PONG,
	SIM_DIGEST,
	SIM_KINDS,
};

/* "hello", "vector-repair"...; borrowed. */
const char *sim_kind_name(int kind);

typedef struct {
	uint32_t nodes;
	uint32_t max_peers;  /* dialled; admitted up to twice that */
	double window_s;     /* simulated time measured */
	double drain_s;	     /* then no new records, no churn */
	double runs_per_day; /* run records, network-wide */
	double requests_per_day;
	uint32_t accept_labs;	  /* labs that accept each request */
	bool every_lab_answers;	  /* the others sign a decline too */
	uint32_t events_per_run;  /* event records of the run's job */
	uint32_t adverts_per_run; /* adverts (board busy, idle) */
	bool no_run;		  /* jobs write no run record */
	double job_s;		  /* from the first event to the run */
	double loss;		  /* of replication and request messages */
	double churn;		  /* fraction of nodes offline at a time */
	double offline_s;	  /* mean time offline */
	uint32_t lat_min_ms, lat_max_ms; /* one way, per link */
	uint64_t seed;
	/* sim_run_real: a node is busy for the CPU time its code took
	 * times this (nodes per core, as on a machine they share), and
	 * what comes for it meanwhile waits; 0: never busy */
	double load;
	/* sim_run_real: and for this many virtual ms per message or timer
	 * it handles (a node behind on its reading, the same every run) */
	double busy_ms;
	/* sim_run_real: one lab appends this many records at once, 60 s
	 * into the window (as debug append-records does) */
	uint32_t burst;
	/* sim_run_real: the nodes' liveness window, ms (0: the node's
	 * default) */
	int64_t liveness_ms;
	/* a line on stderr every 30 s of wall time: simulated time, events */
	bool progress;
} sim_params_t;

/* The defaults: KernelCI's volume, 1 % loss and churn. */
void sim_params_default(sim_params_t *p);

typedef struct {
	double mean, p99, max;
} sim_stat_t;

typedef struct {
	/* bytes sent per node per day (the window scaled to a day), by
	 * kind and in all; received in all */
	sim_stat_t sent[SIM_KINDS];
	sim_stat_t sent_total, recv_total;
	uint64_t msgs[SIM_KINDS]; /* messages sent in the window, all nodes */
	uint64_t bytes[SIM_KINDS];
	uint64_t records;      /* records written in the window */
	uint64_t record_bytes; /* their bytes */
	uint64_t deliveries;   /* records stored from peers */
	uint64_t duplicates;   /* records received that were held already */
	uint64_t missing;      /* (node, record) not held after the drain */
	double delivered;      /* fraction of (node, record) held at the end */
	uint32_t requests;
	double flood_p50_ms, flood_p99_ms;	   /* request to each node */
	double flood_all_p50_ms, flood_all_max_ms; /* to every online node */
	double degree_mean;
	uint32_t degree_max;
	uint32_t churned;      /* times a node went offline */
	uint64_t lost;	       /* messages lost on links */
	uint64_t events;       /* simulator events processed */
	size_t record_size[8]; /* by record kind (wire.h's WIRE_KIND_*) */
	/* sim_run_real: bad messages the nodes counted (none in an honest
	 * run), and pulls moved to another peer before their first answer */
	uint64_t garbage;
	uint64_t pulls_preempted;
	/* sim_run_real, the nodes' own counters: copies received from the
	 * peer a pull of their author was in flight to, and from others
	 * (pushes, late answers); pulls started, moved, stalled, and
	 * those that waited for their peer past their first deadline */
	uint64_t dup_pulled, dup_other;
	uint64_t dup_stale, wants_unheld, wants_again, wants_queued;
	uint64_t pulls_started, pulls_taken_over, pulls_stalled, pulls_waited;
	/* of those stalled, after a pong said the peer read the want;
	 * verdicts put off while messages waited; of those stalled, with a
	 * peer that never answered a ping, and out of patience; stops sent, and records
	 * they left unsent; records taken while their pull was in flight
	 * to another peer (pushed by a relay) */
	uint64_t pulls_stalled_read, pulls_judged_later;
	uint64_t pulls_stalled_unponged, pulls_stalled_patience;
	uint64_t wants_stop_sent, wants_stopped, beside_relay;
	uint64_t handovers, handovers_read, handovers_timed;
	/* the node that sent most: its peers at the end, the times it went
	 * offline, its bytes a day in all and of records; and the mean of
	 * all and of records sent a day by the nodes of each count of peers
	 * (SIM_DEG_MAX: that many or more) */
	uint32_t busiest, busiest_deg, busiest_spells;
	double busiest_total, busiest_records;
#define SIM_DEG_MAX 16
	double by_deg_total[SIM_DEG_MAX + 1], by_deg_records[SIM_DEG_MAX + 1];
	uint32_t by_deg_nodes[SIM_DEG_MAX + 1];
} sim_result_t;

/* Run the simulation. 0, or -ENOMEM / -EINVAL (bad parameters). */
int sim_run(const sim_params_t *p, sim_result_t *ret);

/* The same workload, overlay and figures, run by the node's own
 * replication code (node_repl.c, node_digest.c, node_flood.c) with a
 * store each (sim_real.c). Memory grows as nodes x feeds: thousands of
 * nodes, not tens of thousands. 0, -EINVAL or -EPROTO. */
int sim_run_real(const sim_params_t *p, sim_result_t *ret);

#endif
