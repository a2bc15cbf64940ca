/* The `HostRoutes` class of pmn_upf (host-routes.c): routes to the served UE addresses on the N6
 * device. Argument mistakes throw TypeErrors; the kernel's refusals return an errno code string. */
#define NAPI_VERSION 8
#include "host-routes-addon.h"

#include <arpa/inet.h>
#include <string.h>

#include "../napi-args.h"
#include "../napi-handle.h"
#include "host-routes.h"

static void close_object(void *object) { host_routes_close(object); }

static const pmn_closed_error CLOSED = {"ERR_HOST_ROUTES_CLOSED", "the host routes are closed"};

/* new HostRoutes({ device, table, protocol }) */
static napi_value construct(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], self, value;
  CHECK(napi_get_cb_info(env, info, &argc, argv, &self, NULL));
  napi_valuetype type;
  if (argc < 1 || napi_typeof(env, argv[0], &type) != napi_ok || type != napi_object)
    return throw_type(env, "options must be an object");
  char device[16]; /* IFNAMSIZ */
  double table, protocol;
  CHECK(napi_get_named_property(env, argv[0], "device", &value));
  if (!get_string(env, value, "device", device, sizeof device) ||
      !get_option(env, argv[0], "table", 1, 4294967295.0, 254, &table) ||
      !get_option(env, argv[0], "protocol", 1, 255, 200, &protocol))
    return NULL;
  host_routes *routes;
  const char *syscall = "";
  int err = host_routes_open(device, (uint32_t)table, (uint8_t)protocol, &routes, &syscall);
  if (err != 0) return errno_error(env, syscall, err);
  return pmn_handle_wrap(env, self, routes, close_object, &CLOSED) ? self : NULL;
}

/* add(address, prefixLength) / remove(address, prefixLength): undefined or an errno code. */
static napi_value change(napi_env env, napi_callback_info info, bool add) {
  size_t argc = 2;
  napi_value argv[2];
  host_routes *routes = pmn_handle_unwrap(env, info, &argc, argv);
  if (routes == NULL) return NULL;
  if (argc < 2) return throw_type(env, "a route takes an address and a prefix length");
  char text[64];
  uint8_t address[16];
  double length;
  if (!get_string(env, argv[0], "address", text, sizeof text)) return NULL;
  int family = strchr(text, ':') != NULL ? AF_INET6 : AF_INET;
  if (inet_pton(family, text, address) != 1) return throw_type(env, "address must be an IP address");
  if (!get_number(env, argv[1], "prefixLength", 0, family == AF_INET ? 32 : 128, &length))
    return NULL;
  return errno_code(env, host_routes_change(routes, add, family, address, (uint8_t)length));
}

static napi_value add(napi_env env, napi_callback_info info) { return change(env, info, true); }
static napi_value remove_route(napi_env env, napi_callback_info info) {
  return change(env, info, false);
}

bool host_routes_define(napi_env env, napi_value exports) {
  napi_property_descriptor methods[] = {
      {"add", NULL, add, NULL, NULL, NULL, napi_default, NULL},
      {"remove", NULL, remove_route, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, pmn_handle_close, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_value cls;
  return napi_define_class(env, "HostRoutes", NAPI_AUTO_LENGTH, construct, NULL,
                           sizeof methods / sizeof methods[0], methods, &cls) == napi_ok &&
         napi_set_named_property(env, exports, "HostRoutes", cls) == napi_ok;
}
