/*
 * cpio: a folder as a cpio archive in the "newc" format the kernel
 * unpacks into its initramfs, so that what a build shipped (its
 * selftests) is on a board the lab boots from the start, with nothing
 * copied over a console.
 */
#ifndef LABMESH_NODE_CPIO_H
#define LABMESH_NODE_CPIO_H

#define CPIO_MAX_ENTRIES 65536	      /* files, folders and links */
#define CPIO_MAX_BYTES (1024LL << 20) /* 1 GiB in all */
#define CPIO_MAX_DEPTH 32	      /* folders within folders */

/*
 * Write the archive of folder dir to out (replaced whole, or not at all):
 * every file, folder and symbolic link below dir under prefix (a relative
 * path, its folders made too: "opt/labmesh/kselftest"), owned by root,
 * mode bits kept, times zero, in name order so the same folder makes the
 * same bytes. The folder is what a build from a submitted tree left: links
 * are archived as links, never followed. 0, or -errno (-E2BIG past the
 * caps above; -EINVAL for a file of another type, a device or a fifo).
 */
int cpio_pack_dir(const char *dir, const char *prefix, const char *out);

/*
 * Write first followed by second to out, first padded with zero bytes to
 * a multiple of 4 (the kernel reads concatenated archives, each on a
 * 4-byte boundary, skipping zeros between them). 0 or -errno.
 */
int cpio_concat(const char *first, const char *second, const char *out);

#endif
