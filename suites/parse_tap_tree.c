/*
 * parse_tap_tree: the nesting of TAP output, for parse_tap.c (see
 * parse_tap_private.h).
 *
 * Subtests (indented streams) report their results before the parent's
 * test line names them, so each nesting level keeps its results pending
 * until its parent line arrives; they then become "parent.child" paths.
 * A level that ends is closed into its parent; planned tests that never
 * reported, and subtests whose parent line never came, become MISS cases.
 */
#include "suites/parse_tap_private.h"
#include "proto/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tap_plist_free(struct plist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].rel);
		free(l->v[i].msg);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
	l->alloc = 0;
}

struct pend *tap_plist_add(struct tap *t, struct plist *l, const char *rel,
			   enum suite_status st, int64_t dur, const char *msg)
{
	struct pend *p;

	if (t->pending >= SUITE_MAX_CASES) {
		t->res->dropped_cases++;
		return NULL;
	}
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? l->alloc * 2 : 16;
		l->v = xreallocarray(l->v, l->alloc, sizeof(*l->v));
	}
	p = &l->v[l->n++];
	p->rel = xstrndup(rel, SUITE_MAX_PATH);
	p->status = st;
	p->dur = dur;
	p->msg = msg && msg[0] ? xstrndup(msg, SUITE_MAX_MESSAGE) : NULL;
	p->at = st == SUITE_MISS ? 0 : t->at;
	t->pending++;
	return p;
}

/* Move every result of src into dst below "prefix.". */
void tap_plist_move(struct tap *t, struct plist *dst, struct plist *src,
		    const char *prefix)
{
	for (size_t i = 0; i < src->n; i++) {
		char rel[SUITE_MAX_PATH + 1];
		struct pend *p = &src->v[i];
		snprintf(rel, sizeof(rel), "%s.%s", prefix, p->rel);
		struct pend *q;

		t->pending--; /* tap_plist_add counts it again */
		q = tap_plist_add(t, dst, rel, p->status, p->dur, p->msg);
		if (q)
			q->at = p->at;
	}
	tap_plist_free(src);
}

bool tap_failing(enum suite_status s)
{
	return s == SUITE_FAIL || s == SUITE_ERROR || s == SUITE_MISS;
}

bool tap_any_failing(const struct plist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		if (tap_failing(l->v[i].status))
			return true;
	}
	return false;
}

void tap_seen_set(struct level *l, long n)
{
	if (n >= 1 && n <= TAP_SEEN_BITS)
		l->seen[n / 8] |= (unsigned char)(1u << (n % 8));
}

static bool s_seen(const struct level *l, long n)
{
	return n >= 1 && n <= TAP_SEEN_BITS && (l->seen[n / 8] & (1u << (n % 8)));
}

struct level *tap_level_new(int indent)
{
	struct level *l = xzalloc(sizeof(*l));

	l->indent = indent;
	l->plan = -1;
	return l;
}

void tap_level_free(struct level **p)
{
	if (!*p)
		return;
	tap_plist_free(&(*p)->res);
	tap_plist_free(&(*p)->closed);
	free(*p);
	*p = NULL;
}

/* A finished child that never got its parent's line: keep its results
 * under its own name and say the parent line is missing. */
void tap_flush_closed(struct tap *t, struct level *l)
{
	char name[SUITE_MAX_PATH + 1];

	if (!l->has_closed)
		return;
	l->has_closed = false;
	if (l->closed_name[0])
		snprintf(name, sizeof(name), "%s", l->closed_name);
	else
		snprintf(name, sizeof(name), "subtest%ld", l->last_num + 1);
	tap_plist_move(t, &l->res, &l->closed, name);
	tap_plist_add(t, &l->res, name, SUITE_MISS, -1,
		      "subtest ended without its result line");
}

/* Planned tests that never reported become MISS. */
void tap_level_finish(struct tap *t, struct level *l)
{
	long top;

	tap_flush_closed(t, l);
	if (l->plan <= 0 || l->plan_skip)
		return;
	top = l->plan < TAP_SEEN_BITS ? l->plan : TAP_SEEN_BITS;
	for (long n = 1, listed = 0; n <= l->plan; n++) {
		char rel[48], msg[SUITE_MAX_MESSAGE + 1];
		if (n <= top && s_seen(l, n))
			continue;
		if (listed++ < SUITE_MAX_MISS_CASES) {
			snprintf(rel, sizeof(rel), "test%ld", n);
			if (!tap_plist_add(t, &l->res, rel, SUITE_MISS, -1,
					   t->bailed ? "planned, not run: bail out"
						     : "planned, not reported"))
				break;
			continue;
		}
		/* the rest of a (maybe absurd) plan as one case, not thousands */
		snprintf(rel, sizeof(rel), "test%ld-%ld", n, l->plan);
		snprintf(msg, sizeof(msg), "these planned tests not reported%s (numbers %ld to %ld)",
			 t->bailed ? " (bail out)" : "", n, l->plan);
		tap_plist_add(t, &l->res, rel, SUITE_MISS, -1, msg);
		break;
	}
}

/* Close the deepest level into its parent's "closed" slot. */
void tap_pop(struct tap *t)
{
	struct level *child = t->lv[t->depth - 1];
	struct level *parent = t->lv[t->depth - 2];

	tap_level_finish(t, child);
	tap_flush_closed(t, parent);
	parent->has_closed = true;
	parent->closed = child->res;
	child->res.v = NULL;
	child->res.n = 0;
	child->res.alloc = 0;
	snprintf(parent->closed_name, sizeof(parent->closed_name), "%s", child->name);
	tap_level_free(&t->lv[t->depth - 1]);
	t->depth--;
	if (t->last_level >= t->depth)
		t->last_level = -1;
}

void tap_pop_to(struct tap *t, int indent)
{
	while (t->depth > 1 && t->lv[t->depth - 1]->indent > indent)
		tap_pop(t);
}

/* The level a structural line at this indent belongs to (pushing one when
 * it is deeper); NULL when too deep. */
struct level *tap_level_for(struct tap *t, int indent)
{
	struct level *cur;

	tap_pop_to(t, indent);
	cur = t->lv[t->depth - 1];
	if (indent <= cur->indent)
		return cur;
	if (t->depth == SUITE_MAX_TAP_DEPTH) {
		t->too_deep++;
		return NULL;
	}
	tap_flush_closed(t, cur);
	t->lv[t->depth++] = tap_level_new(indent);
	if (cur->next_name[0]) {
		snprintf(t->lv[t->depth - 1]->name, sizeof(cur->name), "%s", cur->next_name);
		cur->next_name[0] = '\0';
	}
	return t->lv[t->depth - 1];
}

void tap_add_result(struct tap *t, struct level *l, const char *name,
		    enum suite_status st, const char *msg)
{
	struct pend *p = tap_plist_add(t, &l->res, name, st, -1, msg);

	if (p) {
		t->last_level = t->depth - 1;
		t->last_idx = l->res.n - 1;
	} else {
		t->last_level = -1;
	}
}

void tap_emit(struct tap *t, struct plist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct pend *p = &l->v[i];
		suite_case_t *c = suite_result_add_case(
			t->res, p->rel, strlen(p->rel), p->status, p->dur,
			p->msg, p->msg ? strlen(p->msg) : 0);

		if (c)
			c->at = p->at;
	}
}

