/*
 * builds: the kernel build contract's checks and the lab's build storage.
 *
 * A config spec is BASE[+FRAGMENT...]: BASE a make target of the kernel
 * ending in "config" (tinyconfig, defconfig, multi_v7_defconfig...) or a
 * name the recipe lists in its `configs`; each FRAGMENT a path in the tree
 * ending in ".config" (kernel/configs/kvm_guest.config), applied by the
 * recipe with scripts/kconfig/merge_config.sh. An empty spec is the
 * recipe's own default.
 *
 * Build storage (store.build_dir, HOME/work by default) holds git/
 * (mirrors, one per tree URL), trees/ (a kept checkout and build folder
 * per tree, arch, config and recipe), build-cache/ (finished builds) and
 * ccache/; it is kept within store.build_budget by evicting the least
 * recently used entries first.
 */
#ifndef LABMESH_NODE_BUILDS_H
#define LABMESH_NODE_BUILDS_H

#include "labs/lab.h"

#include <stddef.h>
#include <stdint.h>

#define BUILDS_MAX_FRAGMENTS 16
#define BUILDS_LOG_TAIL 12 /* build log lines an error shows */

/*
 * Whether recipe r can build config spec (NULL: the lab has no recipe for
 * arch). 0, or -EINVAL / -ENOENT with a sentence in why naming the rule.
 */
int builds_config_check(const lab_recipe_t *r, const char *arch,
			const char *spec, char *why, size_t wsz);

/* The kernel's ARCH= for a board arch (aarch64: arm64...). Borrowed. */
const char *builds_karch(const char *arch);

/* The build storage root: store.build_dir or HOME/work (caller frees). */
char *builds_root(const char *home, const lab_config_t *cfg);

/* Remove path and everything under it (no symlink followed); 0 or -errno. */
int builds_rmtree(const char *path);

/* Bytes a tree takes on disk (its blocks). */
uint64_t builds_du(const char *path);

/*
 * Evict the least recently used entries of root's git/, trees/ and
 * build-cache/ (by the mtime of each entry folder, which users touch)
 * until root holds at most budget bytes; never keep, nor a tree whose
 * lock another process holds. Returns the bytes left.
 */
uint64_t builds_evict(const char *root, uint64_t budget, const char *keep);

/* The first line of `${cross}gcc --version` (a toolchain's identity, as
 * run records carry it), plain ASCII, or NULL. Caller frees. */
char *builds_gcc_version(const char *cross);

/* Mark an entry used now (its mtime). */
void builds_touch(const char *path);

/*
 * The last lines of a log file, joined with " | ", at most max bytes;
 * with errors_first, the lines that say "error" (compiler and make
 * errors) when there are any; plain ASCII (other bytes become '?').
 * Caller frees; "" when unreadable.
 */
char *builds_log_excerpt(const char *path, int lines, size_t max,
			 bool errors_first);

#endif
