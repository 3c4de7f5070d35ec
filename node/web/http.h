/*
 * http: the node's dashboard server (`labmesh node --http ADDR:PORT`, or
 * node.http in the lab file). GNU libmicrohttpd runs it in one thread of
 * its own, with that thread's own read-only SQLite connection (api.h).
 * Read-only: GET and HEAD only (405 otherwise), no write endpoints.
 *
 * Serves /api/... (api.h) and the static pages compiled in from
 * node/web/ (http_web.h); "/" is /index.html.
 *
 * Caps (named below): connections in all and per client address, memory
 * per connection (which bounds the request line and headers: a longer
 * URL gets 414, larger headers 431), URL length, query parameters, an
 * idle timeout, and a request rate per client address (429 past it).
 *
 * On a loopback address only requests whose Host is a loopback name
 * (127.0.0.1, localhost, [::1] with our port) are answered (421
 * otherwise), so a page whose DNS name is rebound to 127.0.0.1 cannot
 * read the dashboard.
 *
 * Every answer carries Content-Type, Cache-Control, X-Content-Type-
 * Options: nosniff, a strict Content-Security-Policy (default-src
 * 'self'), Referrer-Policy and X-Frame-Options.
 */
#ifndef LABMESH_NODE_HTTP_H
#define LABMESH_NODE_HTTP_H

#include <stdbool.h>

#define HTTP_MAX_CONNECTIONS 256     /* open at once (file descriptors) */
/* Connections waiting for a request (half-sent, or idle between
 * requests): past either cap the oldest such connection is closed, so a
 * client holding many cannot keep a new one, from its own address or
 * another, out; the caps leave HTTP_MAX_CONNECTIONS room to spare */
#define HTTP_MAX_WAITING 32	     /* all addresses */
#define HTTP_MAX_WAITING_PER_IP 8    /* one address */
#define HTTP_CONN_MEMORY (32 * 1024) /* request line + headers */
#define HTTP_MAX_URL 4096	     /* bytes of path + query */
#define HTTP_TIMEOUT_S 15	     /* idle connection */
#define HTTP_RATE_PER_S 50	     /* requests per second per address */
#define HTTP_RATE_BURST 200	     /* ... allowed in a burst */
#define HTTP_MAX_CLIENTS 1024	     /* addresses tracked for the rate */

typedef struct http http_t;

/*
 * Parse "HOST:PORT" ("127.0.0.1:8080", "[::1]:8080", "localhost:8080").
 * 0 and whether the address is a loopback one, or -EINVAL.
 */
int http_addr_check(const char *addr, bool *ret_loopback);

/*
 * Start serving home's store on addr. A non-loopback address is refused
 * (-EPERM) unless allow_public. Returns 0 and *ret, or -errno with a
 * one-line *ret_err (caller frees).
 */
int http_new(const char *home, const char *addr, bool allow_public,
	     http_t **ret, char **ret_err);
/* Stop the server thread (waits for it) and free. */
void http_destroy(http_t **p);

#endif
