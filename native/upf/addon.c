/* pmn_upf: the UPF's forwarder (forwarder.c) as a JavaScript class. Control calls are synchronous
 * and take the forwarder's mutex; packets never reach JavaScript. Argument mistakes throw
 * TypeErrors; rule conflicts return an errno code string ('EEXIST', 'ENOSPC', 'ENOENT'). */
#define NAPI_VERSION 8
#include <arpa/inet.h>
#include <errno.h>
#include <node_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../napi-args.h"
#include "../napi-handle.h"
#include "flows.h"
#include "host-routes-addon.h"
#include "forwarder.h"

static void close_object(void *object) { upf_close(object); }

static const pmn_closed_error CLOSED = {"ERR_UPF_CLOSED", "the forwarder is closed"};

static upf *unwrap(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv) {
  return pmn_handle_unwrap(env, info, argc, argv);
}

/* new Upf({ n3Address, n3Port, tunName, maxSessions, maxFlows, errorIndicationsPerSecond,
 * downlinkBufferMs, datapath: 'auto' | 'xdp' | 'tun', bpfObject, n6Interface, xdpNativeOnVeth }) */
static napi_value construct(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], self, value;
  CHECK(napi_get_cb_info(env, info, &argc, argv, &self, NULL));
  napi_valuetype type;
  if (argc < 1 || napi_typeof(env, argv[0], &type) != napi_ok || type != napi_object)
    return throw_type(env, "options must be an object");
  upf_config config;
  memset(&config, 0, sizeof config);
  double port, sessions, flows, rate, buffer_ms;
  char tun[16]; /* IFNAMSIZ */
  if (!get_option(env, argv[0], "n3Port", 0, 65535, 2152, &port) ||
      !get_option(env, argv[0], "maxSessions", 1, 1 << 22, 65536, &sessions) ||
      !get_option(env, argv[0], "maxFlows", 1, 1 << 24, 262144, &flows) ||
      !get_option(env, argv[0], "errorIndicationsPerSecond", 1, 1e6, 100, &rate) ||
      !get_option(env, argv[0], "downlinkBufferMs", 0, 86400000, 10000, &buffer_ms))
    return NULL;
  CHECK(napi_get_named_property(env, argv[0], "n3Address", &value));
  if (!get_address(env, value, "n3Address", (uint16_t)port, &config.n3, &config.n3_length))
    return NULL;
  CHECK(napi_get_named_property(env, argv[0], "tunName", &value));
  if (!get_string(env, value, "tunName", tun, sizeof tun)) return NULL;
  config.tun_name = tun;
  char datapath[8] = "tun", bpf_object[4096] = "", n6[16] = "";
  napi_valuetype type_of;
  CHECK(napi_get_named_property(env, argv[0], "datapath", &value));
  CHECK(napi_typeof(env, value, &type_of));
  if (type_of != napi_undefined && !get_string(env, value, "datapath", datapath, sizeof datapath))
    return NULL;
  if (strcmp(datapath, "tun") == 0) {
    config.datapath = UPF_DATAPATH_TUN;
  } else if (strcmp(datapath, "auto") == 0 || strcmp(datapath, "xdp") == 0) {
    config.datapath = datapath[0] == 'a' ? UPF_DATAPATH_AUTO : UPF_DATAPATH_XDP;
    CHECK(napi_get_named_property(env, argv[0], "bpfObject", &value));
    if (!get_string(env, value, "bpfObject", bpf_object, sizeof bpf_object)) return NULL;
    CHECK(napi_get_named_property(env, argv[0], "n6Interface", &value));
    CHECK(napi_typeof(env, value, &type_of));
    if (type_of != napi_undefined && !get_string(env, value, "n6Interface", n6, sizeof n6))
      return NULL;
    CHECK(napi_get_named_property(env, argv[0], "xdpNativeOnVeth", &value));
    CHECK(napi_typeof(env, value, &type_of));
    if (type_of == napi_boolean) {
      CHECK(napi_get_value_bool(env, value, &config.xdp_native_on_veth));
    } else if (type_of != napi_undefined) {
      return throw_type(env, "xdpNativeOnVeth must be a boolean");
    }
  } else {
    return throw_type(env, "datapath must be 'auto', 'xdp' or 'tun'");
  }
  config.bpf_object = bpf_object;
  config.n6_interface = n6;
  config.max_sessions = (uint32_t)sessions;
  config.max_flows = (uint32_t)flows;
  config.error_indications_per_second = (uint32_t)rate;
  config.downlink_buffer_ms = buffer_ms;
  upf *object;
  const char *syscall = "";
  int err = upf_open(&config, &object, &syscall);
  if (err != 0) return errno_error(env, syscall, err);
  return pmn_handle_wrap(env, self, object, close_object, &CLOSED) ? self : NULL;
}

static napi_value info_of(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  upf *u = unwrap(env, info, &argc, NULL);
  if (u == NULL) return NULL;
  napi_value result, port, name, datapath, reason;
  CHECK(napi_create_object(env, &result));
  CHECK(napi_create_uint32(env, upf_n3_port(u), &port));
  CHECK(napi_create_string_utf8(env, upf_tun_name(u), NAPI_AUTO_LENGTH, &name));
  CHECK(napi_create_string_utf8(env, upf_datapath(u), NAPI_AUTO_LENGTH, &datapath));
  CHECK(napi_create_string_utf8(env, upf_datapath_reason(u), NAPI_AUTO_LENGTH, &reason));
  CHECK(napi_set_named_property(env, result, "n3Port", port));
  CHECK(napi_set_named_property(env, result, "tunName", name));
  CHECK(napi_set_named_property(env, result, "datapath", datapath));
  CHECK(napi_set_named_property(env, result, "datapathReason", reason));
  return result;
}

static bool get_optional_bytes(napi_env env, napi_value value, const char *name, int family,
                               uint8_t *out, bool *present) {
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok) return false;
  *present = type != napi_null && type != napi_undefined;
  if (!*present) return true;
  char text[64];
  uint8_t address[16];
  if (!get_string(env, value, name, text, sizeof text)) return false;
  if (inet_pton(family, text, address) != 1) {
    napi_throw_type_error(env, NULL, family == AF_INET ? "ipv4 must be an IPv4 address"
                                                       : "ipv6Prefix must be an IPv6 address");
    return false;
  }
  memcpy(out, address, family == AF_INET ? 4 : 8);
  return true;
}

/* addSession(id, uplinkTeid, ipv4 | null, ipv6Prefix | null, uplinkBps, downlinkBps) */
static napi_value add_session(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  upf *u = unwrap(env, info, &argc, argv);
  if (u == NULL) return NULL;
  if (argc < 6) return throw_type(env, "addSession takes 6 arguments");
  double id, teid, ul, dl;
  uint8_t ipv4[4], ipv6[8];
  bool has4, has6;
  if (!get_number(env, argv[0], "id", 0, 4294967295.0, &id) ||
      !get_number(env, argv[1], "uplinkTeid", 1, 4294967295.0, &teid) ||
      !get_optional_bytes(env, argv[2], "ipv4", AF_INET, ipv4, &has4) ||
      !get_optional_bytes(env, argv[3], "ipv6Prefix", AF_INET6, ipv6, &has6) ||
      !get_number(env, argv[4], "uplinkBps", 0, 9007199254740991.0, &ul) ||
      !get_number(env, argv[5], "downlinkBps", 0, 9007199254740991.0, &dl))
    return NULL;
  if (!has4 && !has6) return throw_type(env, "a session needs ipv4 or ipv6Prefix");
  return errno_code(env, upf_add_session(u, (uint32_t)id, (uint32_t)teid, has4 ? ipv4 : NULL,
                                         has6 ? ipv6 : NULL, (uint64_t)ul, (uint64_t)dl));
}

/* setDownlink(id, gnbAddress, gnbPort, remoteTeid, qfi) */
static napi_value set_downlink(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  upf *u = unwrap(env, info, &argc, argv);
  if (u == NULL) return NULL;
  if (argc < 5) return throw_type(env, "setDownlink takes 5 arguments");
  double id, port, teid, qfi;
  struct sockaddr_storage gnb;
  socklen_t length;
  if (!get_number(env, argv[0], "id", 0, 4294967295.0, &id) ||
      !get_number(env, argv[2], "gnbPort", 1, 65535, &port) ||
      !get_address(env, argv[1], "gnbAddress", (uint16_t)port, &gnb, &length) ||
      !get_number(env, argv[3], "remoteTeid", 0, 4294967295.0, &teid) ||
      !get_number(env, argv[4], "qfi", 0, 63, &qfi))
    return NULL;
  return errno_code(env, upf_set_downlink(u, (uint32_t)id, (struct sockaddr *)&gnb, length,
                                          (uint32_t)teid, (uint8_t)qfi));
}

/* setForwarding(id, forwardTeid, gnbAddress, gnbPort, remoteTeid, qfi): indirect data forwarding */
static napi_value set_forwarding(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  upf *u = unwrap(env, info, &argc, argv);
  if (u == NULL) return NULL;
  if (argc < 6) return throw_type(env, "setForwarding takes 6 arguments");
  double id, forward_teid, port, teid, qfi;
  struct sockaddr_storage gnb;
  socklen_t length;
  if (!get_number(env, argv[0], "id", 0, 4294967295.0, &id) ||
      !get_number(env, argv[1], "forwardTeid", 1, 4294967295.0, &forward_teid) ||
      !get_number(env, argv[3], "gnbPort", 1, 65535, &port) ||
      !get_address(env, argv[2], "gnbAddress", (uint16_t)port, &gnb, &length) ||
      !get_number(env, argv[4], "remoteTeid", 0, 4294967295.0, &teid) ||
      !get_number(env, argv[5], "qfi", 0, 63, &qfi))
    return NULL;
  return errno_code(env, upf_set_forwarding(u, (uint32_t)id, (uint32_t)forward_teid,
                                            (struct sockaddr *)&gnb, length, (uint32_t)teid,
                                            (uint8_t)qfi));
}

/* A method taking one session id and answering the operation's errno code. */
static napi_value session_call(napi_env env, napi_callback_info info,
                               int (*operation)(upf *, uint32_t)) {
  size_t argc = 1;
  napi_value argv[1];
  upf *u = unwrap(env, info, &argc, argv);
  if (u == NULL) return NULL;
  double id;
  if (argc < 1 || !get_number(env, argv[0], "id", 0, 4294967295.0, &id)) return NULL;
  return errno_code(env, operation(u, (uint32_t)id));
}

static napi_value clear_forwarding(napi_env env, napi_callback_info info) {
  return session_call(env, info, upf_clear_forwarding);
}

static napi_value clear_downlink(napi_env env, napi_callback_info info) {
  return session_call(env, info, upf_clear_downlink);
}

static napi_value set_ambr(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  upf *u = unwrap(env, info, &argc, argv);
  if (u == NULL) return NULL;
  double id, ul, dl;
  if (argc < 3 || !get_number(env, argv[0], "id", 0, 4294967295.0, &id) ||
      !get_number(env, argv[1], "uplinkBps", 0, 9007199254740991.0, &ul) ||
      !get_number(env, argv[2], "downlinkBps", 0, 9007199254740991.0, &dl))
    return NULL;
  return errno_code(env, upf_set_ambr(u, (uint32_t)id, (uint64_t)ul, (uint64_t)dl));
}

/* A time on the core's clock: finite milliseconds. */
static bool get_time(napi_env env, napi_value value, const char *name, double *out) {
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_number ||
      napi_get_value_double(env, value, out) != napi_ok || !(*out >= -9007199254740991.0) ||
      !(*out <= 9007199254740991.0)) {
    char message[128];
    snprintf(message, sizeof message, "%s must be a number of milliseconds", name);
    napi_throw_type_error(env, NULL, message);
    return false;
  }
  return true;
}

/* removeSession(id, nowMs, previousTickMs) -> { uplinkBytes, downlinkBytes, flowsEnded } (usage not
 * yet drained; flows ended so far, this session's included) or 'ENOENT' */
static napi_value remove_session(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  upf *u = unwrap(env, info, &argc, argv);
  if (u == NULL) return NULL;
  double id, now, previous;
  if (argc < 3) return throw_type(env, "removeSession takes 3 arguments");
  if (!get_number(env, argv[0], "id", 0, 4294967295.0, &id) ||
      !get_time(env, argv[1], "nowMs", &now) || !get_time(env, argv[2], "previousTickMs", &previous))
    return NULL;
  uint64_t ul = 0, dl = 0, ended = 0;
  int err = upf_remove_session(u, (uint32_t)id, now, previous, &ul, &dl, &ended);
  if (err != 0) return errno_code(env, err);
  napi_value result, a, b, c;
  CHECK(napi_create_object(env, &result));
  CHECK(napi_create_double(env, (double)ul, &a));
  CHECK(napi_create_double(env, (double)dl, &b));
  CHECK(napi_create_double(env, (double)ended, &c));
  CHECK(napi_set_named_property(env, result, "uplinkBytes", a));
  CHECK(napi_set_named_property(env, result, "downlinkBytes", b));
  CHECK(napi_set_named_property(env, result, "flowsEnded", c));
  return result;
}

/* tickFlows(nowMs, previousTickMs, idleMs, activeMs) */
static napi_value tick_flows(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  upf *u = unwrap(env, info, &argc, argv);
  if (u == NULL) return NULL;
  double now, previous, idle, active;
  if (argc < 4) return throw_type(env, "tickFlows takes 4 arguments");
  if (!get_time(env, argv[0], "nowMs", &now) || !get_time(env, argv[1], "previousTickMs", &previous) ||
      !get_number(env, argv[2], "idleMs", 0, 9007199254740991.0, &idle) ||
      !get_number(env, argv[3], "activeMs", 0, 9007199254740991.0, &active))
    return NULL;
  upf_tick_flows(u, now, previous, idle, active);
  napi_value result;
  CHECK(napi_get_undefined(env, &result));
  return result;
}

static void free_buffer(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  free(data);
}

static napi_value buffer_of(napi_env env, uint8_t *data, size_t length) {
  if (data == NULL) return errno_error(env, "malloc", ENOMEM);
  napi_value result;
  if (napi_create_external_buffer(env, length, data, free_buffer, NULL, &result) != napi_ok) {
    free(data);
    return NULL;
  }
  return result;
}

/* takeFlows(max) -> Buffer of up to max ended flows, oldest first */
static napi_value take_flows(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  upf *u = unwrap(env, info, &argc, argv);
  if (u == NULL) return NULL;
  double max;
  if (argc < 1 || !get_number(env, argv[0], "max", 1, 1 << 24, &max)) return NULL;
  size_t count;
  uint8_t *data = upf_take_flows(u, (uint32_t)max, &count);
  return buffer_of(env, data, count * UPF_FLOW_RECORD);
}

static napi_value take_downlink_data(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  upf *u = unwrap(env, info, &argc, NULL);
  if (u == NULL) return NULL;
  size_t count;
  uint8_t *data = upf_take_downlink_data(u, &count);
  return buffer_of(env, data, count * 4);
}

static napi_value drain_usage(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  upf *u = unwrap(env, info, &argc, NULL);
  if (u == NULL) return NULL;
  size_t count;
  uint8_t *data = upf_drain_usage(u, &count);
  return buffer_of(env, data, count * UPF_USAGE_RECORD);
}

static napi_value counters(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  upf *u = unwrap(env, info, &argc, NULL);
  if (u == NULL) return NULL;
  uint64_t values[UPF_COUNTER_COUNT];
  upf_read_counters(u, values);
  napi_value result = pmn_counters_object(env, values, upf_counter_names, UPF_COUNTER_COUNT), value;
  if (result == NULL) return NULL;
  CHECK(napi_create_uint32(env, upf_session_count(u), &value));
  CHECK(napi_set_named_property(env, result, "sessions", value));
  uint32_t open, ended;
  upf_flow_counts(u, &open, &ended);
  CHECK(napi_create_uint32(env, open, &value));
  CHECK(napi_set_named_property(env, result, "openFlows", value));
  CHECK(napi_create_uint32(env, ended, &value));
  CHECK(napi_set_named_property(env, result, "endedFlows", value));
  CHECK(napi_create_uint32(env, upf_buffered_packets(u), &value));
  CHECK(napi_set_named_property(env, result, "bufferedPackets", value));
  CHECK(napi_create_uint32(env, upf_forwarding_count(u), &value));
  CHECK(napi_set_named_property(env, result, "forwardingTunnels", value));
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor methods[] = {
      {"info", NULL, info_of, NULL, NULL, NULL, napi_default, NULL},
      {"addSession", NULL, add_session, NULL, NULL, NULL, napi_default, NULL},
      {"setDownlink", NULL, set_downlink, NULL, NULL, NULL, napi_default, NULL},
      {"clearDownlink", NULL, clear_downlink, NULL, NULL, NULL, napi_default, NULL},
      {"setForwarding", NULL, set_forwarding, NULL, NULL, NULL, napi_default, NULL},
      {"clearForwarding", NULL, clear_forwarding, NULL, NULL, NULL, napi_default, NULL},
      {"setAmbr", NULL, set_ambr, NULL, NULL, NULL, napi_default, NULL},
      {"removeSession", NULL, remove_session, NULL, NULL, NULL, napi_default, NULL},
      {"tickFlows", NULL, tick_flows, NULL, NULL, NULL, napi_default, NULL},
      {"takeFlows", NULL, take_flows, NULL, NULL, NULL, napi_default, NULL},
      {"takeDownlinkData", NULL, take_downlink_data, NULL, NULL, NULL, napi_default, NULL},
      {"drainUsage", NULL, drain_usage, NULL, NULL, NULL, napi_default, NULL},
      {"counters", NULL, counters, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, pmn_handle_close, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_value cls;
  CHECK(napi_define_class(env, "Forwarder", NAPI_AUTO_LENGTH, construct, NULL,
                          sizeof methods / sizeof methods[0], methods, &cls));
  CHECK(napi_set_named_property(env, exports, "Forwarder", cls));
  return host_routes_define(env, exports) ? exports : NULL;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
