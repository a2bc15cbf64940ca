/* Drives native/upf/tun-gro.c for tun-gro.test.ts: reads packets from stdin (each a 16-bit
 * little-endian length and the packet), adds them in order, flushes at the end; the writes go to the
 * file named by argv[1], and stdout gets one line per write: "<packets> <ok> <end offset>". */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../../native/upf/tun-gro.h"

static void written(void *context, const void *items, unsigned packets, bool ok) {
  (void)items;
  int fd = *(int *)context;
  printf("%u %d %lld\n", packets, ok, (long long)lseek(fd, 0, SEEK_CUR));
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0600);
  tun_gro g;
  if (fd < 0 || !tun_gro_init(&g, fd, 0, written, &fd)) return 1;
  static uint8_t packet[65536];
  uint8_t length[2];
  while (fread(length, 1, 2, stdin) == 2) {
    size_t n = (size_t)length[0] | (size_t)length[1] << 8;
    if (fread(packet, 1, n, stdin) != n) return 1;
    tun_gro_add(&g, packet, n, NULL);
  }
  tun_gro_flush(&g);
  tun_gro_free(&g);
  return close(fd) == 0 ? 0 : 1;
}
