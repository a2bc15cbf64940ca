/* Drives native/upf/tun-gso.c for tun-gso.test.ts: reads one TUN read (virtio_net_hdr + packet)
 * from stdin and writes its pieces to stdout as a pcap file of raw IP packets (LINKTYPE_RAW), which
 * the test decodes with tshark; exits 3 when tun_gso_parse refuses the read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../native/upf/tun-gso.h"

static void put(const void *p, size_t n) {
  if (fwrite(p, 1, n, stdout) != n) exit(1);
}

int main(void) {
  static uint8_t read[TUN_VNET_HDR + 65536 + 1];
  static uint8_t piece[65536];
  size_t length = fread(read, 1, sizeof read, stdin);
  if (length == sizeof read) return 1; /* larger than a TUN read can be */
  tun_gso g;
  if (!tun_gso_parse(read, length, &g)) return 3;
  /* pcap: magic, version 2.4, zone, sigfigs, snaplen, LINKTYPE_RAW (101). */
  uint32_t file[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 65536, 101};
  put(file, sizeof file);
  for (unsigned i = 0; i < g.pieces; i++) {
    if (tun_gso_piece_max(&g) > sizeof piece) return 1;
    uint32_t n = (uint32_t)tun_gso_piece(&g, i, piece);
    uint32_t record[4] = {i, 0, n, n};
    put(record, sizeof record);
    put(piece, n);
  }
  return 0;
}
