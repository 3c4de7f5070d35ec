/*
 * sim: the simulator's loop — parameters, the event heap, the network's
 * feeds at the start, the workload (jobs, requests, churn), and the
 * figures at the end. The model of a node is in sim_repl.c (replication,
 * flooding, the digest) and sim_net.c (topology, links, pings).
 */
#include "node/sim/sim_int.h"

#include "proto/mem.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const s_kinds[SIM_KINDS] = {
	"hello", "peers",   "request", "request-ids", "vector", "vector-repair",
	"want",	 "records", "credit",  "ping",	      "pong",	"digest",
};

const char *sim_kind_name(int kind)
{
	return kind >= 0 && kind < SIM_KINDS ? s_kinds[kind] : "?";
}

void sim_params_default(sim_params_t *p)
{
	*p = (sim_params_t){
		.nodes = 10000,
		.max_peers = 8,
		.window_s = 3600,
		.drain_s = 1800,
		.runs_per_day = 2000,
		.requests_per_day = 1000,
		.accept_labs = 5,
		.events_per_run = 5,
		.adverts_per_run = 2,
		.job_s = 600,
		.loss = 0.01,
		.churn = 0.01,
		.offline_s = 600,
		.lat_min_ms = 20,
		.lat_max_ms = 150,
		.seed = 1,
	};
}

/* ---- randomness: splitmix64, so a seed gives the same run ------------- */

uint64_t sim_rand(sim_t *s)
{
	uint64_t z = (s->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint32_t sim_uniform(sim_t *s, uint32_t n)
{
	return n ? (uint32_t)(sim_rand(s) % n) : 0;
}

double sim_unit(sim_t *s)
{
	return (double)(sim_rand(s) >> 11) / 9007199254740992.0;
}

double sim_exp(sim_t *s, double mean)
{
	return -mean * log(1.0 - sim_unit(s));
}

/* ---- the event heap ---------------------------------------------------- */

static bool s_before(const sim_event_t *x, const sim_event_t *y)
{
	return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

void sim_at(sim_t *s, int64_t t, uint32_t type, uint32_t id, uint32_t arg,
	    sim_msg_t *m)
{
	size_t i;

	if (s->n_heap == s->a_heap) {
		s->a_heap = s->a_heap ? s->a_heap * 2 : 4096;
		s->heap = xreallocarray(s->heap, s->a_heap, sizeof(*s->heap));
	}
	i = s->n_heap++;
	s->heap[i] = (sim_event_t){
		t < s->now ? s->now : t, s->ev_seq++, type, id, arg, m};
	while (i && s_before(&s->heap[i], &s->heap[(i - 1) / 2])) {
		sim_event_t x = s->heap[i];

		s->heap[i] = s->heap[(i - 1) / 2];
		s->heap[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

sim_event_t sim_pop(sim_t *s)
{
	sim_event_t top = s->heap[0];
	size_t i = 0;

	s->heap[0] = s->heap[--s->n_heap];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		sim_event_t x;

		if (l < s->n_heap && s_before(&s->heap[l], &s->heap[m]))
			m = l;
		if (r < s->n_heap && s_before(&s->heap[r], &s->heap[m]))
			m = r;
		if (m == i)
			break;
		x = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = x;
		i = m;
	}
	return top;
}

/* ---- feeds ------------------------------------------------------------- */

uint64_t sim_seq(const sim_t *s, uint32_t a, uint16_t have)
{
	return s->feeds[a].base_seq + have;
}

uint32_t sim_active_of(sim_t *s, uint32_t node)
{
	sim_node_t *n = &s->nodes[node];

	if (n->active != SIM_NO_ACTIVE)
		return n->active;
	if (s->n_active == s->a_active)
		sim_grow_active(s, s->a_active * 2);
	n->active = s->n_active++;
	s->feeds[n->active] =
		(sim_feed_t){.node = node, .base_seq = s->base_seq[node]};
	return n->active;
}

/* Every node holds every feed at its seq of the start: one digest. */
static void s_feeds(sim_t *s)
{
	digest_clear(&s->base_dg);
	s->base_seq = xcalloc(s->p.nodes, sizeof(*s->base_seq));
	for (uint32_t i = 0; i < s->p.nodes; i++) {
		sim_node_t *n = &s->nodes[i];
		unsigned b;

		for (int k = 0; k < DIGEST_KEY_BYTES; k += 8) {
			uint64_t r = sim_rand(s);

			memcpy(n->key + k, &r, 8);
		}
		/* a lab a year or so in: hundreds to thousands of records */
		s->base_seq[i] = 100 + sim_uniform(s, 5000);
		digest_update(&s->base_dg, n->key, 0, s->base_seq[i]);
		b = digest_bucket(n->key);
		s->bucket_nodes[b] =
			xreallocarray(s->bucket_nodes[b], s->bucket_n[b] + 1,
				      sizeof(uint32_t));
		s->bucket_nodes[b][s->bucket_n[b]++] = i;
	}
	for (uint32_t i = 0; i < s->p.nodes; i++) {
		s->nodes[i].dg = s->base_dg;
		s->nodes[i].active = SIM_NO_ACTIVE;
		s->nodes[i].online = true;
		s->nodes[i].phase_ms = (uint16_t)sim_uniform(s, NODE_TICK_MS);
	}
}

/* ---- the workload ------------------------------------------------------ */

/* One job of a random lab starting at t0: its adverts (busy, idle), its
 * events spread over the job, its run at the end; only what falls in
 * the window is written. */
static void s_job(sim_t *s, double t0)
{
	uint32_t lab = sim_uniform(s, s->p.nodes);
	double end = t0 + s->p.job_s;
	uint32_t e = s->p.events_per_run, a = s->p.adverts_per_run;

	for (uint32_t k = 0; k < a; k++)
		if (t0 + s->p.job_s * k / (a > 1 ? a - 1 : 1) >= 0)
			sim_at(s,
			       (int64_t)(1000 *
					 (t0 + s->p.job_s * k /
						       (a > 1 ? a - 1 : 1))),
			       EV_WRITE, lab, WIRE_KIND_ADVERT, NULL);
	for (uint32_t k = 0; k < e; k++)
		if (t0 + s->p.job_s * k / e >= 0)
			sim_at(s, (int64_t)(1000 * (t0 + s->p.job_s * k / e)),
			       EV_WRITE, lab, WIRE_KIND_EVENT, NULL);
	if (!s->p.no_run && end >= 0 && end < s->p.window_s)
		sim_at(s, (int64_t)(1000 * end), EV_WRITE, lab, WIRE_KIND_RUN,
		       NULL);
}

void sim_workload(sim_t *s)
{
	double w = s->p.window_s;

	/* jobs that started before the window write in it too */
	for (double t = -s->p.job_s + sim_exp(s, 86400 / s->p.runs_per_day);
	     s->p.runs_per_day > 0 && t < w - 0.001;
	     t += sim_exp(s, 86400 / s->p.runs_per_day))
		s_job(s, t);
	for (double t = sim_exp(s, 86400 / s->p.requests_per_day);
	     s->p.requests_per_day > 0 && t < w;
	     t += sim_exp(s, 86400 / s->p.requests_per_day))
		sim_at(s, (int64_t)(1000 * t), EV_SUBMIT, 0, 0, NULL);
	for (uint32_t i = 0; i < s->p.nodes; i++) {
		sim_at(s,
		       sim_uniform(s, NODE_ROUND_MIN_MS + NODE_ROUND_JITTER_MS),
		       EV_ROUND, i, 0, NULL);
		sim_at(s, sim_uniform(s, NODE_FULL_VECTOR_MS * 5 / 4),
		       EV_DIGEST, i, 0, NULL);
		/* churn: this many offline at the start, and as many
		 * going offline per offline time */
		if (sim_unit(s) < s->p.churn)
			sim_at(s, 0, EV_DOWN, i, 0, NULL);
	}
	for (double t = sim_exp(s, s->p.offline_s / (s->p.churn * s->p.nodes));
	     s->p.churn > 0 && t < w;
	     t += sim_exp(s, s->p.offline_s / (s->p.churn * s->p.nodes)))
		sim_at(s, (int64_t)(1000 * t), EV_DOWN, UINT32_MAX, 0, NULL);
}

static void s_down(sim_t *s, uint32_t node)
{
	if (node == UINT32_MAX)
		node = sim_uniform(s, s->p.nodes);
	if (!s->writing || !s->nodes[node].online)
		return;
	sim_node_down(s, node);
	if (s->measuring) {
		s->r->churned++;
		s->nodes[node].spells++;
	}
	sim_at(s, s->now + (int64_t)(1000 * sim_exp(s, s->p.offline_s)), EV_UP,
	       node, 0, NULL);
}

static void s_dispatch(sim_t *s, const sim_event_t *ev)
{
	switch (ev->type) {
	case EV_MSG:
		if (sim_arrive(s, ev->msg))
			sim_repl_on_msg(s, ev->msg);
		sim_msg_free(ev->msg);
		break;
	case EV_ANNOUNCE:
		sim_repl_announce(s, ev->id);
		break;
	case EV_LAZY:
		sim_repl_lazy(s, ev->id);
		break;
	case EV_TICK:
		sim_repl_tick(s, ev->id, false);
		break;
	case EV_FIRST_BATCH:
		sim_repl_tick(s, ev->id, true);
		break;
	case EV_ROUND:
		sim_repl_round(s, ev->id);
		sim_at(s,
		       s->now + NODE_ROUND_MIN_MS +
			       sim_uniform(s, NODE_ROUND_JITTER_MS),
		       EV_ROUND, ev->id, 0, NULL);
		break;
	case EV_DIGEST:
		sim_repl_digest(s, ev->id);
		sim_at(s,
		       s->now + NODE_FULL_VECTOR_MS +
			       sim_uniform(s, NODE_FULL_VECTOR_MS / 4),
		       EV_DIGEST, ev->id, 0, NULL);
		break;
	case EV_WRITE:
		if (s->writing && s->nodes[ev->id].online)
			sim_repl_write(s, ev->id, (int)ev->arg);
		break;
	case EV_SUBMIT:
		sim_repl_submit(s);
		break;
	case EV_DOWN:
		s_down(s, ev->id);
		break;
	case EV_UP:
		if (!s->nodes[ev->id].online)
			sim_node_up(s, ev->id);
		break;
	case EV_DETECT:
		sim_detect(s, ev->id, (int)ev->arg);
		break;
	case EV_PEERS:
		sim_send_peers(s, ev->id);
		break;
	case EV_RESUME_DIGEST:
		sim_repl_resume_digest(s, ev->id, ev->arg);
		break;
	}
}

/* The window ends: pings counted up to it, everyone back online, no
 * more records; the drain lets what is in flight arrive. */
static void s_end_window(sim_t *s)
{
	for (uint32_t i = 0; i < s->n_links; i++)
		if (s->links[i].up)
			sim_pings_until(s, &s->links[i], s->end_ms);
	s->measuring = false;
	s->writing = false;
	for (uint32_t i = 0; i < s->p.nodes; i++)
		if (!s->nodes[i].online)
			sim_node_up(s, i);
}

static double s_wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void sim_progress(sim_t *s)
{
	double now;

	if (++s->events % 65536 || !s->p.progress)
		return;
	now = s_wall_s();
	if (now - s->wall_told < 30)
		return;
	s->wall_told = now;
	fprintf(stderr, "bench-sim: %u nodes: %.0f of %.0f s simulated"
		" (window %.0f, drain %.0f), %llu events, %.0f s\n",
		s->p.nodes, (double)s->now / 1000,
		s->p.window_s + s->p.drain_s, s->p.window_s, s->p.drain_s,
		(unsigned long long)s->events, now - s->wall0);
}

static void s_loop(sim_t *s)
{
	int64_t stop = s->end_ms + (int64_t)(1000 * s->p.drain_s);

	while (s->n_heap && s->heap[0].t <= stop) {
		sim_event_t ev = sim_pop(s);

		if (s->measuring && ev.t >= s->end_ms)
			s_end_window(s);
		s->now = ev.t;
		sim_progress(s);
		s_dispatch(s, &ev);
	}
	if (s->measuring)
		s_end_window(s);
	while (s->n_heap) {
		sim_event_t ev = sim_pop(s);

		if (ev.type == EV_MSG)
			sim_msg_free(ev.msg);
	}
}

/* ---- figures ------------------------------------------------------------ */

static int s_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static sim_stat_t s_stat(double *v, size_t n)
{
	sim_stat_t st = {0};
	double sum = 0;

	if (!n)
		return st;
	qsort(v, n, sizeof(*v), s_cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	st.mean = sum / (double)n;
	st.p99 = v[(size_t)((double)(n - 1) * 0.99)];
	st.max = v[n - 1];
	return st;
}

/* v: each node's bytes sent a day in all (before sorting) */
static void s_by_degree(sim_t *s, sim_result_t *r, const double *v,
			double scale)
{
	uint32_t top = 0;

	memset(r->by_deg_total, 0, sizeof(r->by_deg_total));
	memset(r->by_deg_records, 0, sizeof(r->by_deg_records));
	memset(r->by_deg_nodes, 0, sizeof(r->by_deg_nodes));
	for (uint32_t i = 0; i < s->p.nodes; i++) {
		uint32_t d = s->nodes[i].deg < SIM_DEG_MAX ? s->nodes[i].deg :
							    SIM_DEG_MAX;
		double rec = (double)s->nodes[i].tx[SIM_RECORDS] * scale;

		r->by_deg_total[d] += v[i];
		r->by_deg_records[d] += rec;
		r->by_deg_nodes[d]++;
		if (v[i] > v[top])
			top = i;
	}
	for (int d = 0; d <= SIM_DEG_MAX; d++)
		if (r->by_deg_nodes[d]) {
			r->by_deg_total[d] /= r->by_deg_nodes[d];
			r->by_deg_records[d] /= r->by_deg_nodes[d];
		}
	r->busiest = top;
	r->busiest_deg = s->nodes[top].deg;
	r->busiest_spells = s->nodes[top].spells;
	r->busiest_total = v[top];
	r->busiest_records = (double)s->nodes[top].tx[SIM_RECORDS] * scale;
}

void sim_traffic(sim_t *s, sim_result_t *r)
{
	double scale = 86400.0 / s->p.window_s;
	double *v = xcalloc(s->p.nodes, sizeof(*v));

	for (int k = 0; k <= SIM_KINDS + 1; k++) {
		for (uint32_t i = 0; i < s->p.nodes; i++) {
			const sim_node_t *n = &s->nodes[i];
			uint64_t b = 0;

			for (int j = 0; j < SIM_KINDS; j++)
				if (k == j || k == SIM_KINDS)
					b += n->tx[j];
				else if (k == SIM_KINDS + 1)
					b += n->rx[j];
			v[i] = (double)b * scale;
		}
		if (k == SIM_KINDS)
			s_by_degree(s, r, v, scale);
		if (k < SIM_KINDS)
			r->sent[k] = s_stat(v, s->p.nodes);
		else if (k == SIM_KINDS)
			r->sent_total = s_stat(v, s->p.nodes);
		else
			r->recv_total = s_stat(v, s->p.nodes);
	}
	free(v);
}

static void s_delivery(sim_t *s, sim_result_t *r)
{
	uint64_t total = 0;

	for (uint32_t a = 0; a < s->n_active; a++) {
		const sim_feed_t *f = &s->feeds[a];

		for (uint32_t i = 0; i < s->p.nodes; i++)
			r->missing += f->n - s->nodes[i].have[a];
		total += (uint64_t)f->n * s->p.nodes;
		r->records += f->n;
		for (uint32_t d = 0; d < f->n; d++)
			r->record_bytes += sim_wire_record(f->kinds[d]);
	}
	r->delivered = total ? 1.0 - (double)r->missing / (double)total : 1.0;
}

static double s_quantile_u32(uint32_t *v, size_t n, double q)
{
	double *d;
	double x;

	if (!n)
		return 0;
	d = xcalloc(n, sizeof(*d));
	for (size_t i = 0; i < n; i++)
		d[i] = v[i];
	qsort(d, n, sizeof(*d), s_cmp_double);
	x = d[(size_t)((double)(n - 1) * q)];
	free(d);
	return x;
}

void sim_request_start(sim_t *s, uint32_t req)
{
	uint32_t *acc =
		(uint32_t *)s->req_accepts + (size_t)req * s->p.accept_labs;

	s->req_t0[req] = s->req_last[req] = s->now;
	s->req_reached[req] = 0;
	for (uint32_t i = 0; i < s->p.accept_labs; i++)
		acc[i] = sim_uniform(s, s->p.nodes);
}

void sim_flood_arrival(sim_t *s, uint32_t req)
{
	if (s->n_flood == s->a_flood) {
		s->a_flood = s->a_flood ? s->a_flood * 2 : 65536;
		s->flood_ms = xreallocarray(s->flood_ms, s->a_flood,
					    sizeof(*s->flood_ms));
	}
	s->flood_ms[s->n_flood++] = (uint32_t)(s->now - s->req_t0[req]);
	s->req_reached[req]++;
	if (s->now > s->req_last[req])
		s->req_last[req] = s->now;
}

void sim_flood_figures(sim_t *s, sim_result_t *r)
{
	uint32_t *all = xcalloc(s->n_reqs + 1, sizeof(*all));

	r->requests = s->n_reqs;
	r->flood_p50_ms = s_quantile_u32(s->flood_ms, s->n_flood, 0.5);
	r->flood_p99_ms = s_quantile_u32(s->flood_ms, s->n_flood, 0.99);
	for (uint32_t i = 0; i < s->n_reqs; i++)
		all[i] = (uint32_t)(s->req_last[i] - s->req_t0[i]);
	r->flood_all_p50_ms = s_quantile_u32(all, s->n_reqs, 0.5);
	r->flood_all_max_ms = s_quantile_u32(all, s->n_reqs, 1.0);
	free(all);
}

static void s_figures(sim_t *s, sim_result_t *r)
{
	uint64_t deg = 0;

	sim_traffic(s, r);
	s_delivery(s, r);
	sim_flood_figures(s, r);
	for (uint32_t i = 0; i < s->p.nodes; i++) {
		deg += s->nodes[i].deg;
		if (s->nodes[i].deg > r->degree_max)
			r->degree_max = s->nodes[i].deg;
	}
	r->degree_mean = (double)deg / s->p.nodes;
	r->events = s->events;
	for (int k = 1; k < 8; k++)
		r->record_size[k] = sim_wire_record(k);
}

void sim_free_common(sim_t *s)
{
	for (uint32_t i = 0; s->nodes && i < s->p.nodes; i++)
		free(s->nodes[i].links);
	free(s->nodes);
	free(s->links);
	free(s->heap);
	free(s->req_t0);
	free(s->req_reached);
	free(s->req_last);
	free(s->req_accepts);
	free(s->flood_ms);
}

static void s_free(sim_t *s)
{
	for (uint32_t i = 0; i < s->p.nodes; i++) {
		sim_node_t *n = &s->nodes[i];

		free(n->have);
		free(n->dirty);
		free(n->is_dirty);
		free(n->step);
		free(n->is_lazy);
		free(n->pushed);
		free(n->lazy);
		free(n->notes);
		free(n->claims);
		free(n->ups);
		free(n->reqs);
	}
	for (uint32_t i = 0; i < s->n_links; i++)
		for (int e = 0; e < 2; e++) {
			free(s->links[i].end[e].their);
			free(s->links[i].end[e].sent);
			free(s->links[i].end[e].push_to);
			free(s->links[i].end[e].distrust);
		}
	for (uint32_t a = 0; a < s->n_active; a++)
		free(s->feeds[a].kinds);
	for (int b = 0; b < DIGEST_BUCKETS; b++)
		free(s->bucket_nodes[b]);
	free(s->feeds);
	free(s->lazy_cnt);
	free(s->base_seq);
	sim_free_common(s);
}

sim_t *sim_begin(const sim_params_t *p, sim_result_t *ret, int *ret_rc)
{
	sim_t *s;

	*ret_rc = -EINVAL;
	if (p->nodes < 2 || p->max_peers < 1 || p->window_s <= 0 ||
	    p->lat_min_ms > p->lat_max_ms || p->churn < 0 || p->churn >= 1 ||
	    p->loss < 0 || p->loss >= 1 || (p->churn > 0 && p->offline_s <= 0))
		return NULL;
	*ret_rc = sim_wire_init();
	if (*ret_rc < 0)
		return NULL;
	s = xzalloc(sizeof(*s));
	s->p = *p;
	s->rng = p->seed * 0x2545f4914f6cdd1dULL + 1;
	s->r = ret;
	memset(ret, 0, sizeof(*ret));
	s->nodes = xcalloc(p->nodes, sizeof(*s->nodes));
	s->end_ms = (int64_t)(1000 * p->window_s);
	s->wall0 = s->wall_told = s_wall_s();
	return s;
}

int sim_run(const sim_params_t *p, sim_result_t *ret)
{
	int rc;
	sim_t *s = sim_begin(p, ret, &rc);

	if (!s)
		return rc;
	for (uint32_t i = 0; i < p->nodes; i++)
		s->nodes[i].peers_at = -1;
	s->measuring = s->writing = true;
	s_feeds(s);
	sim_topology(s);
	/* active authors: the jobs' labs and the accepting labs, about */
	sim_grow_active(s,
			64 + (uint32_t)(1.5 *
					(p->runs_per_day +
					 p->requests_per_day * p->accept_labs) *
					p->window_s / 86400));
	sim_workload(s);
	s_loop(s);
	s_figures(s, ret);
	s_free(s);
	free(s);
	rc = sim_wire_failed() ? -EPROTO : 0;
	sim_wire_fini();
	return rc;
}
