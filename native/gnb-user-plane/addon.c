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

#include "../napi-args.h"
#include "../napi-handle.h"
#include "gnb-user-plane.h"

static void close_object(void *object) { gnb_up_close(object); }

static const pmn_closed_error CLOSED = {"ERR_GNB_USER_PLANE_CLOSED", "the user plane is closed"};

static gnb_up *unwrap(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv) {
  return pmn_handle_unwrap(env, info, argc, argv);
}

/* new GnbUserPlane({ n3Address, n3Port, maxSessions, errorIndicationsPerSecond, n3Namespace }) */
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
  char namespace_path[300];
  napi_valuetype type_of;
  CHECK(napi_get_named_property(env, argv[0], "n3Namespace", &value));
  CHECK(napi_typeof(env, value, &type_of));
  if (type_of != napi_undefined) {
    char name[256];
    if (!get_string(env, value, "n3Namespace", name, sizeof name)) return NULL;
    if (name[0] == 0 || strchr(name, '/') != NULL || strcmp(name, ".") == 0 ||
        strcmp(name, "..") == 0)
      return throw_type(env, "n3Namespace must be the name of a network namespace");
    snprintf(namespace_path, sizeof namespace_path, "/var/run/netns/%s", name);
    config.n3_namespace = namespace_path;
  }
  gnb_up *object;
  const char *syscall = "";
  int err = gnb_up_open(&config, &object, &syscall);
  if (err != 0) return errno_error(env, syscall, err);
  return pmn_handle_wrap(env, self, object, close_object, &CLOSED) ? self : NULL;
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

/* A method taking one session id and answering the operation's errno code. */
static napi_value session_call(napi_env env, napi_callback_info info,
                               int (*operation)(gnb_up *, uint32_t)) {
  size_t argc = 1;
  napi_value argv[1];
  gnb_up *g = unwrap(env, info, &argc, argv);
  if (g == NULL) return NULL;
  double id;
  if (argc < 1 || !get_number(env, argv[0], "id", 0, 4294967295.0, &id)) return NULL;
  return errno_code(env, operation(g, (uint32_t)id));
}

static napi_value remove_session(napi_env env, napi_callback_info info) {
  return session_call(env, info, gnb_up_remove_session);
}

static napi_value set_ready(napi_env env, napi_callback_info info) {
  return session_call(env, info, gnb_up_set_ready);
}

/* forward(id, address, port, teid) -> errno code or undefined */
static napi_value forward(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  gnb_up *g = unwrap(env, info, &argc, argv);
  if (g == NULL) return NULL;
  if (argc < 4) return throw_type(env, "forward takes 4 arguments");
  struct sockaddr_storage to;
  socklen_t to_length;
  double id, port, teid;
  if (!get_number(env, argv[0], "id", 0, 4294967295.0, &id) ||
      !get_number(env, argv[2], "port", 1, 65535, &port) ||
      !get_address(env, argv[1], "address", (uint16_t)port, &to, &to_length) ||
      !get_number(env, argv[3], "teid", 1, 4294967295.0, &teid))
    return NULL;
  return errno_code(env, gnb_up_forward(g, (uint32_t)id, &to, to_length, (uint32_t)teid));
}

/* expectForwarded(id, teid) -> errno code or undefined */
static napi_value expect_forwarded(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  gnb_up *g = unwrap(env, info, &argc, argv);
  if (g == NULL) return NULL;
  double id, teid;
  if (argc < 2 || !get_number(env, argv[0], "id", 0, 4294967295.0, &id) ||
      !get_number(env, argv[1], "teid", 1, 4294967295.0, &teid))
    return NULL;
  return errno_code(env, gnb_up_expect_forwarded(g, (uint32_t)id, (uint32_t)teid));
}

static napi_value end_forwarded(napi_env env, napi_callback_info info) {
  return session_call(env, info, gnb_up_end_forwarded);
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
  if (gnb_up_session_counters(g, (uint32_t)id, values) != 0) {
    napi_value result;
    CHECK(napi_get_undefined(env, &result));
    return result;
  }
  return pmn_counters_object(env, values, names, GNB_UP_SESSION_COUNTERS);
}

static napi_value counters(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  gnb_up *g = unwrap(env, info, &argc, NULL);
  if (g == NULL) return NULL;
  uint64_t values[GNB_UP_COUNTER_COUNT];
  gnb_up_read_counters(g, values);
  return pmn_counters_object(env, values, gnb_up_counter_names, GNB_UP_COUNTER_COUNT);
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor methods[] = {
      {"n3Port", NULL, n3_port, NULL, NULL, NULL, napi_default, NULL},
      {"addSession", NULL, add_session, NULL, NULL, NULL, napi_default, NULL},
      {"removeSession", NULL, remove_session, NULL, NULL, NULL, napi_default, NULL},
      {"setReady", NULL, set_ready, NULL, NULL, NULL, napi_default, NULL},
      {"forward", NULL, forward, NULL, NULL, NULL, napi_default, NULL},
      {"expectForwarded", NULL, expect_forwarded, NULL, NULL, NULL, napi_default, NULL},
      {"endForwarded", NULL, end_forwarded, NULL, NULL, NULL, napi_default, NULL},
      {"sessionCounters", NULL, session_counters, NULL, NULL, NULL, napi_default, NULL},
      {"counters", NULL, counters, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, pmn_handle_close, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_value cls;
  CHECK(napi_define_class(env, "GnbUserPlane", NAPI_AUTO_LENGTH, construct, NULL,
                          sizeof methods / sizeof methods[0], methods, &cls));
  CHECK(napi_set_named_property(env, exports, "GnbUserPlane", cls));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
