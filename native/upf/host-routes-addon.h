/* Defines the HostRoutes class (host-routes-addon.c) on pmn_upf's exports. */
#ifndef PMN_UPF_HOST_ROUTES_ADDON_H
#define PMN_UPF_HOST_ROUTES_ADDON_H

#define NAPI_VERSION 8
#include <node_api.h>
#include <stdbool.h>

bool host_routes_define(napi_env env, napi_value exports);

#endif
