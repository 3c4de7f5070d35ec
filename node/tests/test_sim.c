/*
 * test_sim: the network simulator (node/sim) at N = 50 with lossy links
 * and churn delivers every record of its window to every node once the
 * drain is over — by pushes, announcements, pulls and the digest safety
 * net — and uses each of those message kinds on the way; and so does
 * the node's own replication code run by 50 nodes with a store each
 * (sim_run_real), with no message taken as garbage. Correctness, not
 * timing: the figures are bench-sim's.
 */
#include "proto/tests/check.h"
#include "node/sim/sim.h"

#include <stdio.h>

int check_failures;

static void s_run(double loss, double churn, uint64_t seed, bool real)
{
	sim_params_t p;
	sim_result_t r;

	sim_params_default(&p);
	p.nodes = 50;
	p.window_s = 600;
	p.drain_s = 1800;
	p.runs_per_day = 20000; /* ~140 runs of the window, and their jobs */
	p.requests_per_day = 5000;
	p.loss = loss;
	p.churn = churn;
	p.offline_s = 60;
	p.seed = seed;
	CHECK((real ? sim_run_real(&p, &r) : sim_run(&p, &r)) == 0);
	fprintf(stderr,
		"%s loss %.2f churn %.2f: %llu records, %llu deliveries,"
		" %llu missing, %llu duplicates, %llu lost, %u offline\n",
		real ? "node code" : "model", loss, churn, (unsigned long long)r.records,
		(unsigned long long)r.deliveries, (unsigned long long)r.missing,
		(unsigned long long)r.duplicates, (unsigned long long)r.lost,
		r.churned);
	CHECK(r.records > 500);
	CHECK(r.missing == 0);
	CHECK(r.delivered == 1.0);
	/* every record held by 49 others, from peers, each stored once */
	CHECK(r.deliveries == r.records * 49);
	CHECK(r.requests > 5);
	CHECK(r.msgs[SIM_RECORDS] > 0 && r.msgs[SIM_VECTOR] > 0 &&
	      r.msgs[SIM_WANT] > 0 && r.msgs[SIM_DIGEST] > 0 &&
	      r.msgs[SIM_PING] > 0 && r.msgs[SIM_REQUEST] > 0);
	if (loss > 0 || churn > 0)
		CHECK(r.msgs[SIM_REPAIR] > 0 && r.lost > 0);
	if (churn > 0)
		CHECK(r.churned > 0);
	if (churn > 0 && !real) /* the node's code sends no hellos here */
		CHECK(r.msgs[SIM_HELLO] > 0);
	CHECK(r.garbage == 0);
}

int main(void)
{
	s_run(0, 0, 1, false);
	s_run(0.05, 0.05, 2, false);
	s_run(0, 0, 1, true);
	s_run(0.05, 0.05, 2, true);
	return check_failures ? 1 : 0;
}
