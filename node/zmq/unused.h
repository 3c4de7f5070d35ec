/* Entry points of libraries libzmq's static archive names for transports
 * labmesh never uses (unused.c). */
#ifndef LABMESH_ZMQ_UNUSED_H
#define LABMESH_ZMQ_UNUSED_H

#include <stddef.h>

#define UNUSED_ENTRY_POINTS(X) \
	X(NormCreateInstance) X(NormCreateSession) X(NormDestroyInstance) \
	X(NormDestroySession) X(NormGetDescriptor) X(NormGetNextEvent) \
	X(NormGetRandomSessionId) X(NormIsUnicastAddress) X(NormNodeDelete) \
	X(NormObjectGetType) X(NormObjectGetUserData) \
	X(NormObjectSetUserData) X(NormSetCongestionControl) \
	X(NormSetDefaultSyncPolicy) X(NormSetDefaultUnicastNack) \
	X(NormSetLoopback) X(NormSetMulticastInterface) \
	X(NormSetRxPortReuse) X(NormSetTTL) X(NormStartReceiver) \
	X(NormStartSender) X(NormStopInstance) X(NormStopReceiver) \
	X(NormStopSender) X(NormStreamFlush) X(NormStreamOpen) \
	X(NormStreamRead) X(NormStreamSeekMsgStart) X(NormStreamWrite) \
	X(gss_accept_sec_context) X(gss_acquire_cred) \
	X(gss_delete_sec_context) X(gss_display_name) X(gss_import_name) \
	X(gss_init_sec_context) X(gss_release_buffer) X(gss_release_cred) \
	X(gss_release_name) X(gss_unwrap) X(gss_wrap) \
	X(pgm_bind3) X(pgm_close) X(pgm_connect) X(pgm_error_free) \
	X(pgm_free) X(pgm_freeaddrinfo) X(pgm_getaddrinfo) \
	X(pgm_getsockopt) X(pgm_gsi_create_from_data) \
	X(pgm_recvmsgv) X(pgm_send) X(pgm_setsockopt) \
	X(pgm_socket)

#define UNUSED_DECL(name) void name(void);
UNUSED_ENTRY_POINTS(UNUSED_DECL)

extern const void *const NORM_INSTANCE_INVALID;
extern const void *const NORM_SESSION_INVALID;
extern const void *const NORM_OBJECT_INVALID;
extern const void *const NORM_NODE_ANY;
extern void *GSS_C_NT_HOSTBASED_SERVICE;
extern void *GSS_C_NT_USER_NAME;
#include <stdbool.h>
bool pgm_init(void *error);
bool pgm_shutdown(void);
int sd_listen_fds(int unset_environment);
int sd_is_socket_inet(int fd, int family, int type, int listening,
		      unsigned short port);
int sd_is_socket_unix(int fd, int type, int listening, const char *path,
		      size_t length);
size_t strlcpy(char *dst, const char *src, size_t size);

#endif
