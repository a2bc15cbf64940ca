/* The sockets of a GTP-U forwarder, for the UPF and the simulated gNB alike: the N3 UDP socket and
 * a TUN device. */
#ifndef PMN_UPF_N3_SOCKET_H
#define PMN_UPF_N3_SOCKET_H

#include <linux/if.h>
#include <pthread.h>
#include <stdbool.h>
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

/* One datagram read from an N3 socket: `length` is 0 when it was larger than its buffer (`truncated`);
 * `now` is CLOCK_MONOTONIC in nanoseconds, read once per batch. */
typedef void n3_packet_handler(void *context, const uint8_t *data, size_t length, bool truncated,
                               struct sockaddr_storage *from, socklen_t from_length, uint64_t now);

/* Reads up to `batch` datagrams at once (recvmmsg, non-blocking) into `rx` (`batch` buffers of
 * `buffer_size` octets each) and hands each to `handler` with `lock` held. Returns false when the
 * socket had nothing more to read, true when it may hold more (the batch was full). */
bool n3_receive_batch(int fd, uint8_t *rx, size_t buffer_size, unsigned batch, pthread_mutex_t *lock,
                      n3_packet_handler *handler, void *context);

#endif
