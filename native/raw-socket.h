#ifndef PMN_NATIVE_RAW_SOCKET_H
#define PMN_NATIVE_RAW_SOCKET_H
#include "common.h"
napi_value pmn_raw_socket_class(napi_env env);
#endif
