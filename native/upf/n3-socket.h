/* The sockets of a GTP-U forwarder, for the UPF and the simulated gNB alike: the N3 UDP socket and
 * a TUN device. */
#ifndef PMN_UPF_N3_SOCKET_H
#define PMN_UPF_N3_SOCKET_H

#include <linux/if.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Where an N3 socket is bound: what Error Indications carry as the sender's address. */
typedef struct {
  int family;
  uint16_t port;
  uint8_t address[16];
  size_t address_length;
} n3_endpoint;

/* A non-blocking UDP socket bound to `address` with 4 MiB buffers where allowed. Returns the
 * descriptor, or -errno with *syscall naming the call that failed. */
int n3_socket_open(const struct sockaddr_storage *address, socklen_t length, n3_endpoint *bound,
                   const char **syscall);

/* A non-blocking TUN device of bare IP packets (IFF_NO_PI) named `name` (empty: the kernel's
 * tunN); its actual name goes to `actual`. Not persistent: closing the descriptor removes it.
 * Returns the descriptor or -errno. */
int tun_open(const char *name, char actual[IFNAMSIZ]);

#endif
