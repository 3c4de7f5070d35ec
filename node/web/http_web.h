/*
 * http_web: the dashboard's static files (node/web/), compiled into the
 * binary by node/web/embed.py at build time, so a node serves them with
 * nothing else installed. The table ends with a row whose path is NULL.
 */
#ifndef LABMESH_NODE_HTTP_WEB_H
#define LABMESH_NODE_HTTP_WEB_H

#include <stddef.h>

typedef struct {
	const char *path;	   /* "/index.html" */
	const char *type;	   /* Content-Type */
	const unsigned char *data; /* len bytes (plus a NUL) */
	size_t len;
} http_web_file_t;

extern const http_web_file_t http_web_files[];

#endif
