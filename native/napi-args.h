/* Argument and error helpers of the user-plane addons (pmn_upf, pmn_gnb_user_plane): numbers and
 * options within bounds, strings, addresses, and errors carrying the errno name as code. */
#ifndef PMN_NAPI_ARGS_H
#define PMN_NAPI_ARGS_H

#define NAPI_VERSION 8
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define CHECK(call)                  \
  do {                               \
    if ((call) != napi_ok) return NULL; \
  } while (0)

/* Throws a TypeError; returns NULL. */
napi_value throw_type(napi_env env, const char *message);
/* Throws an Error with code (e.g. 'EADDRINUSE'), errno and syscall; returns NULL. */
napi_value errno_error(napi_env env, const char *syscall, int err);
/* undefined for 0, else the errno's name ('ENOSPC', ...). */
napi_value errno_code(napi_env env, int err);
/* An integer number in [min, max], else a TypeError naming it. */
bool get_number(napi_env env, napi_value value, const char *name, double min, double max,
                double *out);
/* options[name] as get_number does, or fallback when absent. */
bool get_option(napi_env env, napi_value options, const char *name, double min, double max,
                double fallback, double *out);
/* A string that fits out (size bytes with its NUL), else a TypeError. */
bool get_string(napi_env env, napi_value value, const char *name, char *out, size_t size);
/* An IPv4 or IPv6 address (no zone) with a port. */
bool get_address(napi_env env, napi_value value, const char *name, uint16_t port,
                 struct sockaddr_storage *out, socklen_t *length);

#endif
