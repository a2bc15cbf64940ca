/* The N3 UDP socket and TUN devices (n3-socket.h). */
#include "n3-socket.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "tun-gso.h"

/* Bounds the stack arrays of n3_receive_batch. */
#define MAX_BATCH 64
/* A joined send: the largest UDP payload over IPv4, and the kernel's UDP_GRO_CNT_MAX (a receiver
 * with UDP_GRO then gets it whole). */
#define MAX_JOINED 65507
#define MAX_JOINED_DATAGRAMS 64

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
  /* Datagrams the kernel joined (GRO of one flow, or one UDP_SEGMENT send over loopback) come in
   * one read with their size; left off where the kernel has no UDP_GRO. */
  int on = 1;
  setsockopt(fd, SOL_UDP, UDP_GRO, &on, sizeof on);
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
  q->no_segment = false;
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
  q->segment[i] = 0;
  q->used += length;
}

void n3_send_queue_join(n3_send_queue *q, unsigned first, size_t size) {
  if (q->no_segment || first + 1 >= q->count || size == 0 || size > UINT16_MAX) return;
  unsigned out = first;
  for (unsigned i = first; i < q->count;) {
    /* Datagrams i.. go into message `out`, as many as one send may carry. */
    unsigned n = 0;
    size_t length = 0;
    while (i + n < q->count && n < MAX_JOINED_DATAGRAMS &&
           length + q->iov[i + n].iov_len <= MAX_JOINED)
      length += q->iov[i + n++].iov_len;
    q->iov[out].iov_base = q->iov[i].iov_base;
    q->iov[out].iov_len = length;
    q->messages[out].msg_hdr = q->messages[i].msg_hdr;
    q->messages[out].msg_hdr.msg_iov = &q->iov[out];
    q->messages[out].msg_hdr.msg_name = &q->to[out];
    if (out != i) q->to[out] = q->to[i];
    q->segment[out] = 0;
    if (n > 1) {
      q->segment[out] = (uint16_t)size;
      q->messages[out].msg_hdr.msg_control = q->control[out].buffer;
      q->messages[out].msg_hdr.msg_controllen = sizeof q->control[out].buffer;
      struct cmsghdr *c = CMSG_FIRSTHDR(&q->messages[out].msg_hdr);
      c->cmsg_level = SOL_UDP;
      c->cmsg_type = UDP_SEGMENT;
      c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
      uint16_t s = (uint16_t)size;
      memcpy(CMSG_DATA(c), &s, sizeof s);
    }
    out++;
    i += n;
  }
  q->count = out;
}

/* A joined message whose send failed: its datagrams one by one. Returns how many were lost. */
static unsigned send_each(n3_send_queue *q, int fd, unsigned i) {
  unsigned lost = 0;
  const uint8_t *p = q->iov[i].iov_base;
  size_t length = q->iov[i].iov_len;
  for (size_t at = 0; at < length; at += q->segment[i]) {
    size_t part = length - at < q->segment[i] ? length - at : q->segment[i];
    if (sendto(fd, p + at, part, MSG_DONTWAIT, q->messages[i].msg_hdr.msg_name,
               q->messages[i].msg_hdr.msg_namelen) < 0)
      lost++;
  }
  return lost;
}

unsigned n3_send_queue_send(n3_send_queue *q, int fd) {
  unsigned lost = 0;
  for (unsigned sent = 0; sent < q->count;) {
    int n = sendmmsg(fd, q->messages + sent, q->count - sent, MSG_DONTWAIT);
    if (n <= 0) {
      if (q->segment[sent] != 0) {
        /* EIO: the route's device cannot checksum, which UDP GSO needs; EMSGSIZE: datagrams larger
         * than the route's MTU; EINVAL, ENOPROTOOPT: a kernel without UDP GSO. Each way this
         * queue sends datagram by datagram from now on. */
        if (errno == EIO || errno == EMSGSIZE || errno == EINVAL || errno == ENOPROTOOPT)
          q->no_segment = true;
        lost += send_each(q, fd, sent);
      } else {
        /* The one that failed is lost; the rest are tried again. */
        lost++;
      }
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
                      n3_packet_handler *handler, n3_batch_done *done, void *context) {
  struct mmsghdr messages[MAX_BATCH];
  struct iovec iov[MAX_BATCH];
  struct sockaddr_storage from[MAX_BATCH];
  union {
    char buffer[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } control[MAX_BATCH];
  if (batch > MAX_BATCH) batch = MAX_BATCH;
  for (unsigned i = 0; i < batch; i++) {
    iov[i].iov_base = rx + (size_t)i * buffer_size;
    iov[i].iov_len = buffer_size;
    memset(&messages[i].msg_hdr, 0, sizeof messages[i].msg_hdr);
    messages[i].msg_hdr.msg_iov = &iov[i];
    messages[i].msg_hdr.msg_iovlen = 1;
    messages[i].msg_hdr.msg_name = &from[i];
    messages[i].msg_hdr.msg_namelen = sizeof from[i];
    messages[i].msg_hdr.msg_control = control[i].buffer;
    messages[i].msg_hdr.msg_controllen = sizeof control[i].buffer;
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
    size_t segment = length;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&messages[i].msg_hdr); c != NULL;
         c = CMSG_NXTHDR(&messages[i].msg_hdr, c))
      if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
        int size;
        memcpy(&size, CMSG_DATA(c), sizeof size);
        if (size > 0) segment = (size_t)size;
      }
    if (truncated) {
      handler(context, iov[i].iov_base, 0, true, &from[i], messages[i].msg_hdr.msg_namelen, now);
      continue;
    }
    /* The kernel's segments: each `segment` octets but the last. */
    size_t at = 0;
    do {
      size_t part = length - at < segment ? length - at : segment;
      handler(context, (uint8_t *)iov[i].iov_base + at, part, false, &from[i],
              messages[i].msg_hdr.msg_namelen, now);
      at += part;
    } while (at < length);
  }
  if (done != NULL) done(context);
  pthread_mutex_unlock(lock);
  return (unsigned)n == batch;
}
