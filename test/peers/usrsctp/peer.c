/*
 * An independent SCTP peer for interop tests: usrsctp (the FreeBSD stack in user space, Debian's
 * libusrsctp-dev) with UDP encapsulation (RFC 6951). Built by the tests with
 *   gcc -O2 -o peer peer.c -lusrsctp -lpthread
 *
 *   peer server UDP_PORT SCTP_PORT
 *       one-to-many socket on PEER_BIND:SCTP_PORT; echoes every message on its stream with its PPID;
 *       prints READY, then one line per notification (COMM_UP, RESTART, COMM_LOST, SHUTDOWN_COMP, ...).
 *   peer client UDP_PORT PEER_UDP_PORT PEER_ADDR SCTP_PORT LOCAL_SCTP_PORT END
 *       connects from LOCAL_SCTP_PORT (0: any), sends messages of 1 byte to 64 KiB on streams 0..3 with
 *       PPID 60, checks each echo (bytes, stream, PPID), prints ECHO-OK, then ends by END:
 *       `shutdown` (graceful close), `abort` (SO_LINGER 0: ABORT), `hold` (waits for SIGKILL, or for
 *       the association to end, and prints how it ended).
 *
 * Environment: PEER_BIND the local address (127.0.0.1 by default); PEER_HB_MS the heartbeat interval
 * (ms); PEER_RAW=1 keeps raw IP sockets (otherwise
 * CAP_NET_RAW is dropped first, so that usrsctp cannot see or answer other tests' raw SCTP packets).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <usrsctp.h>

#define MAX_MESSAGE (64 * 1024 + 16)

static void say(const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  vprintf(format, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
}

/** The local address to bind: PEER_BIND, else 127.0.0.1. */
static const char *bind_address(void) {
  const char *address = getenv("PEER_BIND");
  return address != NULL ? address : "127.0.0.1";
}

static void drop_net_raw(void) {
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  if (syscall(SYS_capget, &header, data) != 0) return;
  data[0].effective &= ~(1u << CAP_NET_RAW);
  data[0].permitted &= ~(1u << CAP_NET_RAW);
  syscall(SYS_capset, &header, data);
}

static void subscribe(struct socket *s) {
  uint16_t types[] = {SCTP_ASSOC_CHANGE, SCTP_PEER_ADDR_CHANGE, SCTP_SHUTDOWN_EVENT, SCTP_REMOTE_ERROR};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    struct sctp_event event = {.se_assoc_id = SCTP_ALL_ASSOC, .se_type = types[i], .se_on = 1};
    usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_EVENT, &event, sizeof event);
  }
  int on = 1;
  usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof on);
  struct sctp_initmsg init = {.sinit_num_ostreams = 8, .sinit_max_instreams = 8};
  usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_INITMSG, &init, sizeof init);
}

static void encapsulate(struct socket *s, uint16_t peer_udp_port) {
  struct sctp_udpencaps encaps;
  memset(&encaps, 0, sizeof encaps);
  encaps.sue_address.ss_family = AF_INET;
  encaps.sue_port = htons(peer_udp_port);
  if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_REMOTE_UDP_ENCAPS_PORT, &encaps, sizeof encaps) < 0) {
    say("ERROR SCTP_REMOTE_UDP_ENCAPS_PORT %d", errno);
    exit(2);
  }
}

/** Prints a notification; returns 1 when it ends the association. */
static int notification(const union sctp_notification *n) {
  switch (n->sn_header.sn_type) {
    case SCTP_ASSOC_CHANGE:
      switch (n->sn_assoc_change.sac_state) {
        case SCTP_COMM_UP: say("COMM_UP in=%u out=%u", n->sn_assoc_change.sac_inbound_streams,
                               n->sn_assoc_change.sac_outbound_streams); return 0;
        case SCTP_RESTART: say("RESTART"); return 0;
        case SCTP_COMM_LOST: say("COMM_LOST error=%u", n->sn_assoc_change.sac_error); return 1;
        case SCTP_SHUTDOWN_COMP: say("SHUTDOWN_COMP"); return 1;
        case SCTP_CANT_STR_ASSOC: say("CANT_STR_ASSOC"); return 1;
        default: say("ASSOC_CHANGE %u", n->sn_assoc_change.sac_state); return 0;
      }
    case SCTP_PEER_ADDR_CHANGE: say("PEER_ADDR_CHANGE state=%u", n->sn_paddr_change.spc_state); return 0;
    case SCTP_SHUTDOWN_EVENT: say("SHUTDOWN_EVENT"); return 0;
    case SCTP_REMOTE_ERROR: say("REMOTE_ERROR %u", ntohs(n->sn_remote_error.sre_error)); return 0;
    default: say("NOTIFICATION %u", n->sn_header.sn_type); return 0;
  }
}

/** Reads one whole message (or notification). Returns its length, 0 when the socket ended, -1 on error. */
static ssize_t receive(struct socket *s, char *buffer, struct sctp_rcvinfo *info, int *is_notification) {
  size_t length = 0;
  for (;;) {
    struct sockaddr_in from;
    socklen_t fromlen = sizeof from;
    socklen_t infolen = sizeof *info;
    unsigned int infotype = 0;
    int flags = 0;
    ssize_t n = usrsctp_recvv(s, buffer + length, MAX_MESSAGE - length, (struct sockaddr *)&from, &fromlen, info,
                              &infolen, &infotype, &flags);
    if (n <= 0) return n;
    length += (size_t)n;
    *is_notification = (flags & MSG_NOTIFICATION) != 0;
    if (flags & MSG_EOR) return (ssize_t)length;
    if (length >= MAX_MESSAGE) return -1;
  }
}

static int serve(uint16_t sctp_port) {
  struct socket *s = usrsctp_socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP, NULL, NULL, 0, NULL);
  if (s == NULL) { say("ERROR socket %d", errno); return 2; }
  subscribe(s);
  struct sockaddr_in local = {.sin_family = AF_INET, .sin_port = htons(sctp_port)};
  inet_pton(AF_INET, bind_address(), &local.sin_addr);
  if (usrsctp_bind(s, (struct sockaddr *)&local, sizeof local) < 0) { say("ERROR bind %d", errno); return 2; }
  if (usrsctp_listen(s, 16) < 0) { say("ERROR listen %d", errno); return 2; }
  say("READY");
  static char buffer[MAX_MESSAGE];
  for (;;) {
    struct sctp_rcvinfo info;
    int is_notification = 0;
    memset(&info, 0, sizeof info);
    ssize_t n = receive(s, buffer, &info, &is_notification);
    if (n < 0) { say("ERROR recv %d", errno); return 2; }
    if (is_notification) {
      notification((const union sctp_notification *)buffer);
      continue;
    }
    struct sctp_sndinfo snd = {.snd_sid = info.rcv_sid, .snd_ppid = info.rcv_ppid, .snd_assoc_id = info.rcv_assoc_id};
    if (usrsctp_sendv(s, buffer, (size_t)n, NULL, 0, &snd, sizeof snd, SCTP_SENDV_SNDINFO, 0) < 0) {
      say("SEND-FAILED %d", errno);
    }
  }
}

static const size_t SIZES[] = {1, 2, 100, 1000, 1199, 1200, 1201, 1452, 1500, 4000, 16384, 65536};

static int client(uint16_t peer_udp_port, const char *peer_addr, uint16_t sctp_port, uint16_t local_port,
                  const char *end) {
  struct socket *s = usrsctp_socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
  if (s == NULL) { say("ERROR socket %d", errno); return 2; }
  subscribe(s);
  struct sockaddr_in local = {.sin_family = AF_INET, .sin_port = htons(local_port)};
  inet_pton(AF_INET, bind_address(), &local.sin_addr);
  if (usrsctp_bind(s, (struct sockaddr *)&local, sizeof local) < 0) { say("ERROR bind %d", errno); return 2; }
  encapsulate(s, peer_udp_port);
  struct sockaddr_in peer = {.sin_family = AF_INET, .sin_port = htons(sctp_port)};
  inet_pton(AF_INET, peer_addr, &peer.sin_addr);
  if (usrsctp_connect(s, (struct sockaddr *)&peer, sizeof peer) < 0) { say("ERROR connect %d", errno); return 2; }
  say("CONNECTED");
  static char out[MAX_MESSAGE], in[MAX_MESSAGE];
  size_t count = sizeof SIZES / sizeof SIZES[0];
  for (size_t i = 0; i < count; i++) {
    for (size_t k = 0; k < SIZES[i]; k++) out[k] = (char)((k * 7 + i) & 0xff);
    struct sctp_sndinfo snd = {.snd_sid = (uint16_t)(i % 4), .snd_ppid = htonl(60)};
    if (usrsctp_sendv(s, out, SIZES[i], NULL, 0, &snd, sizeof snd, SCTP_SENDV_SNDINFO, 0) < 0) {
      say("ERROR send %d", errno);
      return 2;
    }
  }
  /* Order holds per stream only: the next echo on stream k is message next[k] (k, k + 4, k + 8). */
  size_t next[4] = {0, 1, 2, 3};
  for (size_t received = 0; received < count;) {
    struct sctp_rcvinfo info;
    int is_notification = 0;
    memset(&info, 0, sizeof info);
    ssize_t n = receive(s, in, &info, &is_notification);
    if (n <= 0) { say("ERROR recv %zd %d", n, errno); return 2; }
    if (is_notification) {
      if (notification((const union sctp_notification *)in)) return 3;
      continue;
    }
    if (info.rcv_sid >= 4 || next[info.rcv_sid] >= count) {
      say("ERROR echo on unexpected stream %u", info.rcv_sid);
      return 4;
    }
    size_t i = next[info.rcv_sid];
    for (size_t k = 0; k < SIZES[i]; k++) out[k] = (char)((k * 7 + i) & 0xff);
    if ((size_t)n != SIZES[i] || memcmp(in, out, SIZES[i]) != 0 || ntohl(info.rcv_ppid) != 60) {
      say("ERROR echo %zu: %zd bytes, stream %u, ppid %u", i, n, info.rcv_sid, ntohl(info.rcv_ppid));
      return 4;
    }
    next[info.rcv_sid] += 4;
    received++;
  }
  say("ECHO-OK %zu", count);
  if (strcmp(end, "abort") == 0) {
    struct linger linger = {.l_onoff = 1, .l_linger = 0};
    usrsctp_setsockopt(s, SOL_SOCKET, SO_LINGER, &linger, sizeof linger);
    usrsctp_close(s);
    say("ABORTED");
    /* usrsctp sends from its own threads: give the ABORT time to leave before the process does. */
    usleep(300000);
    return 0;
  }
  if (strcmp(end, "shutdown") == 0) {
    usrsctp_shutdown(s, SHUT_WR);
  }
  /* Wait for the association to end (the peer's shutdown or abort, or ours completing). */
  for (;;) {
    struct sctp_rcvinfo info;
    int is_notification = 0;
    ssize_t n = receive(s, in, &info, &is_notification);
    if (n <= 0) { say("ENDED"); break; }
    if (is_notification && notification((const union sctp_notification *)in)) break;
  }
  usrsctp_close(s);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: peer server UDP_PORT SCTP_PORT | client UDP_PORT PEER_UDP_PORT PEER_ADDR SCTP_PORT LOCAL_PORT END\n");
    return 1;
  }
  if (getenv("PEER_RAW") == NULL) drop_net_raw();
  usrsctp_init((uint16_t)atoi(argv[2]), NULL, NULL);
  usrsctp_sysctl_set_sctp_blackhole(0);
  const char *hb = getenv("PEER_HB_MS");
  if (hb != NULL) usrsctp_sysctl_set_sctp_heartbeat_interval_default((uint32_t)atoi(hb));
  int rc;
  if (strcmp(argv[1], "server") == 0) {
    rc = serve((uint16_t)atoi(argv[3]));
  } else if (strcmp(argv[1], "client") == 0 && argc == 8) {
    rc = client((uint16_t)atoi(argv[3]), argv[4], (uint16_t)atoi(argv[5]), (uint16_t)atoi(argv[6]), argv[7]);
  } else {
    rc = 1;
  }
  _exit(rc);
}
