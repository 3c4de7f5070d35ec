/*
 * http_dl: GNU libmicrohttpd, loaded only when the dashboard starts.
 *
 * libmicrohttpd brings GnuTLS and its crypto stack (p11-kit, nettle, gmp,
 * libtasn1, libidn2, libunistring); linked normally they are mapped and
 * initialised in every node, about 2.5 MiB of RSS, though the dashboard
 * is off by default. This file defines the few MHD_* functions http.c
 * calls: the first MHD_start_daemon dlopen()s the library, each call
 * forwards to the symbol found there. The node runs without the library
 * installed as long as --http is not asked for.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <microhttpd.h>

#define HTTP_DL_SONAME "libmicrohttpd.so.12" /* Debian bookworm's ABI */

static void *s_lib;

/* The symbol name from the library, or NULL when it cannot be loaded. */
static void *s_sym(const char *name)
{
	if (!s_lib)
		s_lib = dlopen(HTTP_DL_SONAME, RTLD_NOW | RTLD_LOCAL);
	return s_lib ? dlsym(s_lib, name) : NULL;
}

struct MHD_Daemon *MHD_start_daemon(unsigned int flags, uint16_t port,
				    MHD_AcceptPolicyCallback apc,
				    void *apc_cls, MHD_AccessHandlerCallback dh,
				    void *dh_cls, ...)
{
	struct MHD_Daemon *(*fn)(unsigned int, uint16_t,
				 MHD_AcceptPolicyCallback, void *,
				 MHD_AccessHandlerCallback, void *, va_list);
	struct MHD_Daemon *d;
	va_list ap;

	*(void **)&fn = s_sym("MHD_start_daemon_va");
	if (!fn)
		return NULL;
	va_start(ap, dh_cls);
	d = fn(flags, port, apc, apc_cls, dh, dh_cls, ap);
	va_end(ap);
	return d;
}

void MHD_stop_daemon(struct MHD_Daemon *daemon)
{
	void (*fn)(struct MHD_Daemon *);

	*(void **)&fn = s_sym("MHD_stop_daemon");
	if (fn)
		fn(daemon);
}

const char *MHD_lookup_connection_value(struct MHD_Connection *connection,
					enum MHD_ValueKind kind,
					const char *key)
{
	const char *(*fn)(struct MHD_Connection *, enum MHD_ValueKind,
			  const char *);

	*(void **)&fn = s_sym("MHD_lookup_connection_value");
	return fn ? fn(connection, kind, key) : NULL;
}

int MHD_get_connection_values(struct MHD_Connection *connection,
			      enum MHD_ValueKind kind,
			      MHD_KeyValueIterator iterator, void *iterator_cls)
{
	int (*fn)(struct MHD_Connection *, enum MHD_ValueKind,
		  MHD_KeyValueIterator, void *);

	*(void **)&fn = s_sym("MHD_get_connection_values");
	return fn ? fn(connection, kind, iterator, iterator_cls) : -1;
}

void MHD_destroy_response(struct MHD_Response *response)
{
	void (*fn)(struct MHD_Response *);

	*(void **)&fn = s_sym("MHD_destroy_response");
	if (fn)
		fn(response);
}

enum MHD_Result MHD_queue_response(struct MHD_Connection *connection,
				   unsigned int status_code,
				   struct MHD_Response *response)
{
	enum MHD_Result (*fn)(struct MHD_Connection *, unsigned int,
			      struct MHD_Response *);

	*(void **)&fn = s_sym("MHD_queue_response");
	return fn ? fn(connection, status_code, response) : MHD_NO;
}

enum MHD_Result MHD_add_response_header(struct MHD_Response *response,
					const char *header,
					const char *content)
{
	enum MHD_Result (*fn)(struct MHD_Response *, const char *,
			      const char *);

	*(void **)&fn = s_sym("MHD_add_response_header");
	return fn ? fn(response, header, content) : MHD_NO;
}

struct MHD_Response *MHD_create_response_from_buffer(size_t size,
						     void *buffer,
						     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *(*fn)(size_t, void *,
				   enum MHD_ResponseMemoryMode);

	*(void **)&fn = s_sym("MHD_create_response_from_buffer");
	return fn ? fn(size, buffer, mode) : NULL;
}

/* http.c asks only for MHD_CONNECTION_INFO_CLIENT_ADDRESS, which takes no
 * further argument. */
const union MHD_ConnectionInfo *
MHD_get_connection_info(struct MHD_Connection *connection,
			enum MHD_ConnectionInfoType info_type, ...)
{
	const union MHD_ConnectionInfo *(*fn)(struct MHD_Connection *,
					      enum MHD_ConnectionInfoType,
					      ...);

	/* the kinds http.c asks for, none of which takes more arguments */
	if (info_type != MHD_CONNECTION_INFO_CLIENT_ADDRESS &&
	    info_type != MHD_CONNECTION_INFO_CONNECTION_FD &&
	    info_type != MHD_CONNECTION_INFO_SOCKET_CONTEXT)
		return NULL;
	*(void **)&fn = s_sym("MHD_get_connection_info");
	return fn ? fn(connection, info_type) : NULL;
}
