/* Argument and error helpers shared by the user-plane addons (napi-args.h). */
#include "napi-args.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

napi_value throw_type(napi_env env, const char *message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

napi_value errno_error(napi_env env, const char *syscall, int err) {
  char message[256];
  snprintf(message, sizeof message, "%s: %s", syscall, strerror(err));
  napi_value text, code, error, number;
  if (napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &text) != napi_ok ||
      napi_create_string_utf8(env, strerrorname_np(err) ? strerrorname_np(err) : "EIO",
                              NAPI_AUTO_LENGTH, &code) != napi_ok ||
      napi_create_error(env, code, text, &error) != napi_ok ||
      napi_create_int32(env, -err, &number) != napi_ok ||
      napi_set_named_property(env, error, "errno", number) != napi_ok)
    return NULL;
  napi_value name;
  if (napi_create_string_utf8(env, syscall, NAPI_AUTO_LENGTH, &name) == napi_ok)
    napi_set_named_property(env, error, "syscall", name);
  napi_throw(env, error);
  return NULL;
}

napi_value errno_code(napi_env env, int err) {
  napi_value result;
  if (err == 0) {
    napi_get_undefined(env, &result);
  } else {
    const char *name = strerrorname_np(err);
    napi_create_string_utf8(env, name ? name : "EIO", NAPI_AUTO_LENGTH, &result);
  }
  return result;
}

bool get_number(napi_env env, napi_value value, const char *name, double min, double max,
                       double *out) {
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_number ||
      napi_get_value_double(env, value, out) != napi_ok || !(*out >= min && *out <= max) ||
      *out != (double)(uint64_t)*out) {
    char message[128];
    snprintf(message, sizeof message, "%s must be an integer in %.0f..%.0f", name, min, max);
    napi_throw_type_error(env, NULL, message);
    return false;
  }
  return true;
}

bool get_option(napi_env env, napi_value options, const char *name, double min, double max,
                       double fallback, double *out) {
  bool has;
  napi_value value;
  if (napi_has_named_property(env, options, name, &has) != napi_ok) return false;
  if (!has) {
    *out = fallback;
    return true;
  }
  if (napi_get_named_property(env, options, name, &value) != napi_ok) return false;
  return get_number(env, value, name, min, max, out);
}

bool get_string(napi_env env, napi_value value, const char *name, char *out, size_t size) {
  size_t length;
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_string ||
      napi_get_value_string_utf8(env, value, out, size, &length) != napi_ok || length + 1 >= size) {
    char message[128];
    snprintf(message, sizeof message, "%s must be a string shorter than %zu", name, size - 1);
    napi_throw_type_error(env, NULL, message);
    return false;
  }
  return true;
}

bool get_address(napi_env env, napi_value value, const char *name, uint16_t port,
                        struct sockaddr_storage *out, socklen_t *length) {
  char text[64];
  if (!get_string(env, value, name, text, sizeof text)) return false;
  memset(out, 0, sizeof *out);
  struct sockaddr_in *a4 = (struct sockaddr_in *)out;
  struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)out;
  if (inet_pton(AF_INET, text, &a4->sin_addr) == 1) {
    a4->sin_family = AF_INET;
    a4->sin_port = htons(port);
    *length = sizeof *a4;
    return true;
  }
  if (inet_pton(AF_INET6, text, &a6->sin6_addr) == 1) {
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons(port);
    *length = sizeof *a6;
    return true;
  }
  char message[128];
  snprintf(message, sizeof message, "%s must be an IPv4 or IPv6 address", name);
  napi_throw_type_error(env, NULL, message);
  return false;
}
