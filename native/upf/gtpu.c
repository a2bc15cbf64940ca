#include "gtpu.h"

#include <string.h>

#include "net-bytes.h"

/* TS 29.281 5.1: flags V(3) PT E S PN; E, S or PN set means the 4 optional octets follow. */
#define FLAGS_VERSION_PT 0x30
#define FLAG_E 0x04
#define FLAG_S 0x02
#define FLAG_PN 0x01

gtpu_status gtpu_parse(const uint8_t *data, size_t length, gtpu_message *out) {
  if (length < 8) return GTPU_TOO_SHORT;
  if ((data[0] & 0xf0) != FLAGS_VERSION_PT) return GTPU_BAD_VERSION;
  size_t total = 8 + (((size_t)data[2] << 8) | data[3]);
  /* Octets beyond the length field are not part of the message (5.1: "Length"). */
  if (total > length) return GTPU_TOO_SHORT;
  out->type = data[1];
  out->teid = ((uint32_t)data[4] << 24) | ((uint32_t)data[5] << 16) | ((uint32_t)data[6] << 8) |
              data[7];
  out->has_sequence = (data[0] & FLAG_S) != 0;
  out->sequence = 0;
  out->qfi = -1;
  size_t offset = 8;
  if (data[0] & (FLAG_E | FLAG_S | FLAG_PN)) {
    if (total < 12) return GTPU_TOO_SHORT;
    out->sequence = (uint16_t)((data[8] << 8) | data[9]);
    uint8_t next = (data[0] & FLAG_E) ? data[11] : GTPU_EXT_NONE;
    offset = 12;
    /* 5.2.1: each extension header is 4n octets, n in its first octet, the next type in its last. */
    while (next != GTPU_EXT_NONE) {
      if (offset >= total) return GTPU_BAD_EXTENSION;
      size_t ext_length = 4 * (size_t)data[offset];
      if (ext_length == 0 || ext_length > total - offset) return GTPU_BAD_EXTENSION;
      const uint8_t *ext = data + offset;
      switch (next) {
        case GTPU_EXT_PDU_SESSION_CONTAINER:
          /* TS 38.415 5.5.2.1-2: DL (PDU type 0, what a source gNB forwards) and UL (type 1) PDU
           * SESSION INFORMATION both carry the QFI in octet 2's low six bits. */
          if ((ext[1] >> 4) <= 1) out->qfi = ext[2] & 0x3f;
          break;
        case GTPU_EXT_UDP_PORT:
        case GTPU_EXT_PDCP_PDU_NUMBER:
          break;
        default:
          /* Figure 5.2.1-2: the two high bits 1x mean "comprehension required". */
          if (next & 0x80) return GTPU_UNKNOWN_REQUIRED_EXT;
          break;
      }
      next = ext[ext_length - 1];
      offset += ext_length;
    }
  }
  out->payload = data + offset;
  out->payload_length = total - offset;
  return GTPU_OK;
}

void gtpu_write_downlink_header(uint8_t *buf, uint32_t teid, uint8_t qfi, size_t payload_length) {
  buf[0] = FLAGS_VERSION_PT | FLAG_E;
  buf[1] = GTPU_G_PDU;
  put16(buf + 2, (uint16_t)(payload_length + 8));
  put32(buf + 4, teid);
  put16(buf + 8, 0); /* sequence number: not used on N3 (S = 0) */
  buf[10] = 0;       /* N-PDU number (PN = 0) */
  buf[11] = GTPU_EXT_PDU_SESSION_CONTAINER;
  /* TS 38.415 5.5.2.1 DL PDU SESSION INFORMATION: PDU type 0, no QMP/SNP/MSNP; PPP 0, RQI 0, QFI. */
  buf[12] = 1;
  buf[13] = 0x00;
  buf[14] = qfi & 0x3f;
  buf[15] = GTPU_EXT_NONE;
}

size_t gtpu_write_echo_response(uint8_t *buf, uint16_t sequence) {
  /* 7.2.2: TEID 0, S = 1 with the request's sequence number (4.3.1), Recovery IE with 0. */
  buf[0] = FLAGS_VERSION_PT | FLAG_S;
  buf[1] = GTPU_ECHO_RESPONSE;
  put16(buf + 2, 6);
  put32(buf + 4, 0);
  put16(buf + 8, sequence);
  buf[10] = 0;
  buf[11] = GTPU_EXT_NONE;
  buf[12] = GTPU_IE_RECOVERY;
  buf[13] = 0;
  return 14;
}

size_t gtpu_write_end_marker(uint8_t *buf, uint32_t teid) {
  /* 7.3.2: the End Marker carries the TEID of the path it ends and no T-PDU. */
  buf[0] = FLAGS_VERSION_PT;
  buf[1] = GTPU_END_MARKER;
  put16(buf + 2, 0);
  put32(buf + 4, teid);
  return 8;
}

size_t gtpu_write_error_indication(uint8_t *buf, uint32_t teid, const uint8_t *peer_address,
                                   size_t peer_address_length, uint16_t source_port) {
  /* 7.3.1: TEID 0, S = 1; TEID Data I (the G-PDU's TEID) and GTP-U Peer Address (where the G-PDU
   * was sent, i.e. this N3 address); 5.2.2.1: the UDP Port extension header with the G-PDU's
   * source port. */
  buf[0] = FLAGS_VERSION_PT | FLAG_E | FLAG_S;
  buf[1] = GTPU_ERROR_INDICATION;
  put32(buf + 4, 0);
  put16(buf + 8, 0);
  buf[10] = 0;
  buf[11] = GTPU_EXT_UDP_PORT;
  buf[12] = 1;
  put16(buf + 13, source_port);
  buf[15] = GTPU_EXT_NONE;
  size_t o = 16;
  buf[o++] = GTPU_IE_TEID_DATA_I;
  put32(buf + o, teid);
  o += 4;
  buf[o++] = GTPU_IE_PEER_ADDRESS;
  put16(buf + o, (uint16_t)peer_address_length);
  o += 2;
  memcpy(buf + o, peer_address, peer_address_length);
  o += peer_address_length;
  put16(buf + 2, (uint16_t)(o - 8));
  return o;
}
