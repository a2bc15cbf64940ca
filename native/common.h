/* Shared helpers of the PMN native addon: argument checks, errors with errno codes, address
 * conversion, and sockets driven by libuv's poller that call back into JavaScript. */
#ifndef PMN_NATIVE_COMMON_H
#define PMN_NATIVE_COMMON_H

#define NAPI_VERSION 8
#include <node_api.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <uv.h>

/* Receive at most this many datagrams per readable event before yielding to the event loop. */
#define PMN_RECV_BATCH 64

typedef struct pmn_socket pmn_socket;
typedef void (*pmn_io_fn)(pmn_socket *socket);

/* One non-blocking socket. The JavaScript object owns it (napi_wrap); while the socket is open
 * a strong reference keeps that object alive, as Node keeps its own handles alive. */
struct pmn_socket {
  napi_env env;
  int fd;
  int family;
  uv_poll_t poll;
  int events;              /* UV_READABLE and/or UV_WRITABLE currently polled */
  bool closed;             /* close() was called (or the environment is going away) */
  bool poll_started;       /* uv_poll_init succeeded, so the handle must be uv_close()d */
  bool poll_released;      /* the uv close callback ran */
  bool finalized;          /* the JavaScript object was garbage-collected */
  napi_ref self;
  napi_ref handlers;
  napi_async_context async;
  pmn_io_fn on_readable;
  pmn_io_fn on_writable;
  unsigned char *buffer;
  size_t buffer_size;
};

/* Errors: every failing N-API call returns NULL after throwing (or leaving pending) an exception. */
napi_value pmn_throw_errno(napi_env env, const char *syscall, int err);
napi_value pmn_throw_type(napi_env env, const char *message);
napi_value pmn_errno_error(napi_env env, const char *syscall, int err);
napi_value pmn_errno_code(napi_env env, int err);

/* Arguments. */
bool pmn_arg_int(napi_env env, napi_value value, const char *name, int64_t min, int64_t max,
                 int64_t *out);
bool pmn_arg_bytes(napi_env env, napi_value value, const char *name, void **data,
                   size_t *length);
bool pmn_arg_string(napi_env env, napi_value value, const char *name, char *out,
                    size_t size);
bool pmn_arg_handler(napi_env env, napi_value handlers, const char *name);
bool pmn_option_int(napi_env env, napi_value options, const char *name, int64_t min,
                    int64_t max, int64_t *out, bool *present);

/* The arguments of the datagram socket classes: new X(family: 4 | 6, handlers: { onPacket,
 * onError }, options?: { receiveBufferSize, sendBufferSize }). */
typedef struct {
  int family; /* AF_INET or AF_INET6 */
  napi_value handlers;
  int64_t receive_size, send_size;
  bool has_receive, has_send;
} pmn_datagram_args;
bool pmn_datagram_args_parse(napi_env env, size_t argc, napi_value *argv, pmn_datagram_args *out);

/* Addresses: text ("192.0.2.1", "2001:db8::1", "fe80::1%eth0") <-> sockaddr. */
bool pmn_parse_address(napi_env env, napi_value text, uint16_t port,
                       struct sockaddr_storage *out, socklen_t *length);
bool pmn_format_ip(int family, const void *address, uint32_t scope_id, char *out,
                   size_t size);
napi_value pmn_sockaddr_value(napi_env env, const struct sockaddr *address, size_t length);

/* Values. */
napi_value pmn_string(napi_env env, const char *text);
napi_value pmn_number(napi_env env, double value);
napi_value pmn_bool(napi_env env, bool value);
bool pmn_set(napi_env env, napi_value object, const char *name, napi_value value);

/* Socket life cycle. */
pmn_socket *pmn_socket_unwrap(napi_env env, napi_callback_info info, size_t *argc,
                              napi_value *argv, napi_value *self);
bool pmn_socket_attach(napi_env env, napi_value self, napi_value handlers, pmn_socket *socket,
                       const char *resource_name);
/* Wraps fd in a new socket with a receive buffer of buffer_size and attaches it to self (the
 * constructor's this). On failure fd is closed and a JavaScript exception is pending. */
bool pmn_socket_create(napi_env env, napi_value self, napi_value handlers, int fd, int family,
                       size_t buffer_size, pmn_io_fn on_readable, pmn_io_fn on_writable,
                       const char *resource_name);
void pmn_socket_close(pmn_socket *socket);
/* The close() method of every socket class: closes once; again, or on a closed socket, it does nothing. */
napi_value pmn_socket_close_method(napi_env env, napi_callback_info info);
bool pmn_socket_set_events(pmn_socket *socket, int events);
/* Calls handlers[name](...argv); returns false if the socket was closed meanwhile or the handler
 * threw (the exception goes to process 'uncaughtException', as for any Node callback). */
bool pmn_socket_emit(pmn_socket *socket, const char *name, size_t argc, napi_value *argv);
/* Reports an errno or EBADMSG-like condition to handlers.onError. */
bool pmn_socket_emit_error(pmn_socket *socket, const char *syscall, int err);

/* The handler calls of one readable event, in one callback scope: promises and nextTicks queued by
 * the handlers run once, after the batch, as after one Node callback (so what the userland SCTP sends
 * in answer to a batch of packets leaves in one batch too). open, then call per datagram inside a
 * handle scope of the caller's, then close (always, once open succeeded). */
typedef struct {
  napi_handle_scope handles;
  napi_callback_scope scope;
  napi_value handlers;
  napi_value fn;
} pmn_emit_batch;
bool pmn_socket_batch_open(pmn_socket *socket, const char *name, pmn_emit_batch *batch);
/* Like pmn_socket_emit: false if the socket was closed meanwhile or the handler threw. */
bool pmn_socket_batch_call(pmn_socket *socket, pmn_emit_batch *batch, size_t argc, napi_value *argv);
void pmn_socket_batch_close(pmn_socket *socket, pmn_emit_batch *batch);

/* Datagrams handed to one sendmmsg call at most. */
#define PMN_SEND_BATCH 64
/* Sends count prepared datagrams (at most PMN_SEND_BATCH) with as few sendmmsg calls as the kernel
 * allows. A datagram the kernel refuses is skipped (lost, as on the wire) and the rest still go.
 * Returns 0, or the errno of the first refusal. */
int pmn_sendmmsg(int fd, struct mmsghdr *messages, unsigned count);
/* The element at index of a JavaScript array (NULL after throwing a TypeError naming it). */
napi_value pmn_element(napi_env env, napi_value array, uint32_t index, const char *name);
/* The length of a JavaScript array (false after throwing a TypeError naming it). */
bool pmn_array_length(napi_env env, napi_value array, const char *name, uint32_t *length);

#define PMN_CALL(env, call)                                                                \
  do {                                                                                     \
    if ((call) != napi_ok) return NULL;                                                    \
  } while (0)

#endif
