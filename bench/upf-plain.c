/* The benches' user-plane helper (bench/upf-plain.ts): a datagram blaster, a sink, and a plain
 * UDP<->TUN forwarder. The forwarder is the ceiling the UPF and the simulated gNB's user plane are
 * measured against: the same system calls with the same batching (recvmmsg of 32 then one write per
 * packet into the TUN; up to 32 TUN reads then sendmmsg; at most 8 batches per readable event; 4 MiB
 * socket buffers), without GTP-U, lookups, policing or accounting. Each mode runs until SIGTERM and
 * then prints "<packets> <cpu microseconds>". */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

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

/* One recvmmsg, each datagram written into the TUN; false when the socket had less than a batch. */
static bool udp_to_tun(int fd, int tun, unsigned long long *packets) {
  for (int i = 0; i < BATCH; i++) {
    iov[i].iov_base = buffers[i];
    iov[i].iov_len = sizeof buffers[i];
    memset(&m[i].msg_hdr, 0, sizeof m[i].msg_hdr);
    m[i].msg_hdr.msg_iov = &iov[i];
    m[i].msg_hdr.msg_iovlen = 1;
  }
  int got = recvmmsg(fd, m, BATCH, MSG_DONTWAIT, NULL);
  for (int i = 0; i < got; i++)
    if (write(tun, buffers[i], m[i].msg_len) == (ssize_t)m[i].msg_len) (*packets)++;
  return got == BATCH;
}

/* Up to a batch of TUN reads, then sendmmsg to the peer; false when the TUN ran dry. */
static bool tun_to_udp(int tun, int fd, struct sockaddr_in *peer, unsigned long long *packets) {
  int n = 0;
  bool more = true;
  for (; n < BATCH; n++) {
    ssize_t r = read(tun, buffers[n], sizeof buffers[n]);
    if (r <= 0) {
      more = false;
      break;
    }
    iov[n].iov_base = buffers[n];
    iov[n].iov_len = (size_t)r;
    memset(&m[n].msg_hdr, 0, sizeof m[n].msg_hdr);
    m[n].msg_hdr.msg_iov = &iov[n];
    m[n].msg_hdr.msg_iovlen = 1;
    m[n].msg_hdr.msg_name = peer;
    m[n].msg_hdr.msg_namelen = sizeof *peer;
  }
  for (int sent = 0; sent < n;) {
    int s = sendmmsg(fd, m + sent, (unsigned)(n - sent), MSG_DONTWAIT);
    if (s <= 0) {
      sent++;
      continue;
    }
    sent += s;
    *packets += (unsigned long long)s;
  }
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
    int tun = open("/dev/net/tun", O_RDWR | O_NONBLOCK);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
    strncpy(ifr.ifr_name, argv[2], IFNAMSIZ - 1);
    if (tun < 0 || ioctl(tun, TUNSETIFF, &ifr) < 0) {
      perror("tun");
      return 1;
    }
    int fd = udp(argv[3], 2152);
    struct sockaddr_in peer = address(argv[4], 2152);
    printf("ready\n");
    fflush(stdout);
    struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = tun, .events = POLLIN}};
    while (!stop) {
      if (poll(p, 2, 100) <= 0) continue;
      if (p[0].revents & POLLIN)
        for (int i = 0; i < BATCHES_PER_TURN && udp_to_tun(fd, tun, &packets); i++) continue;
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
