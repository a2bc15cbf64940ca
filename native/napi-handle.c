/* A native object behind a JavaScript instance (napi-handle.h). */
#include "napi-handle.h"

#include <stdlib.h>

typedef struct {
  void *object; /* NULL once closed */
  pmn_close_function *close;
  const pmn_closed_error *closed;
} handle;

static void finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  handle *h = data;
  if (h->object != NULL) h->close(h->object);
  free(h);
}

bool pmn_handle_wrap(napi_env env, napi_value self, void *object, pmn_close_function *close,
                     const pmn_closed_error *closed) {
  handle *h = malloc(sizeof *h);
  if (h == NULL) {
    close(object);
    napi_throw_error(env, "ENOMEM", "malloc: out of memory");
    return false;
  }
  h->object = object;
  h->close = close;
  h->closed = closed;
  if (napi_wrap(env, self, h, finalize, NULL, NULL) != napi_ok) {
    close(object);
    free(h);
    return false;
  }
  return true;
}

void *pmn_handle_unwrap(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv) {
  napi_value self;
  handle *h;
  if (napi_get_cb_info(env, info, argc, argv, &self, NULL) != napi_ok ||
      napi_unwrap(env, self, (void **)&h) != napi_ok)
    return NULL;
  if (h->object == NULL) {
    napi_throw_error(env, h->closed->code, h->closed->message);
    return NULL;
  }
  return h->object;
}

napi_value pmn_handle_close(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  napi_value self, result;
  handle *h;
  if (napi_get_cb_info(env, info, &argc, NULL, &self, NULL) != napi_ok ||
      napi_unwrap(env, self, (void **)&h) != napi_ok)
    return NULL;
  if (h->object != NULL) h->close(h->object);
  h->object = NULL;
  if (napi_get_undefined(env, &result) != napi_ok) return NULL;
  return result;
}

napi_value pmn_counters_object(napi_env env, const uint64_t *values, const char *const *names,
                               int count) {
  napi_value result, value;
  if (napi_create_object(env, &result) != napi_ok) return NULL;
  for (int i = 0; i < count; i++) {
    if (napi_create_double(env, (double)values[i], &value) != napi_ok ||
        napi_set_named_property(env, result, names[i], value) != napi_ok)
      return NULL;
  }
  return result;
}
