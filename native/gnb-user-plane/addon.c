/* pmn_gnb_user_plane: the simulated gNB's user plane (gnb-user-plane.c) as a JavaScript class.
 * Control calls are synchronous and take its mutex; packets never reach JavaScript. Argument
 * mistakes throw TypeErrors; rule conflicts return an errno code string ('EEXIST', 'ENOSPC',
 * 'ENOENT', ...). */
#define NAPI_VERSION 8
#include <arpa/inet.h>
#include <errno.h>
#include <node_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gnb-user-plane.h"

typedef struct {
  gnb_up *gnb; /* NULL once closed */
} handle;

#define CHECK(call)                  \
  do {                               \
    if ((call) != napi_ok) return NULL; \
  } while (0)

static napi_value throw_type(napi_env env, const char *message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

static napi_value errno_error(napi_env env, const char *syscall, int err) {
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

static napi_value errno_code(napi_env env, int err) {
  napi_value result;
  if (err == 0) {
    napi_get_undefined(env, &result);
  } else {
    const char *name = strerrorname_np(err);
    napi_create_string_utf8(env, name ? name : "EIO", NAPI_AUTO_LENGTH, &result);
  }
  return result;
}

static bool get_number(napi_env env, napi_value value, const char *name, double min, double max,
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

static bool get_option(napi_env env, napi_value options, const char *name, double min, double max,
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

static bool get_string(napi_env env, napi_value value, const char *name, char *out, size_t size) {
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

/* An IPv4 or IPv6 address (no zone) with a port. */
static bool get_address(napi_env env, napi_value value, const char *name, uint16_t port,
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

static gnb_up *unwrap(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv) {
  napi_value self;
  handle *h;
  if (napi_get_cb_info(env, info, argc, argv, &self, NULL) != napi_ok ||
      napi_unwrap(env, self, (void **)&h) != napi_ok)
    return NULL;
  if (h->gnb == NULL) {
    napi_throw_error(env, "ERR_GNB_USER_PLANE_CLOSED", "the user plane is closed");
    return NULL;
  }
  return h->gnb;
}

static void finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  handle *h = data;
  if (h->gnb != NULL) gnb_up_close(h->gnb);
  free(h);
}

/* new GnbUserPlane({ n3Address, n3Port, maxSessions, errorIndicationsPerSecond }) */
static napi_value construct(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], self, value;
  CHECK(napi_get_cb_info(env, info, &argc, argv, &self, NULL));
  napi_valuetype type;
  if (argc < 1 || napi_typeof(env, argv[0], &type) != napi_ok || type != napi_object)
    return throw_type(env, "options must be an object");
  gnb_up_config config;
  memset(&config, 0, sizeof config);
  double port, sessions, rate;
  if (!get_option(env, argv[0], "n3Port", 0, 65535, 2152, &port) ||
      !get_option(env, argv[0], "maxSessions", 1, 1 << 20, 4096, &sessions) ||
      !get_option(env, argv[0], "errorIndicationsPerSecond", 1, 1e6, 100, &rate))
    return NULL;
  CHECK(napi_get_named_property(env, argv[0], "n3Address", &value));
  if (!get_address(env, value, "n3Address", (uint16_t)port, &config.n3, &config.n3_length))
    return NULL;
  config.max_sessions = (uint32_t)sessions;
  config.error_indications_per_second = (uint32_t)rate;
  handle *h = calloc(1, sizeof *h);
  if (h == NULL) return errno_error(env, "malloc", ENOMEM);
  const char *syscall = "";
  int err = gnb_up_open(&config, &h->gnb, &syscall);
  if (err != 0) {
    free(h);
    return errno_error(env, syscall, err);
  }
  if (napi_wrap(env, self, h, finalize, NULL, NULL) != napi_ok) {
    gnb_up_close(h->gnb);
    free(h);
    return NULL;
  }
  return self;
}

static napi_value n3_port(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  gnb_up *g = unwrap(env, info, &argc, NULL);
  if (g == NULL) return NULL;
  napi_value port;
  CHECK(napi_create_uint32(env, gnb_up_n3_port(g), &port));
  return port;
}

/* addSession(id, tunName, downlinkTeid, upfAddress, upfPort, uplinkTeid, qfi) -> the TUN's name,
 * or an errno code ({ error }). */
static napi_value add_session(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value argv[7];
  gnb_up *g = unwrap(env, info, &argc, argv);
  if (g == NULL) return NULL;
  if (argc < 7) return throw_type(env, "addSession takes 7 arguments");
  gnb_up_session s;
  memset(&s, 0, sizeof s);
  char tun[16]; /* IFNAMSIZ */
  double id, downlink, port, uplink, qfi;
  if (!get_number(env, argv[0], "id", 0, 4294967295.0, &id) ||
      !get_string(env, argv[1], "tunName", tun, sizeof tun) ||
      !get_number(env, argv[2], "downlinkTeid", 1, 4294967295.0, &downlink) ||
      !get_number(env, argv[4], "upfPort", 1, 65535, &port) ||
      !get_address(env, argv[3], "upfAddress", (uint16_t)port, &s.upf, &s.upf_length) ||
      !get_number(env, argv[5], "uplinkTeid", 0, 4294967295.0, &uplink) ||
      !get_number(env, argv[6], "qfi", 0, 63, &qfi))
    return NULL;
  s.id = (uint32_t)id;
  s.tun_name = tun;
  s.downlink_teid = (uint32_t)downlink;
  s.uplink_teid = (uint32_t)uplink;
  s.qfi = (uint8_t)qfi;
  char actual[16];
  int err = gnb_up_add_session(g, &s, actual);
  napi_value result, value;
  CHECK(napi_create_object(env, &result));
  if (err != 0) {
    CHECK(napi_set_named_property(env, result, "error", errno_code(env, err)));
  } else {
    CHECK(napi_create_string_utf8(env, actual, NAPI_AUTO_LENGTH, &value));
    CHECK(napi_set_named_property(env, result, "tunName", value));
  }
  return result;
}

static napi_value remove_session(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  gnb_up *g = unwrap(env, info, &argc, argv);
  if (g == NULL) return NULL;
  double id;
  if (argc < 1 || !get_number(env, argv[0], "id", 0, 4294967295.0, &id)) return NULL;
  return errno_code(env, gnb_up_remove_session(g, (uint32_t)id));
}

/* sessionCounters(id) -> { uplinkPackets, uplinkBytes, downlinkPackets, downlinkBytes,
 * endMarkersReceived } or undefined */
static napi_value session_counters(napi_env env, napi_callback_info info) {
  static const char *const names[GNB_UP_SESSION_COUNTERS] = {
      "uplinkPackets", "uplinkBytes", "downlinkPackets", "downlinkBytes", "endMarkersReceived"};
  size_t argc = 1;
  napi_value argv[1];
  gnb_up *g = unwrap(env, info, &argc, argv);
  if (g == NULL) return NULL;
  double id;
  if (argc < 1 || !get_number(env, argv[0], "id", 0, 4294967295.0, &id)) return NULL;
  uint64_t values[GNB_UP_SESSION_COUNTERS];
  napi_value result, value;
  if (gnb_up_session_counters(g, (uint32_t)id, values) != 0) {
    CHECK(napi_get_undefined(env, &result));
    return result;
  }
  CHECK(napi_create_object(env, &result));
  for (int i = 0; i < GNB_UP_SESSION_COUNTERS; i++) {
    CHECK(napi_create_double(env, (double)values[i], &value));
    CHECK(napi_set_named_property(env, result, names[i], value));
  }
  return result;
}

static napi_value counters(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  gnb_up *g = unwrap(env, info, &argc, NULL);
  if (g == NULL) return NULL;
  uint64_t values[GNB_UP_COUNTER_COUNT];
  gnb_up_read_counters(g, values);
  napi_value result, value;
  CHECK(napi_create_object(env, &result));
  for (int i = 0; i < GNB_UP_COUNTER_COUNT; i++) {
    CHECK(napi_create_double(env, (double)values[i], &value));
    CHECK(napi_set_named_property(env, result, gnb_up_counter_names[i], value));
  }
  return result;
}

static napi_value close_gnb(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  napi_value self, result;
  handle *h;
  CHECK(napi_get_cb_info(env, info, &argc, NULL, &self, NULL));
  CHECK(napi_unwrap(env, self, (void **)&h));
  if (h->gnb != NULL) gnb_up_close(h->gnb);
  h->gnb = NULL;
  CHECK(napi_get_undefined(env, &result));
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor methods[] = {
      {"n3Port", NULL, n3_port, NULL, NULL, NULL, napi_default, NULL},
      {"addSession", NULL, add_session, NULL, NULL, NULL, napi_default, NULL},
      {"removeSession", NULL, remove_session, NULL, NULL, NULL, napi_default, NULL},
      {"sessionCounters", NULL, session_counters, NULL, NULL, NULL, napi_default, NULL},
      {"counters", NULL, counters, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, close_gnb, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_value cls;
  CHECK(napi_define_class(env, "GnbUserPlane", NAPI_AUTO_LENGTH, construct, NULL,
                          sizeof methods / sizeof methods[0], methods, &cls));
  CHECK(napi_set_named_property(env, exports, "GnbUserPlane", cls));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
