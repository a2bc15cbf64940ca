/* The benches' user-plane helper (bench/upf-plain.ts): a datagram blaster, a sink, and a plain
 * UDP<->TUN forwarder. The forwarder is the ceiling the UPF and the simulated gNB's user plane are
 * measured against: the same system calls with the same batching and the same TUN offloads, through
 * the same C (native/upf/n3-socket.c, tun-gso.c, tun-gro.c: recvmmsg of 32 with UDP_GRO, the TCP
 * packets joined into the TUN's writes; up to 32 TUN reads, TCP segments cut, then sendmmsg with
 * UDP_SEGMENT; at most 8 batches per readable event; 4 MiB socket buffers), without GTP-U, lookups,
 * policing or accounting. Each mode runs until SIGTERM and then prints "<packets> <cpu microseconds>". */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <netinet/udp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../native/upf/n3-socket.h"
#include "../native/upf/tun-gro.h"
#include "../native/upf/tun-gso.h"

/* As native/upf/forwarder.c and native/gnb-user-plane/gnb-user-plane.c. */
#define BATCH 32
#define BATCHES_PER_TURN 8
#define BUFFER_SIZE 65536

static volatile sig_atomic_t stop;
static void on_term(int s) {
  (void)s;
  stop = 1;
}

static struct sockaddr_in address(const char *ip, int port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((unsigned short)port);
  inet_pton(AF_INET, ip, &a.sin_addr);
  return a;
}

static int udp(const char *ip, int port) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  int size = 4 << 20;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size);
  setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof size);
  if (ip != NULL) {
    struct sockaddr_in a = address(ip, port);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0) {
      perror("bind");
      exit(1);
    }
  }
  return fd;
}

static void report(unsigned long long packets) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  printf("%llu %lld\n", packets,
         (long long)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1000000 + r.ru_utime.tv_usec +
             r.ru_stime.tv_usec);
}

static unsigned char buffers[BATCH][BUFFER_SIZE];
static struct mmsghdr m[BATCH];
static struct iovec iov[BATCH];

/* The forwarder's state: its TUN, the joiner of what goes into it, the queue of what leaves. */
static tun_gro into_tun;
static n3_send_queue out;
static uint8_t frame[TUN_VNET_HDR + 65536];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Counts the packets written; they carry no item (item_size 0). */
static void on_written(void *context, const void *items, unsigned n, bool ok) {
  (void)items;
  if (ok) *(unsigned long long *)context += n;
}

static void on_datagram(void *context, const uint8_t *data, size_t length, bool truncated,
                        struct sockaddr_storage *from, socklen_t from_length, uint64_t now) {
  (void)context, (void)from, (void)from_length, (void)now;
  if (!truncated) tun_gro_add(&into_tun, data, length, NULL);
}

static void on_batch_done(void *context) {
  (void)context;
  tun_gro_flush(&into_tun);
}

/* One recvmmsg into the TUN; false when the socket had less than a batch. */
static bool udp_to_tun(int fd) {
  return n3_receive_batch(fd, &buffers[0][0], BUFFER_SIZE, BATCH, &lock, on_datagram, on_batch_done,
                          NULL);
}

/* Up to a batch of TUN reads, cut into packets, then sendmmsg to the peer; false when the TUN ran
 * dry. */
static bool tun_to_udp(int tun, int fd, struct sockaddr_storage *peer, unsigned long long *packets) {
  bool more = true;
  for (int n = 0; n < BATCH; n++) {
    ssize_t r = read(tun, frame, sizeof frame);
    tun_gso g;
    if (r <= 0) {
      more = false;
      break;
    }
    if (!tun_gso_parse(frame, (size_t)r, &g)) continue;
    unsigned first = out.count;
    for (unsigned i = 0; i < g.pieces; i++) {
      uint8_t *at = n3_send_queue_room(&out, tun_gso_piece_max(&g));
      if (at == NULL) {
        *packets -= n3_send_queue_send(&out, fd);
        first = 0;
        at = n3_send_queue_room(&out, tun_gso_piece_max(&g));
      }
      n3_send_queue_push(&out, tun_gso_piece(&g, i, at), peer, sizeof(struct sockaddr_in));
      (*packets)++; /* less those lost, below */
    }
    if (g.gso) n3_send_queue_join(&out, first, g.header + g.mss);
  }
  *packets -= n3_send_queue_send(&out, fd);
  return more;
}

int main(int argc, char **argv) {
  signal(SIGTERM, on_term);
  signal(SIGINT, on_term);
  unsigned long long packets = 0;
  if (argc >= 5 && strcmp(argv[1], "blast") == 0) {
    /* blast <to ip> <to port> <hex payload> [from ip] */
    size_t n = strlen(argv[4]) / 2;
    for (size_t i = 0; i < n; i++) sscanf(argv[4] + 2 * i, "%2hhx", &buffers[0][i]);
    int fd = udp(argc > 5 ? argv[5] : NULL, 0);
    struct sockaddr_in to = address(argv[2], atoi(argv[3]));
    for (int i = 0; i < BATCH; i++) {
      iov[i].iov_base = buffers[0];
      iov[i].iov_len = n;
      m[i].msg_hdr.msg_iov = &iov[i];
      m[i].msg_hdr.msg_iovlen = 1;
      m[i].msg_hdr.msg_name = &to;
      m[i].msg_hdr.msg_namelen = sizeof to;
    }
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    while (!stop) {
      int sent = sendmmsg(fd, m, BATCH, 0);
      if (sent > 0)
        packets += (unsigned long long)sent;
      else
        poll(&p, 1, 100);
    }
  } else if (argc >= 4 && strcmp(argv[1], "sink") == 0) {
    /* sink <ip> <port> */
    int fd = udp(argv[2], atoi(argv[3]));
    for (int i = 0; i < BATCH; i++) {
      iov[i].iov_base = buffers[i];
      iov[i].iov_len = sizeof buffers[i];
      m[i].msg_hdr.msg_iov = &iov[i];
      m[i].msg_hdr.msg_iovlen = 1;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (!stop) {
      if (poll(&p, 1, 100) <= 0) continue;
      int got = recvmmsg(fd, m, BATCH, MSG_DONTWAIT, NULL);
      if (got > 0) packets += (unsigned long long)got;
    }
  } else if (argc >= 5 && strcmp(argv[1], "forward") == 0) {
    /* forward <tun> <udp ip> <peer ip>: UDP payloads on port 2152 into the TUN, TUN packets to the
     * peer's port 2152. Prints "ready" once both are open (the caller may then move the TUN). */
    char name[IFNAMSIZ];
    int tun = tun_open(argv[2], name);
    if (tun < 0 || !tun_gro_init(&into_tun, tun, 0, on_written, &packets) ||
        !n3_send_queue_init(&out, (size_t)BATCH * (BUFFER_SIZE + 64))) {
      fprintf(stderr, "tun: %s\n", strerror(tun < 0 ? -tun : ENOMEM));
      return 1;
    }
    int fd = udp(argv[3], 2152);
    int on = 1;
    setsockopt(fd, SOL_UDP, UDP_GRO, &on, sizeof on);
    struct sockaddr_storage peer;
    struct sockaddr_in to = address(argv[4], 2152);
    memset(&peer, 0, sizeof peer);
    memcpy(&peer, &to, sizeof to);
    printf("ready\n");
    fflush(stdout);
    struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = tun, .events = POLLIN}};
    while (!stop) {
      if (poll(p, 2, 100) <= 0) continue;
      if (p[0].revents & POLLIN)
        for (int i = 0; i < BATCHES_PER_TURN && udp_to_tun(fd); i++) continue;
      if (p[1].revents & POLLIN)
        for (int i = 0; i < BATCHES_PER_TURN && tun_to_udp(tun, fd, &peer, &packets); i++) continue;
    }
  } else {
    fprintf(stderr, "usage: blast|sink|forward ...\n");
    return 2;
  }
  report(packets);
  return 0;
}
