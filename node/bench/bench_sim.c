/*
 * bench-sim: the replication protocol of N nodes simulated in one process
 * (node/sim/sim.h), at KernelCI's volume by default: 10,000 labs, 2,000
 * run records and 1,000 requests a day, each request accepted by 5 labs.
 * Prints one JSON object per line (scripts/bench reads them): bytes sent
 * per node per day by message kind (mean, p99, max), delivery, flood
 * times; with --table, a table for people too. With --real the nodes
 * run the node's own replication code (sim_run_real), each with a store
 * over one record pool shared by all (node/sim/sim_store.c): 10,000
 * nodes take about 13 GB.
 *
 *   bench-sim [--nodes N] [--window S] [--drain S] [--runs R]
 *             [--requests R] [--accept K] [--every-lab] [--events E]
 *             [--adverts A] [--no-run] [--loss F] [--churn F] [--offline S]
 *             [--seed N] [--real] [--load L] [--busy MS] [--burst N]
 *             [--liveness S] [--table] [--quiet]
 */
#include "node/sim/sim.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TARGET_BYTES (50.0 * 1000 * 1000) /* a node's day */

static bool s_real; /* --real: the node's own code */

static double s_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void s_row(const char *figure, double value, const char *unit,
		  const char *target, int met)
{
	printf("{\"figure\": \"%s\", \"value\": %.6g, \"unit\": \"%s\"", figure,
	       value, unit);
	if (target)
		printf(", \"target\": \"%s\", \"met\": %s", target,
		       met ? "true" : "false");
	printf("}\n");
}

static void s_rows(const sim_params_t *p, const sim_result_t *r, double secs)
{
	char f[512], tag[64];

	snprintf(tag, sizeof(tag), "%s N=%u", s_real ? "sim-real" : "sim",
		 p->nodes);
	for (int k = 0; k < SIM_KINDS; k++) {
		snprintf(f, sizeof(f),
			 "%s: %s bytes sent per node per day,"
			 " mean (p99 %.0f, max %.0f)",
			 tag, sim_kind_name(k), r->sent[k].p99, r->sent[k].max);
		s_row(f, r->sent[k].mean, "B/day", NULL, 0);
	}
	snprintf(f, sizeof(f),
		 "%s: all bytes sent per node per day, mean"
		 " (p99 %.0f, max %.0f)",
		 tag, r->sent_total.p99, r->sent_total.max);
	s_row(f, r->sent_total.mean, "B/day", "p99 <= 50 MB/day",
	      r->sent_total.p99 <= TARGET_BYTES);
	snprintf(f, sizeof(f),
		 "%s: all bytes received per node per day,"
		 " mean (p99 %.0f, max %.0f)",
		 tag, r->recv_total.p99, r->recv_total.max);
	s_row(f, r->recv_total.mean, "B/day", "p99 <= 50 MB/day",
	      r->recv_total.p99 <= TARGET_BYTES);
	snprintf(f, sizeof(f),
		 "%s: records of the window held by every node"
		 " after the drain (%llu records, %llu missing)",
		 tag, (unsigned long long)r->records,
		 (unsigned long long)r->missing);
	s_row(f, r->delivered, "fraction", "1.0", r->missing == 0);
	snprintf(f, sizeof(f), "%s: records received twice per delivery", tag);
	s_row(f, r->deliveries ? (double)r->duplicates / r->deliveries : 0,
	      "ratio", NULL, 0);
	snprintf(f, sizeof(f),
		 "%s: replication bytes (vector, repair, want,"
		 " records, credit) per record delivered",
		 tag);
	s_row(f,
	      r->deliveries
		      ? (double)(r->bytes[SIM_VECTOR] + r->bytes[SIM_REPAIR] +
				 r->bytes[SIM_WANT] + r->bytes[SIM_RECORDS] +
				 r->bytes[SIM_CREDIT]) /
				r->deliveries
		      : 0,
	      "B", NULL, 0);
	snprintf(f, sizeof(f),
		 "%s: record bytes per record (mean of the"
		 " window's)",
		 tag);
	s_row(f, r->records ? (double)r->record_bytes / r->records : 0, "B",
	      NULL, 0);
	snprintf(f, sizeof(f),
		 "%s: request flood to each node, median (p99"
		 " %.0f ms; to every node median %.0f, max %.0f ms; %u"
		 " requests)",
		 tag, r->flood_p99_ms, r->flood_all_p50_ms, r->flood_all_max_ms,
		 r->requests);
	s_row(f, r->flood_p50_ms, "ms", NULL, 0);
	if (s_real) {
		snprintf(f, sizeof(f),
			 "%s: records received again, from the pull's peer"
			 " %llu, from others %llu; pulls %llu, moved %llu"
			 " (before their first answer %llu), stalled %llu,"
			 " waited for their peer %llu; of those from the"
			 " pull's peer, %llu answered an earlier want; wants"
			 " of records not held %llu, again while served %llu,"
			 " not served whole at once %llu",
			 tag, (unsigned long long)r->dup_pulled,
			 (unsigned long long)r->dup_other,
			 (unsigned long long)r->pulls_started,
			 (unsigned long long)r->pulls_taken_over,
			 (unsigned long long)r->pulls_preempted,
			 (unsigned long long)r->pulls_stalled,
			 (unsigned long long)r->pulls_waited,
			 (unsigned long long)r->dup_stale,
			 (unsigned long long)r->wants_unheld,
			 (unsigned long long)r->wants_again,
			 (unsigned long long)r->wants_queued);
		s_row(f, (double)(r->dup_pulled + r->dup_other), "records",
		      NULL, 0);
		snprintf(f, sizeof(f),
			 "%s: pulls stalled after a pong said the peer read"
			 " the want %llu; stall verdicts put off while"
			 " messages waited %llu; stalled with a peer that"
			 " never answered a ping %llu, out of patience %llu;"
			 " stops sent as pulls left"
			 " their peer %llu, records left unsent by them %llu;"
			 " records taken while their pull was in flight to"
			 " another peer, from a relay %llu; pulls that"
			 " waited for their peer to read the stop %llu,"
			 " ended by its pong %llu, out of time %llu",
			 tag, (unsigned long long)r->pulls_stalled_read,
			 (unsigned long long)r->pulls_judged_later,
			 (unsigned long long)r->pulls_stalled_unponged,
			 (unsigned long long)r->pulls_stalled_patience,
			 (unsigned long long)r->wants_stop_sent,
			 (unsigned long long)r->wants_stopped,
			 (unsigned long long)r->beside_relay,
			 (unsigned long long)r->handovers,
			 (unsigned long long)r->handovers_read,
			 (unsigned long long)r->handovers_timed);
		s_row(f, (double)r->wants_stopped, "records", NULL, 0);
		snprintf(f, sizeof(f),
			 "%s: messages the nodes took as garbage", tag);
		s_row(f, (double)r->garbage, "messages", "0",
		      r->garbage == 0);
	}
	snprintf(f, sizeof(f), "%s: peers per node, mean (max %u)", tag,
		 r->degree_max);
	s_row(f, r->degree_mean, "peers", NULL, 0);
	snprintf(f, sizeof(f),
		 "%s: simulated %.0f s + %.0f s drain, %u"
		 " offline spells, %llu messages lost, %llu events",
		 tag, p->window_s, p->drain_s, r->churned,
		 (unsigned long long)r->lost, (unsigned long long)r->events);
	s_row(f, secs, "s", NULL, 0);
}

static void s_table(const sim_params_t *p, const sim_result_t *r)
{
	fprintf(stderr, "N=%u, window %.0f s: bytes sent per node per day\n",
		p->nodes, p->window_s);
	fprintf(stderr, "%-14s %12s %12s %12s %14s\n", "kind", "mean", "p99",
		"max", "msgs/node/day");
	for (int k = 0; k < SIM_KINDS; k++)
		fprintf(stderr, "%-14s %12.0f %12.0f %12.0f %14.1f\n",
			sim_kind_name(k), r->sent[k].mean, r->sent[k].p99,
			r->sent[k].max,
			(double)r->msgs[k] / p->nodes * 86400.0 / p->window_s);
	fprintf(stderr, "%-14s %12.0f %12.0f %12.0f\n", "all sent",
		r->sent_total.mean, r->sent_total.p99, r->sent_total.max);
	fprintf(stderr, "%-14s %12.0f %12.0f %12.0f\n", "all received",
		r->recv_total.mean, r->recv_total.p99, r->recv_total.max);
	fprintf(stderr,
		"record sizes: advert %zu, accept %zu, decline %zu,"
		" event %zu, run %zu\n",
		r->record_size[1], r->record_size[2], r->record_size[3],
		r->record_size[4], r->record_size[5]);
	fprintf(stderr,
		"busiest sender: node %u, %u peers, offline %u times: %.1f MB"
		" a day, %.1f MB of records\n",
		r->busiest, r->busiest_deg, r->busiest_spells,
		r->busiest_total / 1e6, r->busiest_records / 1e6);
	fprintf(stderr, "by peers: %5s %8s %14s %14s\n", "peers", "nodes",
		"all MB/day", "records MB/day");
	for (int d = 0; d <= SIM_DEG_MAX; d++)
		if (r->by_deg_nodes[d])
			fprintf(stderr, "          %5d%s %7u %14.2f %14.2f\n",
				d, d == SIM_DEG_MAX ? "+" : " ",
				r->by_deg_nodes[d], r->by_deg_total[d] / 1e6,
				r->by_deg_records[d] / 1e6);
}

static int s_args(int argc, char **argv, sim_params_t *p, bool *table)
{
	static const struct option opts[] = {
		{"nodes", required_argument, NULL, 'n'},
		{"window", required_argument, NULL, 'w'},
		{"drain", required_argument, NULL, 'd'},
		{"runs", required_argument, NULL, 'r'},
		{"requests", required_argument, NULL, 'q'},
		{"accept", required_argument, NULL, 'k'},
		{"every-lab", no_argument, NULL, 'A'},
		{"events", required_argument, NULL, 'e'},
		{"adverts", required_argument, NULL, 'a'},
		{"no-run", no_argument, NULL, 'R'},
		{"loss", required_argument, NULL, 'l'},
		{"churn", required_argument, NULL, 'c'},
		{"offline", required_argument, NULL, 'o'},
		{"seed", required_argument, NULL, 's'},
		{"table", no_argument, NULL, 't'},
		{"real", no_argument, NULL, 'X'},
		{"load", required_argument, NULL, 'L'},
		{"busy", required_argument, NULL, 'U'},
		{"burst", required_argument, NULL, 'B'},
		{"liveness", required_argument, NULL, 'V'},
		{"quiet", no_argument, NULL, 'Q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		double v = optarg ? strtod(optarg, NULL) : 0;

		switch (c) {
		case 'n':
			p->nodes = (uint32_t)v;
			break;
		case 'w':
			p->window_s = v;
			break;
		case 'd':
			p->drain_s = v;
			break;
		case 'r':
			p->runs_per_day = v;
			break;
		case 'q':
			p->requests_per_day = v;
			break;
		case 'k':
			p->accept_labs = (uint32_t)v;
			break;
		case 'A':
			p->every_lab_answers = true;
			break;
		case 'e':
			p->events_per_run = (uint32_t)v;
			break;
		case 'a':
			p->adverts_per_run = (uint32_t)v;
			break;
		case 'R':
			p->no_run = true;
			break;
		case 'l':
			p->loss = v;
			break;
		case 'c':
			p->churn = v;
			break;
		case 'o':
			p->offline_s = v;
			break;
		case 's':
			p->seed = (uint64_t)v;
			break;
		case 't':
			*table = true;
			break;
		case 'X':
			s_real = true;
			break;
		case 'L':
			p->load = v;
			break;
		case 'U':
			p->busy_ms = v;
			break;
		case 'B':
			p->burst = (uint32_t)v;
			break;
		case 'V':
			p->liveness_ms = (int64_t)(v * 1000);
			break;
		case 'Q':
			p->progress = false;
			break;
		case 'h':
			return 1;
		default:
			return -EINVAL;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	sim_params_t p;
	sim_result_t r;
	bool table = false;
	double t0;
	int rc;

	sim_params_default(&p);
	p.progress = true;
	rc = s_args(argc, argv, &p, &table);
	if (rc != 0) {
		fprintf(rc > 0 ? stdout : stderr,
			"usage: bench-sim [--nodes N] [--window S]"
			" [--drain S] [--runs R] [--requests R]\n"
			"                 [--accept K] [--every-lab] [--events E]"
			" [--adverts A] [--no-run]\n"
			"                 [--loss F] [--churn F] [--offline S]"
			" [--seed N] [--real] [--load L] [--busy MS]\n"
			"                 [--burst N] [--liveness S] [--table]"
			" [--quiet]\n"
			"Simulate N labs (10000) replicating in virtual time for a window of S\n"
			"seconds (3600) at KernelCI's volume, then a drain; print bytes per node\n"
			"per day as JSON lines, and with --table a table of them by message kind,\n"
			"the busiest sender and the bytes sent by count of peers.\n"
			"--real runs the node's own replication code (node_repl.c, node_digest.c,\n"
			"node_flood.c) in place of the model, each node with a store over one\n"
			"shared record pool: memory grows as nodes x labs, ~100 B each (10,000\n"
			"nodes: about 13 GB).\n"
			"--load L: with --real, a node is busy for the CPU its code took times L\n"
			"(nodes per core of a shared machine).\n"
			"--busy MS: with --real, a node is busy MS virtual ms for each message or\n"
			"timer it handles, and what comes meanwhile waits (the same every run).\n"
			"--burst N: one lab appends N records at once, 60 s into the window.\n"
			"--liveness S: with --real, the nodes' liveness window (5 s).\n"
			"Every 30 s a line on stderr says how far the run is (--quiet: none).\n");
		return rc > 0 ? 0 : 2;
	}
	t0 = s_now_s();
	rc = s_real ? sim_run_real(&p, &r) : sim_run(&p, &r);
	if (rc < 0) {
		fprintf(stderr, "bench-sim: %s\n", strerror(-rc));
		return 1;
	}
	s_rows(&p, &r, s_now_s() - t0);
	if (table)
		s_table(&p, &r);
	return 0;
}
