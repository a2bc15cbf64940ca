#ifndef PMN_NATIVE_KERNEL_SCTP_H
#define PMN_NATIVE_KERNEL_SCTP_H
#include "common.h"
napi_value pmn_sctp_socket_class(napi_env env);
#endif
