/* CRC32c (the SCTP checksum) for the userland stack: the SSE4.2 crc32 instruction where the CPU has
 * it, a table otherwise. */
#ifndef PMN_NATIVE_CRC32C_H
#define PMN_NATIVE_CRC32C_H

#include "common.h"

/* crc32c(bytes: Uint8Array, start: number, end: number, crc: number): number */
napi_value pmn_crc32c(napi_env env, napi_callback_info info);

#endif
