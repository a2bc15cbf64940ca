/* The N3 UDP socket and TUN devices (n3-socket.h). */
#include "n3-socket.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "tun-gso.h"

/* Bounds the stack arrays of n3_receive_batch. */
#define MAX_BATCH 64

int n3_socket_open(const struct sockaddr_storage *address, socklen_t length, n3_endpoint *bound,
                   const char **syscall) {
  int family = address->ss_family;
  *syscall = "socket";
  int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -errno;
  int size = 4 << 20;
  /* Bursts of small packets: a larger buffer than the default 208 KiB, where allowed. */
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) < 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof size) < 0)
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
  *syscall = "bind";
  if (bind(fd, (const struct sockaddr *)address, length) < 0) {
    int err = errno;
    close(fd);
    return -err;
  }
  struct sockaddr_storage actual;
  socklen_t actual_length = sizeof actual;
  getsockname(fd, (struct sockaddr *)&actual, &actual_length);
  bound->family = family;
  if (family == AF_INET) {
    struct sockaddr_in *a = (struct sockaddr_in *)&actual;
    bound->port = ntohs(a->sin_port);
    memcpy(bound->address, &a->sin_addr, 4);
    bound->address_length = 4;
  } else {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&actual;
    bound->port = ntohs(a->sin6_port);
    memcpy(bound->address, &a->sin6_addr, 16);
    bound->address_length = 16;
  }
  return fd;
}

int tun_open(const char *name, char actual[IFNAMSIZ]) {
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -errno;
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI | IFF_VNET_HDR;
  strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
  /* Checksums and TCP segmentation left to the reader, as a NIC's: one read per 64 KiB of a TCP
   * stream instead of one per MTU-sized packet. */
  unsigned offload = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6;
  if (ioctl(fd, TUNSETIFF, &ifr) < 0 || ioctl(fd, TUNSETOFFLOAD, offload) < 0) {
    int err = errno;
    close(fd);
    return -err;
  }
  memcpy(actual, ifr.ifr_name, IFNAMSIZ);
  actual[IFNAMSIZ - 1] = 0;
  return fd;
}

bool tun_write(int fd, const uint8_t *packet, size_t length) {
  static const struct virtio_net_hdr none; /* GSO_NONE, no flags */
  struct iovec iov[2] = {
      {.iov_base = (void *)&none, .iov_len = TUN_VNET_HDR},
      {.iov_base = (void *)packet, .iov_len = length},
  };
  return writev(fd, iov, 2) == (ssize_t)(TUN_VNET_HDR + length);
}

bool n3_send_queue_init(n3_send_queue *q, size_t size) {
  q->area = malloc(size);
  q->size = size;
  q->used = 0;
  q->count = 0;
  return q->area != NULL;
}

void n3_send_queue_free(n3_send_queue *q) {
  free(q->area);
  q->area = NULL;
}

uint8_t *n3_send_queue_room(n3_send_queue *q, size_t length) {
  if (q->count == N3_SEND_MESSAGES || q->size - q->used < length) return NULL;
  return q->area + q->used;
}

void n3_send_queue_push(n3_send_queue *q, size_t length, const struct sockaddr_storage *to,
                        socklen_t to_length) {
  unsigned i = q->count++;
  memcpy(&q->to[i], to, to_length);
  q->iov[i].iov_base = q->area + q->used;
  q->iov[i].iov_len = length;
  memset(&q->messages[i].msg_hdr, 0, sizeof q->messages[i].msg_hdr);
  q->messages[i].msg_hdr.msg_name = &q->to[i];
  q->messages[i].msg_hdr.msg_namelen = to_length;
  q->messages[i].msg_hdr.msg_iov = &q->iov[i];
  q->messages[i].msg_hdr.msg_iovlen = 1;
  q->used += length;
}

unsigned n3_send_queue_send(n3_send_queue *q, int fd) {
  unsigned lost = 0;
  for (unsigned sent = 0; sent < q->count;) {
    int n = sendmmsg(fd, q->messages + sent, q->count - sent, MSG_DONTWAIT);
    if (n <= 0) {
      /* The one that failed is lost; the rest are tried again. */
      lost++;
      sent++;
      continue;
    }
    sent += (unsigned)n;
  }
  q->count = 0;
  q->used = 0;
  return lost;
}

bool n3_receive_batch(int fd, uint8_t *rx, size_t buffer_size, unsigned batch, pthread_mutex_t *lock,
                      n3_packet_handler *handler, void *context) {
  struct mmsghdr messages[MAX_BATCH];
  struct iovec iov[MAX_BATCH];
  struct sockaddr_storage from[MAX_BATCH];
  if (batch > MAX_BATCH) batch = MAX_BATCH;
  for (unsigned i = 0; i < batch; i++) {
    iov[i].iov_base = rx + (size_t)i * buffer_size;
    iov[i].iov_len = buffer_size;
    memset(&messages[i].msg_hdr, 0, sizeof messages[i].msg_hdr);
    messages[i].msg_hdr.msg_iov = &iov[i];
    messages[i].msg_hdr.msg_iovlen = 1;
    messages[i].msg_hdr.msg_name = &from[i];
    messages[i].msg_hdr.msg_namelen = sizeof from[i];
  }
  int n = recvmmsg(fd, messages, batch, MSG_DONTWAIT | MSG_TRUNC, NULL);
  if (n <= 0) return false;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  pthread_mutex_lock(lock);
  for (int i = 0; i < n; i++) {
    size_t length = messages[i].msg_len;
    bool truncated = length > buffer_size || (messages[i].msg_hdr.msg_flags & MSG_TRUNC);
    handler(context, iov[i].iov_base, truncated ? 0 : length, truncated, &from[i],
            messages[i].msg_hdr.msg_namelen, now);
  }
  pthread_mutex_unlock(lock);
  return (unsigned)n == batch;
}
