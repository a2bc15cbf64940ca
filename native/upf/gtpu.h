/* GTP-U (TS 29.281) headers: parsing what arrives on N3 and writing what the UPF sends. */
#ifndef PMN_UPF_GTPU_H
#define PMN_UPF_GTPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GTPU_PORT 2152

/* TS 29.281 6.1, Table 6.1-1. */
enum {
  GTPU_ECHO_REQUEST = 1,
  GTPU_ECHO_RESPONSE = 2,
  GTPU_ERROR_INDICATION = 26,
  GTPU_SUPPORTED_EXTENSION_HEADERS_NOTIFICATION = 31,
  GTPU_END_MARKER = 254,
  GTPU_G_PDU = 255,
};

/* TS 29.281 5.2.1, Figure 5.2.1-3: next extension header types. */
enum {
  GTPU_EXT_NONE = 0x00,
  GTPU_EXT_UDP_PORT = 0x40,
  GTPU_EXT_PDU_SESSION_CONTAINER = 0x85,
  GTPU_EXT_PDCP_PDU_NUMBER = 0xc0,
};

/* TS 29.281 8: information elements. */
enum {
  GTPU_IE_RECOVERY = 14,
  GTPU_IE_TEID_DATA_I = 16,
  GTPU_IE_PEER_ADDRESS = 133,
};

/* Mandatory header + sequence number, N-PDU number, next extension type + one 4-octet PDU Session
 * Container: what the UPF puts before a downlink T-PDU. */
#define GTPU_DOWNLINK_HEADER 16

typedef enum {
  GTPU_OK = 0,
  GTPU_TOO_SHORT,           /* fewer octets than the header or its length field says */
  GTPU_BAD_VERSION,         /* not version 1 with PT 1 (GTP' or GTPv0/v2 on the wrong port) */
  GTPU_BAD_EXTENSION,       /* an extension header of length 0 or running past the end */
  GTPU_UNKNOWN_REQUIRED_EXT /* an extension the receiver must comprehend but this one does not */
} gtpu_status;

typedef struct {
  uint8_t type;
  uint32_t teid;
  bool has_sequence;
  uint16_t sequence;
  /* QFI of a DL or UL PDU Session Container (TS 38.415 5.5.2.1-2), -1 when absent. */
  int qfi;
  const uint8_t *payload; /* the T-PDU or the information elements */
  size_t payload_length;
} gtpu_message;

gtpu_status gtpu_parse(const uint8_t *data, size_t length, gtpu_message *out);

/* Writes the 16-octet downlink header in front of a T-PDU of `payload_length` octets at buf + 16. */
void gtpu_write_downlink_header(uint8_t *buf, uint32_t teid, uint8_t qfi, size_t payload_length);
/* Each returns the message length written to `buf` (which holds at least 64 octets). */
size_t gtpu_write_echo_response(uint8_t *buf, uint16_t sequence);
size_t gtpu_write_end_marker(uint8_t *buf, uint32_t teid);
size_t gtpu_write_error_indication(uint8_t *buf, uint32_t teid, const uint8_t *peer_address,
                                   size_t peer_address_length, uint16_t source_port);

#endif
