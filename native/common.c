/* Shared helpers of the PMN native addon (see common.h). */
#include "common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

napi_value pmn_errno_code(napi_env env, int err) {
  return pmn_string(env, uv_err_name(-err));
}

/* A Node-style system error: message "<syscall> <CODE>: <text>", with code, errno and syscall. */
napi_value pmn_errno_error(napi_env env, const char *syscall, int err) {
  char message[256];
  snprintf(message, sizeof message, "%s %s: %s", syscall, uv_err_name(-err), strerror(err));
  napi_value code = pmn_errno_code(env, err);
  napi_value text = pmn_string(env, message);
  napi_value error;
  if (code == NULL || text == NULL || napi_create_error(env, code, text, &error) != napi_ok)
    return NULL;
  if (!pmn_set(env, error, "errno", pmn_number(env, -err)) ||
      !pmn_set(env, error, "syscall", pmn_string(env, syscall)))
    return NULL;
  return error;
}

napi_value pmn_throw_errno(napi_env env, const char *syscall, int err) {
  napi_value error = pmn_errno_error(env, syscall, err);
  if (error != NULL) napi_throw(env, error);
  return NULL;
}

napi_value pmn_throw_type(napi_env env, const char *message) {
  napi_throw_type_error(env, "ERR_INVALID_ARG_VALUE", message);
  return NULL;
}

napi_value pmn_string(napi_env env, const char *text) {
  napi_value value;
  return napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &value) == napi_ok ? value : NULL;
}

napi_value pmn_number(napi_env env, double number) {
  napi_value value;
  return napi_create_double(env, number, &value) == napi_ok ? value : NULL;
}

napi_value pmn_bool(napi_env env, bool flag) {
  napi_value value;
  return napi_get_boolean(env, flag, &value) == napi_ok ? value : NULL;
}

bool pmn_set(napi_env env, napi_value object, const char *name, napi_value value) {
  return value != NULL && napi_set_named_property(env, object, name, value) == napi_ok;
}

bool pmn_arg_int(napi_env env, napi_value value, const char *name, int64_t min, int64_t max,
                 int64_t *out) {
  char message[160];
  double number;
  if (value == NULL || napi_get_value_double(env, value, &number) != napi_ok ||
      number != (double)(int64_t)number || number < (double)min || number > (double)max) {
    snprintf(message, sizeof message, "%s must be an integer from %lld to %lld", name,
             (long long)min, (long long)max);
    napi_value pending;
    napi_get_and_clear_last_exception(env, &pending);
    pmn_throw_type(env, message);
    return false;
  }
  *out = (int64_t)number;
  return true;
}

bool pmn_arg_bytes(napi_env env, napi_value value, const char *name, void **data,
                   size_t *length) {
  bool is_typed = false;
  napi_typedarray_type type;
  char message[160];
  if (value != NULL && napi_is_typedarray(env, value, &is_typed) == napi_ok && is_typed &&
      napi_get_typedarray_info(env, value, &type, length, data, NULL, NULL) == napi_ok &&
      type == napi_uint8_array)
    return true;
  snprintf(message, sizeof message, "%s must be a Uint8Array", name);
  pmn_throw_type(env, message);
  return false;
}

bool pmn_arg_string(napi_env env, napi_value value, const char *name, char *out, size_t size) {
  size_t length;
  char message[160];
  if (value != NULL &&
      napi_get_value_string_utf8(env, value, out, size, &length) == napi_ok &&
      length + 1 < size)
    return true;
  snprintf(message, sizeof message, "%s must be a string of fewer than %zu bytes", name, size - 1);
  napi_value pending;
  napi_get_and_clear_last_exception(env, &pending);
  pmn_throw_type(env, message);
  return false;
}

bool pmn_arg_handler(napi_env env, napi_value handlers, const char *name) {
  napi_value fn;
  napi_valuetype type = napi_undefined;
  char message[160];
  if (napi_get_named_property(env, handlers, name, &fn) == napi_ok &&
      napi_typeof(env, fn, &type) == napi_ok && type == napi_function)
    return true;
  snprintf(message, sizeof message, "handlers.%s must be a function", name);
  napi_value pending;
  napi_get_and_clear_last_exception(env, &pending);
  pmn_throw_type(env, message);
  return false;
}

bool pmn_option_int(napi_env env, napi_value options, const char *name, int64_t min,
                    int64_t max, int64_t *out, bool *present) {
  napi_value value;
  napi_valuetype type;
  *present = false;
  if (napi_typeof(env, options, &type) != napi_ok) return false;
  if (type == napi_undefined) return true;
  if (type != napi_object) {
    pmn_throw_type(env, "options must be an object");
    return false;
  }
  if (napi_get_named_property(env, options, name, &value) != napi_ok ||
      napi_typeof(env, value, &type) != napi_ok)
    return false;
  if (type == napi_undefined) return true;
  char label[64];
  snprintf(label, sizeof label, "options.%s", name);
  if (!pmn_arg_int(env, value, label, min, max, out)) return false;
  *present = true;
  return true;
}

bool pmn_parse_address(napi_env env, napi_value text, uint16_t port,
                       struct sockaddr_storage *out, socklen_t *length) {
  char address[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
  if (!pmn_arg_string(env, text, "address", address, sizeof address)) return false;
  memset(out, 0, sizeof *out);
  struct sockaddr_in *v4 = (struct sockaddr_in *)out;
  if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    *length = sizeof *v4;
    return true;
  }
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)out;
  char *zone = strchr(address, '%');
  if (zone != NULL) *zone++ = '\0';
  if (inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    if (zone != NULL) {
      unsigned int index = if_nametoindex(zone);
      char *end;
      if (index == 0) index = (unsigned int)strtoul(zone, &end, 10);
      if (index == 0) {
        pmn_throw_type(env, "address has an unknown IPv6 zone");
        return false;
      }
      v6->sin6_scope_id = index;
    }
    *length = sizeof *v6;
    return true;
  }
  pmn_throw_type(env, "address must be an IPv4 or IPv6 address");
  return false;
}

bool pmn_format_ip(int family, const void *address, uint32_t scope_id, char *out, size_t size) {
  if (inet_ntop(family, address, out, (socklen_t)size) == NULL) return false;
  if (family == AF_INET6 && scope_id != 0) {
    char name[IF_NAMESIZE];
    size_t used = strlen(out);
    if (if_indextoname(scope_id, name) != NULL)
      snprintf(out + used, size - used, "%%%s", name);
    else
      snprintf(out + used, size - used, "%%%u", scope_id);
  }
  return true;
}

/* { address, port } for an IPv4 or IPv6 socket address; null for anything else. */
napi_value pmn_sockaddr_value(napi_env env, const struct sockaddr *address, size_t length) {
  char text[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
  uint16_t port;
  bool ok = false;
  if (length >= sizeof(struct sockaddr_in) && address->sa_family == AF_INET) {
    const struct sockaddr_in *v4 = (const struct sockaddr_in *)address;
    ok = pmn_format_ip(AF_INET, &v4->sin_addr, 0, text, sizeof text);
    port = ntohs(v4->sin_port);
  } else if (length >= sizeof(struct sockaddr_in6) && address->sa_family == AF_INET6) {
    const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)address;
    /* A zone only means something for link-local addresses (Linux also sets it for ::1). */
    uint32_t scope = IN6_IS_ADDR_LINKLOCAL(&v6->sin6_addr) ? v6->sin6_scope_id : 0;
    ok = pmn_format_ip(AF_INET6, &v6->sin6_addr, scope, text, sizeof text);
    port = ntohs(v6->sin6_port);
  }
  napi_value value;
  if (!ok) {
    if (napi_get_null(env, &value) != napi_ok) return NULL;
    return value;
  }
  if (napi_create_object(env, &value) != napi_ok ||
      !pmn_set(env, value, "address", pmn_string(env, text)) ||
      !pmn_set(env, value, "port", pmn_number(env, port)))
    return NULL;
  return value;
}

/* ---- socket life cycle ---------------------------------------------------------------- */

static void pmn_socket_free(pmn_socket *socket) {
  free(socket->buffer);
  free(socket);
}

static void on_poll_closed(uv_handle_t *handle) {
  pmn_socket *socket = handle->data;
  socket->poll_released = true;
  /* Finalized first: the environment is being torn down, so N-API must not be called. */
  if (socket->finalized) {
    pmn_socket_free(socket);
    return;
  }
  napi_env env = socket->env;
  if (socket->async != NULL) napi_async_destroy(env, socket->async);
  socket->async = NULL;
  if (socket->handlers != NULL) napi_delete_reference(env, socket->handlers);
  socket->handlers = NULL;
  if (socket->self != NULL) napi_delete_reference(env, socket->self);
  socket->self = NULL;
}

static void on_poll(uv_poll_t *handle, int status, int events) {
  pmn_socket *socket = handle->data;
  if (socket->closed) return;
  if (status < 0) {
    pmn_socket_emit_error(socket, "poll", -status);
    return;
  }
  if ((events & UV_WRITABLE) && socket->on_writable != NULL) {
    pmn_socket_set_events(socket, socket->events & ~UV_WRITABLE);
    socket->on_writable(socket);
  }
  if ((events & UV_READABLE) && !socket->closed) socket->on_readable(socket);
}

static void on_env_cleanup(void *data) { pmn_socket_close(data); }

static void on_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  pmn_socket *socket = data;
  socket->finalized = true;
  /* The environment is going away with the socket open: release it here. */
  pmn_socket_close(socket);
  if (!socket->poll_started || socket->poll_released) pmn_socket_free(socket);
}

bool pmn_datagram_args_parse(napi_env env, size_t argc, napi_value *argv, pmn_datagram_args *out) {
  int64_t version;
  napi_value options = argc > 2 ? argv[2] : NULL;
  if (!pmn_arg_int(env, argc > 0 ? argv[0] : NULL, "family", 4, 6, &version)) return false;
  if (version == 5) {
    pmn_throw_type(env, "family must be 4 or 6");
    return false;
  }
  if (argc < 2 || !pmn_arg_handler(env, argv[1], "onPacket") ||
      !pmn_arg_handler(env, argv[1], "onError"))
    return false;
  if (options == NULL && napi_get_undefined(env, &options) != napi_ok) return false;
  out->family = version == 4 ? AF_INET : AF_INET6;
  out->handlers = argv[1];
  return pmn_option_int(env, options, "receiveBufferSize", 4096, INT32_MAX / 2, &out->receive_size,
                        &out->has_receive) &&
         pmn_option_int(env, options, "sendBufferSize", 4096, INT32_MAX / 2, &out->send_size,
                        &out->has_send);
}

bool pmn_socket_create(napi_env env, napi_value self, napi_value handlers, int fd, int family,
                       size_t buffer_size, pmn_io_fn on_readable, pmn_io_fn on_writable,
                       const char *resource_name) {
  pmn_socket *socket = calloc(1, sizeof *socket);
  unsigned char *buffer = malloc(buffer_size);
  if (socket == NULL || buffer == NULL) {
    free(socket);
    free(buffer);
    close(fd);
    pmn_throw_errno(env, "malloc", ENOMEM);
    return false;
  }
  socket->fd = fd;
  socket->family = family;
  socket->buffer = buffer;
  socket->buffer_size = buffer_size;
  socket->on_readable = on_readable;
  socket->on_writable = on_writable;
  return pmn_socket_attach(env, self, handlers, socket, resource_name);
}

bool pmn_socket_attach(napi_env env, napi_value self, napi_value handlers, pmn_socket *socket,
                       const char *resource_name) {
  uv_loop_t *loop;
  napi_value name;
  socket->env = env;
  if (napi_wrap(env, self, socket, on_finalize, NULL, NULL) != napi_ok) {
    close(socket->fd);
    pmn_socket_free(socket);
    return false;
  }
  /* From here on the finalizer owns the memory. */
  if (napi_create_reference(env, self, 1, &socket->self) != napi_ok ||
      napi_create_reference(env, handlers, 1, &socket->handlers) != napi_ok ||
      napi_create_string_utf8(env, resource_name, NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_async_init(env, NULL, name, &socket->async) != napi_ok ||
      napi_get_uv_event_loop(env, &loop) != napi_ok) {
    pmn_socket_close(socket);
    return false;
  }
  int rc = uv_poll_init(loop, &socket->poll, socket->fd);
  if (rc < 0) {
    pmn_socket_close(socket);
    pmn_throw_errno(env, "uv_poll_init", -rc);
    return false;
  }
  socket->poll.data = socket;
  socket->poll_started = true;
  if (napi_add_env_cleanup_hook(env, on_env_cleanup, socket) != napi_ok ||
      !pmn_socket_set_events(socket, UV_READABLE)) {
    pmn_socket_close(socket);
    return false;
  }
  return true;
}

bool pmn_socket_set_events(pmn_socket *socket, int events) {
  if (socket->closed || events == socket->events) return true;
  int rc = events == 0 ? uv_poll_stop(&socket->poll)
                       : uv_poll_start(&socket->poll, events, on_poll);
  if (rc < 0) {
    pmn_throw_errno(socket->env, "uv_poll_start", -rc);
    return false;
  }
  socket->events = events;
  return true;
}

void pmn_socket_close(pmn_socket *socket) {
  if (socket->closed) return;
  socket->closed = true;
  napi_env env = socket->env;
  if (socket->poll_started) {
    napi_remove_env_cleanup_hook(env, on_env_cleanup, socket);
    uv_poll_stop(&socket->poll);
  }
  /* Not polled any more, so the descriptor may go before the handle does. */
  if (socket->fd >= 0) close(socket->fd);
  socket->fd = -1;
  if (socket->poll_started) {
    uv_close((uv_handle_t *)&socket->poll, on_poll_closed);
    return;
  }
  if (socket->async != NULL) napi_async_destroy(env, socket->async);
  socket->async = NULL;
  if (socket->handlers != NULL) napi_delete_reference(env, socket->handlers);
  socket->handlers = NULL;
  if (socket->self != NULL && !socket->finalized) napi_delete_reference(env, socket->self);
  socket->self = NULL;
}

napi_value pmn_socket_close_method(napi_env env, napi_callback_info info) {
  napi_value self;
  pmn_socket *socket;
  size_t argc = 0;
  PMN_CALL(env, napi_get_cb_info(env, info, &argc, NULL, &self, NULL));
  if (napi_unwrap(env, self, (void **)&socket) != napi_ok)
    return pmn_throw_type(env, "not a socket of this addon");
  pmn_socket_close(socket);
  return NULL;
}

pmn_socket *pmn_socket_unwrap(napi_env env, napi_callback_info info, size_t *argc,
                              napi_value *argv, napi_value *self) {
  napi_value this_value;
  pmn_socket *socket;
  if (napi_get_cb_info(env, info, argc, argv, &this_value, NULL) != napi_ok) return NULL;
  if (napi_unwrap(env, this_value, (void **)&socket) != napi_ok) {
    pmn_throw_type(env, "not a socket of this addon");
    return NULL;
  }
  if (socket->closed) {
    napi_throw_error(env, "ERR_SOCKET_CLOSED", "the socket is closed");
    return NULL;
  }
  if (self != NULL) *self = this_value;
  return socket;
}

bool pmn_socket_emit(pmn_socket *socket, const char *name, size_t argc, napi_value *argv) {
  napi_env env = socket->env;
  napi_value handlers, fn, result;
  if (socket->closed) return false;
  for (size_t i = 0; i < argc; i++)
    if (argv[i] == NULL) return false;
  if (napi_get_reference_value(env, socket->handlers, &handlers) != napi_ok ||
      napi_get_named_property(env, handlers, name, &fn) != napi_ok)
    return false;
  napi_status status = napi_make_callback(env, socket->async, handlers, fn, argc, argv, &result);
  if (status != napi_ok) {
    bool pending = false;
    napi_value exception;
    if (napi_is_exception_pending(env, &pending) == napi_ok && pending &&
        napi_get_and_clear_last_exception(env, &exception) == napi_ok)
      napi_fatal_exception(env, exception);
    return false;
  }
  return !socket->closed;
}

bool pmn_socket_emit_error(pmn_socket *socket, const char *syscall, int err) {
  napi_value argv[1] = {pmn_errno_error(socket->env, syscall, err)};
  return pmn_socket_emit(socket, "onError", 1, argv);
}

/* ---- batches ------------------------------------------------------------------------ */

bool pmn_socket_batch_open(pmn_socket *socket, const char *name, pmn_emit_batch *batch) {
  napi_env env = socket->env;
  if (socket->closed || napi_open_handle_scope(env, &batch->handles) != napi_ok) return false;
  if (napi_get_reference_value(env, socket->handlers, &batch->handlers) != napi_ok ||
      napi_get_named_property(env, batch->handlers, name, &batch->fn) != napi_ok ||
      napi_open_callback_scope(env, batch->handlers, socket->async, &batch->scope) != napi_ok) {
    napi_close_handle_scope(env, batch->handles);
    return false;
  }
  return true;
}

bool pmn_socket_batch_call(pmn_socket *socket, pmn_emit_batch *batch, size_t argc,
                           napi_value *argv) {
  napi_env env = socket->env;
  napi_value result;
  if (socket->closed) return false;
  for (size_t i = 0; i < argc; i++)
    if (argv[i] == NULL) return false;
  if (napi_call_function(env, batch->handlers, batch->fn, argc, argv, &result) != napi_ok) {
    bool pending = false;
    napi_value exception;
    if (napi_is_exception_pending(env, &pending) == napi_ok && pending &&
        napi_get_and_clear_last_exception(env, &exception) == napi_ok)
      napi_fatal_exception(env, exception);
    return false;
  }
  return !socket->closed;
}

void pmn_socket_batch_close(pmn_socket *socket, pmn_emit_batch *batch) {
  napi_close_callback_scope(socket->env, batch->scope);
  napi_close_handle_scope(socket->env, batch->handles);
}

int pmn_sendmmsg(int fd, struct mmsghdr *messages, unsigned count) {
  int first_error = 0;
  unsigned done = 0;
  while (done < count) {
    int sent = sendmmsg(fd, messages + done, count - done, MSG_DONTWAIT);
    if (sent > 0) {
      done += (unsigned)sent;
      continue;
    }
    if (sent < 0 && errno == EINTR) continue;
    /* sendmmsg reports an error only for the first datagram of the call: skip that one. */
    if (first_error == 0) first_error = sent < 0 ? errno : EIO;
    done++;
  }
  return first_error;
}

napi_value pmn_element(napi_env env, napi_value array, uint32_t index, const char *name) {
  napi_value value;
  char message[160];
  if (napi_get_element(env, array, index, &value) == napi_ok) return value;
  snprintf(message, sizeof message, "%s[%u] is missing", name, index);
  napi_value pending;
  napi_get_and_clear_last_exception(env, &pending);
  pmn_throw_type(env, message);
  return NULL;
}

bool pmn_array_length(napi_env env, napi_value array, const char *name, uint32_t *length) {
  bool is_array = false;
  char message[160];
  if (array != NULL && napi_is_array(env, array, &is_array) == napi_ok && is_array &&
      napi_get_array_length(env, array, length) == napi_ok)
    return true;
  snprintf(message, sizeof message, "%s must be an array", name);
  pmn_throw_type(env, message);
  return false;
}
