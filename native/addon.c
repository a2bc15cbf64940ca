/* PMN native addon: raw IP sockets for protocol 132 (the userland SCTP's link) and the host
 * kernel's SCTP (the `kernel` N2 transport). Loading it needs no SCTP in the kernel; creating an
 * SctpSocket there fails with EPROTONOSUPPORT. */
#include "kernel-sctp.h"
#include "raw-socket.h"

static napi_value init(napi_env env, napi_value exports) {
  napi_value raw = pmn_raw_socket_class(env);
  napi_value sctp = pmn_sctp_socket_class(env);
  if (raw == NULL || sctp == NULL || !pmn_set(env, exports, "RawSocket", raw) ||
      !pmn_set(env, exports, "SctpSocket", sctp))
    return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
