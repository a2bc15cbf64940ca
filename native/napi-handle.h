/* A native object behind a JavaScript instance (the user-plane addons' classes): wrapping it, reaching
 * it from a method, closing it once (close() or garbage collection), and counters as an object. */
#ifndef PMN_NAPI_HANDLE_H
#define PMN_NAPI_HANDLE_H

#define NAPI_VERSION 8
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>

typedef void pmn_close_function(void *object);

/* What a closed instance's methods throw: its code and message. */
typedef struct {
  const char *code;
  const char *message;
} pmn_closed_error;

/* Wraps `object` in `self`; on failure closes it and returns false (an exception is pending). */
bool pmn_handle_wrap(napi_env env, napi_value self, void *object, pmn_close_function *close,
                     const pmn_closed_error *closed);
/* The object of the method's `this` with its arguments (as napi_get_cb_info), or NULL with an
 * exception pending (the instance is closed, or `this` is not one). */
void *pmn_handle_unwrap(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv);
/* The close() method: closes the object once; later calls do nothing. */
napi_value pmn_handle_close(napi_env env, napi_callback_info info);
/* { names[i]: values[i] } for `count` counters. */
napi_value pmn_counters_object(napi_env env, const uint64_t *values, const char *const *names,
                               int count);

#endif
