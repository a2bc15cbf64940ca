#ifndef PMN_NATIVE_UDP_SOCKET_H
#define PMN_NATIVE_UDP_SOCKET_H
#include "common.h"
napi_value pmn_udp_socket_class(napi_env env);
#endif
