/*
 * http: the dashboard's HTTP layer over GNU libmicrohttpd. Laid out as:
 * the address check, the per-address rate limiter, answers and their
 * headers, the request handler (method -> caps -> /api or a static
 * page), and the server's start and stop.
 *
 * libmicrohttpd runs one internal polling thread and calls the handler
 * only from it, so the rate table and the api (with its SQLite
 * connection) are touched by that one thread alone: no locks.
 */
#include "node/web/http.h"
#include "node/web/api.h"
#include "node/web/http_web.h"

#include "proto/log.h"
#include "proto/mem.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define HTTP_CSP                                                               \
	"default-src 'self'; script-src 'self'; style-src 'self';"             \
	" img-src 'self' data:; connect-src 'self'; object-src"                \
	" 'none'; base-uri 'none'; form-action 'self';"                        \
	" frame-ancestors 'none'"

typedef struct {
	uint8_t addr[16];
	int family;
	double tokens;
	int64_t last_ms;
} s_client_t;

/* One TCP connection: waiting for a request, or being answered. */
typedef struct s_conn {
	struct s_conn *prev, *next; /* oldest first */
	struct MHD_Connection *c;
	uint8_t addr[16];
	int family;
	bool waiting;
	bool partial; /* waiting with its request line in, headers not */
	bool closing; /* shut down, MHD not done with it yet */
} s_conn_t;

struct http {
	struct MHD_Daemon *daemon;
	api_t *api;
	char *home;
	s_client_t *clients; /* HTTP_MAX_CLIENTS */
	size_t n_clients;
	char *addr;    /* as given: HOST:PORT */
	char *port;    /* its port, for the loopback Host names */
	bool loopback; /* Host headers are checked (DNS rebinding) */
	s_conn_t *head, *tail; /* open connections */
	size_t n_waiting;
};

/* ---- the address ---- */

static int s_split(const char *addr, char *host, size_t hostsz,
		   const char **ret_port)
{
	const char *colon, *h = addr;
	size_t n;

	if (addr[0] == '[') {
		const char *end = strchr(addr, ']');

		if (!end || end[1] != ':')
			return -EINVAL;
		h = addr + 1;
		n = (size_t)(end - h);
		colon = end + 1;
	} else {
		colon = strrchr(addr, ':');
		if (!colon)
			return -EINVAL;
		n = (size_t)(colon - addr);
	}
	if (n == 0 || n >= hostsz || !colon[1] || strlen(colon + 1) > 5)
		return -EINVAL;
	memcpy(host, h, n);
	host[n] = '\0';
	*ret_port = colon + 1;
	return 0;
}

static int s_resolve(const char *addr, struct sockaddr_storage *ss,
		     socklen_t *sslen)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_NUMERICSERV};
	struct addrinfo *res = NULL;
	char host[256];
	const char *port;
	char *end;
	long p;

	if (s_split(addr, host, sizeof(host), &port) < 0)
		return -EINVAL;
	p = strtol(port, &end, 10);
	if (*end || p < 1 || p > 65535)
		return -EINVAL;
	if (getaddrinfo(host, port, &hints, &res) != 0 || !res)
		return -EINVAL;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*sslen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static bool s_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)ss;

		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)ss;

		return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
	}
	return false;
}

int http_addr_check(const char *addr, bool *ret_loopback)
{
	struct sockaddr_storage ss;
	socklen_t len;

	if (!addr || s_resolve(addr, &ss, &len) < 0)
		return -EINVAL;
	*ret_loopback = s_loopback(&ss);
	return 0;
}

/* ---- the rate per client address (a token bucket each) ---- */

static int64_t s_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static s_client_t *s_client(http_t *h, const struct sockaddr *sa, int64_t now)
{
	const struct sockaddr_in *in4 = (const void *)sa;
	const struct sockaddr_in6 *in6 = (const void *)sa;
	uint8_t key[16] = {0};
	size_t oldest = 0;

	if (sa->sa_family == AF_INET)
		memcpy(key, &in4->sin_addr, 4);
	else if (sa->sa_family == AF_INET6)
		memcpy(key, &in6->sin6_addr, 16);
	for (size_t i = 0; i < h->n_clients; i++) {
		s_client_t *c = &h->clients[i];

		if (c->family == sa->sa_family && !memcmp(c->addr, key, 16))
			return c;
		if (c->last_ms < h->clients[oldest].last_ms)
			oldest = i;
	}
	/* full: the address seen least recently makes room */
	if (h->n_clients < HTTP_MAX_CLIENTS)
		oldest = h->n_clients++;
	h->clients[oldest] = (s_client_t){.family = sa->sa_family,
					  .tokens = HTTP_RATE_BURST,
					  .last_ms = now};
	memcpy(h->clients[oldest].addr, key, 16);
	return &h->clients[oldest];
}

static bool s_rate_ok(http_t *h, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	int64_t now = s_mono_ms();
	s_client_t *c;

	if (!ci || !ci->client_addr)
		return false;
	c = s_client(h, ci->client_addr, now);
	c->tokens += (double)(now - c->last_ms) * HTTP_RATE_PER_S / 1000.0;
	if (c->tokens > HTTP_RATE_BURST)
		c->tokens = HTTP_RATE_BURST;
	c->last_ms = now;
	if (c->tokens < 1.0)
		return false;
	c->tokens -= 1.0;
	return true;
}

/* ---- connections waiting for a request ---- */

static void s_addr_key(const struct sockaddr *sa, uint8_t key[16])
{
	memset(key, 0, 16);
	if (sa->sa_family == AF_INET)
		memcpy(key, &((const struct sockaddr_in *)(const void *)sa)
				       ->sin_addr, 4);
	else if (sa->sa_family == AF_INET6)
		memcpy(key, &((const struct sockaddr_in6 *)(const void *)sa)
				       ->sin6_addr, 16);
}

static void s_unlink(http_t *h, s_conn_t *sc)
{
	if (sc->prev)
		sc->prev->next = sc->next;
	else
		h->head = sc->next;
	if (sc->next)
		sc->next->prev = sc->prev;
	else
		h->tail = sc->prev;
	sc->prev = sc->next = NULL;
}

static void s_append(http_t *h, s_conn_t *sc)
{
	sc->prev = h->tail;
	if (h->tail)
		h->tail->next = sc;
	else
		h->head = sc;
	h->tail = sc;
}

static void s_set_waiting(http_t *h, s_conn_t *sc, bool waiting)
{
	if (sc->waiting == waiting)
		return;
	sc->waiting = waiting;
	sc->partial = false;
	if (waiting) {
		h->n_waiting++;
		s_unlink(h, sc); /* the newest waiting, last to be closed */
		s_append(h, sc);
	} else {
		h->n_waiting--;
	}
}

/* Close sc now: MHD sees the shut-down socket on its next poll and frees
 * the connection (the descriptor stays MHD's to close). */
static void s_close(http_t *h, s_conn_t *sc)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		sc->c, MHD_CONNECTION_INFO_CONNECTION_FD);

	if (ci)
		shutdown(ci->connect_fd, SHUT_RDWR);
	sc->closing = true;
	s_set_waiting(h, sc, false);
}

/* The connection to close for new, of its address or of any: a half-sent
 * request first, oldest first; one that has sent nothing yet only when
 * none is half-sent. MHD parses a request that arrives whole at once, so
 * an honest request is never seen half-sent; one in flight is seen as
 * having sent nothing, and the half-sent ones go before it. */
static s_conn_t *s_victim(http_t *h, const s_conn_t *new, bool same_addr)
{
	s_conn_t *fresh = NULL;

	for (s_conn_t *sc = h->head; sc; sc = sc->next) {
		if (!sc->waiting || sc == new)
			continue;
		if (same_addr && (sc->family != new->family ||
				  memcmp(sc->addr, new->addr, 16)))
			continue;
		if (sc->partial)
			return sc;
		if (!fresh)
			fresh = sc;
	}
	return fresh;
}

/* Over a cap: a waiting connection (of that address when the address is
 * over its own) makes room. */
static void s_make_room(http_t *h, const s_conn_t *new)
{
	size_t same = 0;
	s_conn_t *victim;

	for (s_conn_t *sc = h->head; sc; sc = sc->next)
		if (sc->waiting && sc->family == new->family &&
		    !memcmp(sc->addr, new->addr, 16))
			same++;
	if (same > HTTP_MAX_WAITING_PER_IP &&
	    (victim = s_victim(h, new, true))) {
		s_close(h, victim);
		return;
	}
	if (h->n_waiting > HTTP_MAX_WAITING && (victim = s_victim(h, new, false)))
		s_close(h, victim);
}

static void s_on_connection(void *cls, struct MHD_Connection *c,
			    void **socket_context,
			    enum MHD_ConnectionNotificationCode toe)
{
	http_t *h = cls;
	s_conn_t *sc = *socket_context;
	const union MHD_ConnectionInfo *ci;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (sc) {
			s_set_waiting(h, sc, false);
			s_unlink(h, sc);
			free(sc);
		}
		*socket_context = NULL;
		return;
	}
	sc = xzalloc(sizeof(*sc));
	sc->c = c;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (ci && ci->client_addr) {
		sc->family = ci->client_addr->sa_family;
		s_addr_key(ci->client_addr, sc->addr);
	}
	s_append(h, sc);
	s_set_waiting(h, sc, true);
	*socket_context = sc;
	s_make_room(h, sc);
}

/* A request's headers are in: it no longer waits. */
static void s_request_started(http_t *h, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	if (ci && ci->socket_context)
		s_set_waiting(h, ci->socket_context, false);
}

/* Answered: a kept-alive connection waits for its next request. */
static void s_request_done(void *cls, struct MHD_Connection *c,
			   void **con_cls, enum MHD_RequestTerminationCode toe)
{
	http_t *h = cls;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	s_conn_t *sc = ci ? ci->socket_context : NULL;

	if (sc && !sc->closing && toe == MHD_REQUEST_TERMINATED_COMPLETED_OK) {
		s_set_waiting(h, sc, true);
		s_make_room(h, sc);
	}
}

/* ---- answers ---- */

static enum MHD_Result s_send(struct MHD_Connection *conn, int status,
			      const char *type, void *body, size_t len,
			      bool owned, const char *cache)
{
	struct MHD_Response *r;
	enum MHD_Result ok;

	r = MHD_create_response_from_buffer(len, body,
					    owned ? MHD_RESPMEM_MUST_FREE
						  : MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (owned)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, cache);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Content-Security-Policy", HTTP_CSP);
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (status == MHD_HTTP_TOO_MANY_REQUESTS)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	ok = MHD_queue_response(conn, (unsigned int)status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result s_send_error(struct MHD_Connection *conn, int status,
				    const char *msg)
{
	api_reply_t rep;

	api_error(&rep, status, msg);
	return s_send(conn, rep.status, rep.type, rep.body, rep.len, true,
		      "no-store");
}

/* ---- requests ---- */

typedef struct {
	api_param_t p[API_MAX_PARAMS];
	size_t n;
	bool too_many;
} s_args_t;

static enum MHD_Result s_arg(void *cls, enum MHD_ValueKind kind,
			     const char *key, const char *value)
{
	s_args_t *a = cls;

	if (a->n == API_MAX_PARAMS) {
		a->too_many = true;
		return MHD_NO;
	}
	a->p[a->n++] = (api_param_t){key, value ? value : ""};
	return MHD_YES;
}

static enum MHD_Result s_static(struct MHD_Connection *conn, const char *url)
{
	if (!strcmp(url, "/"))
		url = "/index.html";
	for (const http_web_file_t *f = http_web_files; f->path; f++)
		if (!strcmp(f->path, url))
			return s_send(conn, MHD_HTTP_OK, f->type,
				      (void *)f->data, f->len, false,
				      "no-cache");
	return s_send_error(conn, MHD_HTTP_NOT_FOUND, "no such page");
}

static enum MHD_Result s_api(http_t *h, struct MHD_Connection *conn,
			     const char *url)
{
	s_args_t args = {.n = 0};
	api_reply_t rep;

	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, s_arg, &args);
	if (args.too_many)
		return s_send_error(conn, MHD_HTTP_BAD_REQUEST,
				    "too many parameters");
	if (api_handle(h->api, url, args.p, args.n, &rep) < 0)
		return s_send_error(conn, MHD_HTTP_NOT_FOUND,
				    "no such endpoint");
	return s_send(conn, rep.status, rep.type, rep.body, rep.len, true,
		      "no-store");
}

/*
 * A loopback server answers only requests addressed to a loopback name:
 * a web page whose DNS name is rebound to 127.0.0.1 would otherwise read
 * the dashboard as if it were its own origin.
 */
static bool s_host_ok(const http_t *h, struct MHD_Connection *conn)
{
	static const char *const names[] = {"127.0.0.1", "localhost", "[::1]"};
	const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						       MHD_HTTP_HEADER_HOST);
	size_t n;

	if (!h->loopback)
		return true;
	if (!host)
		return false;
	if (!strcmp(host, h->addr))
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		n = strlen(names[i]);
		if (!strncmp(host, names[i], n) && host[n] == ':' &&
		    !strcmp(host + n + 1, h->port))
			return true;
	}
	return false;
}

static enum MHD_Result s_handle(void *cls, struct MHD_Connection *conn,
				const char *url, const char *method,
				const char *version, const char *upload_data,
				size_t *upload_data_size, void **con_cls)
{
	http_t *h = cls;
	uintptr_t uri_len = (uintptr_t)*con_cls;

	s_request_started(h, conn);
	/* answered at once, body or not: nothing here reads a body */
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return s_send_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				    "read-only: GET and HEAD only");
	if (*upload_data_size)
		return s_send_error(conn, MHD_HTTP_BAD_REQUEST,
				    "no request body here");
	if (!s_rate_ok(h, conn))
		return s_send_error(conn, MHD_HTTP_TOO_MANY_REQUESTS,
				    "too many requests: slow down");
	if (uri_len == 0 || uri_len - 1 > HTTP_MAX_URL)
		return s_send_error(conn, MHD_HTTP_URI_TOO_LONG,
				    "URL too long");
	if (!s_host_ok(h, conn))
		return s_send_error(conn, MHD_HTTP_MISDIRECTED_REQUEST,
				    "unexpected Host");
	if (!strncmp(url, "/api/", 5))
		return s_api(h, conn, url);
	return s_static(conn, url);
}

/* The raw request URI, before anything else: keep its length. */
static void *s_uri_log(void *cls, const char *uri, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	s_conn_t *sc = ci ? ci->socket_context : NULL;

	/* the request line is in; until the handler runs, it is half-sent */
	if (sc && sc->waiting)
		sc->partial = true;
	return (void *)(uintptr_t)(strnlen(uri, HTTP_MAX_URL + 1) + 1);
}

static void s_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char line[256];

	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	log_debug("libmicrohttpd: %s", line);
}

/* ---- start and stop ---- */

static int s_fail(char **ret_err, int rc, const char *fmt, const char *arg)
{
	*ret_err = xasprintf(fmt, arg);
	return rc;
}

int http_new(const char *home, const char *addr, bool allow_public,
	     http_t **ret, char **ret_err)
{
	struct sockaddr_storage ss;
	socklen_t sslen;
	sigset_t block, old;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
			     MHD_USE_ERROR_LOG;
	http_t *h;

	if (s_resolve(addr, &ss, &sslen) < 0)
		return s_fail(ret_err, -EINVAL,
			      "--http '%.200s': give HOST:PORT", addr);
	if (!s_loopback(&ss) && !allow_public)
		return s_fail(ret_err, -EPERM,
			      "--http '%.200s' is not a loopback address: set"
			      " node.http in the lab file to serve it",
			      addr);
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h = xzalloc(sizeof(*h));
	h->home = xstrdup(home);
	h->api = api_new(h->home);
	h->clients = xcalloc(HTTP_MAX_CLIENTS, sizeof(*h->clients));
	h->addr = xstrdup(addr);
	h->port = xstrdup(strrchr(addr, ':') + 1);
	h->loopback = s_loopback(&ss);
	/* the server thread inherits this mask: SIGINT/SIGTERM go to the
	 * node's loop, which stops on them, never to the server thread */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	/* clang-format off */
	h->daemon = MHD_start_daemon(flags, 0, NULL, NULL, s_handle, h,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_CONNECTIONS,
		MHD_OPTION_NOTIFY_CONNECTION, s_on_connection, h,
		MHD_OPTION_NOTIFY_COMPLETED, s_request_done, h,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_CONN_MEMORY,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTP_TIMEOUT_S,
		MHD_OPTION_URI_LOG_CALLBACK, s_uri_log, h,
		MHD_OPTION_EXTERNAL_LOGGER, s_mhd_log, h,
		MHD_OPTION_END);
	/* clang-format on */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!h->daemon) {
		http_destroy(&h);
		return s_fail(ret_err, -EADDRINUSE,
			      "cannot serve on '%.200s' (address in use?)",
			      addr);
	}
	log_info("dashboard on http://%s/", addr);
	*ret = h;
	return 0;
}

void http_destroy(http_t **p)
{
	http_t *h = *p;

	if (!h)
		return;
	if (h->daemon)
		MHD_stop_daemon(h->daemon);
	api_destroy(&h->api);
	free(h->clients);
	free(h->addr);
	free(h->port);
	free(h->home);
	free(h);
	*p = NULL;
}
