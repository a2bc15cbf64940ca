/* qexit RC: ends qemu with exit status (RC << 1) | 1 through -device
 * isa-debug-exit,iobase=0xf4,iosize=0x04 (the cloud kernel has no /dev/port). */
#include <stdlib.h>
#include <sys/io.h>

int main(int argc, char **argv) {
  if (ioperm(0xf4, 1, 1)) return 1;
  outb((unsigned char)atoi(argc > 1 ? argv[1] : "0"), 0xf4);
  return 0;
}
