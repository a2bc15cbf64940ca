/* PMN native addon: raw IP sockets for protocol 132 and UDP sockets (the userland SCTP's links), the
 * host kernel's SCTP (the `kernel` N2 transport) and the userland SCTP's CRC32c. Loading it needs no
 * SCTP in the kernel; creating an SctpSocket there fails with EPROTONOSUPPORT. */
#include "crc32c.h"
#include "kernel-sctp.h"
#include "raw-socket.h"
#include "udp-socket.h"

static napi_value init(napi_env env, napi_value exports) {
  napi_value raw = pmn_raw_socket_class(env);
  napi_value sctp = pmn_sctp_socket_class(env);
  napi_value udp = pmn_udp_socket_class(env);
  napi_value crc32c;
  if (raw == NULL || sctp == NULL || udp == NULL ||
      napi_create_function(env, "crc32c", NAPI_AUTO_LENGTH, pmn_crc32c, NULL, &crc32c) != napi_ok ||
      !pmn_set(env, exports, "RawSocket", raw) || !pmn_set(env, exports, "SctpSocket", sctp) ||
      !pmn_set(env, exports, "UdpSocket", udp) ||
      !pmn_set(env, exports, "crc32c", crc32c))
    return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
