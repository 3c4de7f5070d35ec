/*
 * jobs_prebuilt: build once, boot everywhere. Before a git job builds, the
 * lab looks in the results index for a run record of a builder its policy
 * trusts (policy.builds_from) that built the same tree, commit, config
 * and arch with the toolchain of this lab's recipe (the run's compiler
 * line equals `${cross}gcc --version` here). Such a record names the
 * image blobs: the job fetches them like an artifact's and the executor
 * boots that image instead of building (it reads D/prebuilt, written by
 * jobs_prebuilt_write), saying whose build it booted.
 */
#include "node/jobs/builds.h"
#include "node/jobs/jobs_int.h"
#include "node/results/results.h"

#include "proto/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
	jobs_slot_t *s;
	const char *compiler;
	const lab_config_t *cfg;
	sqlite3 *db;
} s_find_t;

static int s_take(void *arg, uint64_t seq, const uint8_t *bytes, size_t len)
{
	s_find_t *f = arg;
	record_t *r = NULL;
	const run_kernel_t *k;

	(void)seq;
	if (f->s->has_pre || wire_record_decode(bytes, len, &r) < 0)
		return 0;
	k = &r->run.kernel;
	if (r->head.kind == RECORD_RUN && k->build == BUILD_PASS &&
	    k->has_kernel_blob && strcmp(k->compiler, f->compiler) == 0) {
		f->s->has_pre = true;
		memcpy(f->s->pre_kernel, k->kernel_blob, 32);
		f->s->pre_has_initrd = k->has_initrd_blob;
		memcpy(f->s->pre_initrd, k->initrd_blob, 32);
		snprintf(f->s->pre_lab, sizeof(f->s->pre_lab), "%s", r->run.lab);
		proto_hex(r->head.id, 32, f->s->pre_run);
		snprintf(f->s->pre_compiler, sizeof(f->s->pre_compiler), "%s",
			 k->compiler);
	}
	record_destroy(&r);
	return 0;
}

static bool s_trusted(const lab_config_t *cfg, const uint8_t *author)
{
	char hex[65];

	if (cfg->builds_from_any)
		return true;
	proto_hex(author, 32, hex);
	for (size_t i = 0; i < cfg->n_builds_from; i++)
		if (strcasecmp(cfg->builds_from[i], hex) == 0)
			return true;
	return false;
}

/* One passed build of the kernel asked for: taken when a trusted lab
 * built it with our toolchain; stops the walk once one is taken. */
static int s_consider(void *arg, const uint8_t *run_id, const uint8_t *author)
{
	s_find_t *f = arg;
	char hex[65];

	if (!s_trusted(f->cfg, author))
		return 0;
	proto_hex(run_id, 32, hex);
	store_db_find_record(f->db, RECORD_RUN, hex, s_take, f);
	return f->s->has_pre;
}

static const lab_recipe_t *s_recipe(const lab_config_t *cfg, const char *arch)
{
	for (size_t i = 0; i < cfg->n_recipes; i++)
		if (strcmp(cfg->recipes[i].arch, arch) == 0)
			return &cfg->recipes[i];
	return NULL;
}

void jobs_prebuilt_find(jobs_t *j, size_t bi, const request_t *req)
{
	const lab_config_t *cfg = j->ctx.cfg;
	const lab_board_t *b = &cfg->boards[bi];
	const request_kernel_t *k = &req->kernel;
	jobs_slot_t *s = &j->slots[bi];
	const lab_recipe_t *r = s_recipe(cfg, b->arch);
	s_find_t f = { .s = s };
	char *compiler;

	s->pre_checked = true;
	s->has_pre = false;
	if (k->type != REQUEST_KERNEL_GIT || !j->store_db || !r ||
	    (!cfg->builds_from_any && !cfg->n_builds_from))
		return;
	compiler = builds_gcc_version(r->cross_compile);
	if (!compiler)
		return;
	f.compiler = compiler;
	f.cfg = cfg;
	f.db = j->store_db;
	(void)results_passed_builds(j->store_db, k->url, k->commit, k->config,
				    b->arch, j->ctx.node_id, s_consider, &f);
	free(compiler);
}

int jobs_prebuilt_write(const jobs_slot_t *s, const char *dir)
{
	char *path = xasprintf("%s/prebuilt", dir), k[65], i[65];
	FILE *f = fopen(path, "we");
	int rc = 0;

	free(path);
	if (!f)
		return -EIO;
	proto_hex(s->pre_kernel, 32, k);
	proto_hex(s->pre_initrd, 32, i);
	fprintf(f, "kernel %s\ninitrd %s\nlab %s\nrun %s\ncompiler %s\n", k,
		s->pre_has_initrd ? i : "-", s->pre_lab, s->pre_run,
		s->pre_compiler);
	if (fclose(f) != 0)
		rc = -EIO;
	return rc;
}
