#include "gnb-user-plane.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <sched.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

/* The GTP-U parser and writers and the bounded map are the UPF's (native/upf/): one C codec. */
#include "../upf/downlink-buffer.h"
#include "../upf/gtpu.h"
#include "../upf/map.h"
#include "../upf/n3-socket.h"
#include "../upf/tun-gro.h"
#include "../upf/tun-gso.h"

#define GNB_UP_COUNTER_NAME(name, text) text,
const char *const gnb_up_counter_names[GNB_UP_COUNTER_COUNT] = {
    GNB_UP_COUNTERS(GNB_UP_COUNTER_NAME)};
#undef GNB_UP_COUNTER_NAME

/* Datagrams or TUN reads per batch, batches per readiness before looking at the others. */
#define BATCH 32
#define BATCHES_PER_TURN 8
#define BUFFER_SIZE 65536
/* A TUN read: its virtio_net_hdr and a packet or TCP segment of up to 64 KiB. */
#define FRAME_SIZE (TUN_VNET_HDR + BUFFER_SIZE)
/* Mandatory header + the 4 optional octets + one 4-octet PDU Session Container. */
#define UPLINK_HEADER 16
#define MAX_GTPU_MESSAGE 65507
#define EVENTS 64
/* epoll tags of the two descriptors that are not TUNs. */
#define TAG_WAKE UINT64_MAX
#define TAG_N3 (UINT64_MAX - 1)

typedef struct {
  bool used;
  /* Bumped at every reuse of the slot, so an epoll event of a removed session is recognised. */
  uint32_t generation;
  uint32_t id;
  int tun_fd;
  uint32_t downlink_teid;
  struct sockaddr_storage upf;
  socklen_t upf_length;
  uint32_t uplink_teid;
  uint8_t qfi;
  uint64_t counters[GNB_UP_SESSION_COUNTERS];
  /* The UE's side is configured; until then downlink is held in `held`. */
  bool ready;
  upf_buffer_queue held;
  /* Source of a handover with data forwarding (TS 38.300 9.2.3.3.1, TS 23.502 4.9.1.3.2 step 11):
   * the downlink, End Marker included, goes on to this tunnel instead of the TUN. */
  bool forwarding;
  uint32_t forward_teid;
  struct sockaddr_storage forward_to;
  socklen_t forward_length;
  /* Target: the DL forwarding TEID it offered (0: none). Until the End Marker comes through it, the
   * new path's downlink waits in `after_forwarded`, so forwarded packets reach the UE first (TS
   * 38.300 9.2.3.3.1: in-order delivery; TS 23.502 4.9.1.3.3 step 3). */
  uint32_t forwarded_teid;
  upf_buffer_queue after_forwarded;
} session;

/* A downlink packet handed to the UE TUNs' joiner, not written yet: what it counts once it is. */
typedef struct {
  session *s;
  size_t length;
} pending_write;

struct gnb_up {
  int n3_fd;
  int epoll_fd;
  int wake_fd;
  n3_endpoint n3; /* where n3_fd is bound */
  pthread_t thread;
  bool thread_started;
  pthread_mutex_t lock;
  session *sessions;
  uint32_t max_sessions;
  uint32_t *free_slots;
  uint32_t free_count;
  upf_map by_id;
  upf_map by_teid;
  uint64_t counters[GNB_UP_COUNTER_COUNT];
  /* Error Indications for unknown TEIDs: a bucket of `rate` tokens refilled per second. */
  double ei_tokens;
  double ei_rate;
  uint64_t ei_last_ns;
  upf_buffer held; /* downlink of sessions not ready yet */
  uint8_t *rx;    /* downlink receive buffers */
  /* One packet taken out of a queue while rx is in use, with room for a GTP-U header. */
  uint8_t *scratch;
  uint8_t *frame; /* the last TUN read */
  n3_send_queue uplink; /* G-PDUs of the pieces of the TUN reads, for one sendmmsg */
  /* Downlink packets joined into TCP segments for the UEs' TUNs, each with its pending_write. */
  tun_gro into_ue;
};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void count(gnb_up *g, gnb_up_counter c) { g->counters[c]++; }

static void put16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

/* TS 29.281 5.1 with E = 1 and the PDU Session Container of TS 38.415 5.5.2.2 UL PDU SESSION
 * INFORMATION: PDU type 1, no QMP/DL delay/UL delay/SNP, QFI; then no further extension. */
static void write_uplink_header(uint8_t *buf, uint32_t teid, uint8_t qfi, size_t payload_length) {
  buf[0] = 0x30 | 0x04;
  buf[1] = GTPU_G_PDU;
  put16(buf + 2, (uint16_t)(payload_length + 8));
  put32(buf + 4, teid);
  put16(buf + 8, 0);
  buf[10] = 0;
  buf[11] = GTPU_EXT_PDU_SESSION_CONTAINER;
  buf[12] = 1;
  buf[13] = 1 << 4;
  buf[14] = qfi & 0x3f;
  buf[15] = GTPU_EXT_NONE;
}

static void send_to(gnb_up *g, const uint8_t *message, size_t length, const struct sockaddr *to,
                    socklen_t to_length) {
  if (sendto(g->n3_fd, message, length, MSG_DONTWAIT, to, to_length) < 0)
    count(g, GNB_UP_DROP_N3_SEND);
}

/* TS 29.281 7.3.1: a G-PDU for a TEID without a context is answered with an Error Indication,
 * rate-limited so that a flood is not reflected. */
static void error_indication(gnb_up *g, uint32_t teid, struct sockaddr_storage *from,
                             socklen_t from_length, uint64_t now) {
  g->ei_tokens += (double)(now - g->ei_last_ns) * g->ei_rate / 1e9;
  if (g->ei_tokens > g->ei_rate) g->ei_tokens = g->ei_rate;
  g->ei_last_ns = now;
  if (g->ei_tokens < 1) {
    count(g, GNB_UP_ERROR_INDICATIONS_SUPPRESSED);
    return;
  }
  g->ei_tokens -= 1;
  uint16_t source_port;
  struct sockaddr_storage to = *from;
  /* 4.4.2.3: to the user plane port; the G-PDU's source port rides in the UDP Port extension. */
  if (to.ss_family == AF_INET) {
    struct sockaddr_in *a = (struct sockaddr_in *)&to;
    source_port = ntohs(a->sin_port);
    a->sin_port = htons(GTPU_PORT);
  } else {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&to;
    source_port = ntohs(a->sin6_port);
    a->sin6_port = htons(GTPU_PORT);
  }
  uint8_t message[64];
  size_t length = gtpu_write_error_indication(message, teid, g->n3.address, g->n3.address_length,
                                              source_port);
  send_to(g, message, length, (struct sockaddr *)&to, from_length);
  count(g, GNB_UP_ERROR_INDICATIONS_SENT);
}

static session *by_teid(gnb_up *g, uint32_t teid) {
  uint32_t slot;
  return upf_map_get(&g->by_teid, teid, &slot) ? &g->sessions[slot] : NULL;
}

static void on_ue_written(void *context, const void *items, unsigned packets, bool ok) {
  gnb_up *g = context;
  if (ok && packets > 1) count(g, GNB_UP_DOWNLINK_JOINED);
  for (unsigned i = 0; i < packets; i++) {
    const pending_write *p = (const pending_write *)items + i;
    if (!ok) {
      count(g, GNB_UP_DROP_TUN_WRITE);
      continue;
    }
    count(g, GNB_UP_DOWNLINK_PACKETS);
    g->counters[GNB_UP_DOWNLINK_BYTES] += p->length;
    p->s->counters[2]++;
    p->s->counters[3] += p->length;
  }
}

/* Into the session's TUN through the joiner, counted once written; whoever writes flushes the joiner
 * before the mutex is released, so no session a held packet belongs to can be removed meanwhile. */
static void write_downlink(gnb_up *g, session *s, const uint8_t *packet, size_t length) {
  tun_gro_target(&g->into_ue, s->tun_fd);
  pending_write pending = {.s = s, .length = length};
  tun_gro_add(&g->into_ue, packet, length, &pending);
}

/* A G-PDU of the session's for the UE: into the TUN, or held until the TUN is configured. */
static void deliver(gnb_up *g, session *s, const uint8_t *packet, size_t length) {
  if (!s->ready) {
    bool held = upf_buffer_push(&g->held, &s->held, packet, length) == UPF_BUFFERED;
    count(g, held ? GNB_UP_DOWNLINK_HELD : GNB_UP_DROP_NOT_READY);
    return;
  }
  write_downlink(g, s, packet, length);
}

/* Source: a downlink packet on to the forwarding tunnel, with the QFI of the session's flow (TS
 * 38.415 5.5.2.1: the DL PDU Session Container). */
static void forward(gnb_up *g, session *s, const uint8_t *packet, size_t length) {
  gtpu_write_downlink_header(g->scratch, s->forward_teid, s->qfi, length);
  memmove(g->scratch + UPLINK_HEADER, packet, length);
  send_to(g, g->scratch, UPLINK_HEADER + length, (struct sockaddr *)&s->forward_to,
          s->forward_length);
  count(g, GNB_UP_DOWNLINK_FORWARDED);
}

/* Target: the forwarded End Marker came (or the wait ended): the new path's packets follow. */
static void end_forwarded(gnb_up *g, session *s) {
  size_t length;
  double stamp;
  while (upf_buffer_peek(&g->held, &s->after_forwarded, &length, &stamp))
    deliver(g, s, g->scratch, upf_buffer_pop(&g->held, &s->after_forwarded, g->scratch));
  if (s->forwarded_teid != 0) upf_map_remove(&g->by_teid, s->forwarded_teid);
  s->forwarded_teid = 0;
}

static void handle_n3(gnb_up *g, const uint8_t *data, size_t length, bool truncated,
                      struct sockaddr_storage *from, socklen_t from_length, uint64_t now) {
  count(g, GNB_UP_N3_RECEIVED);
  if (truncated) {
    count(g, GNB_UP_DROP_OVERSIZED);
    return;
  }
  gtpu_message m;
  switch (gtpu_parse(data, length, &m)) {
    case GTPU_OK:
      break;
    case GTPU_UNKNOWN_REQUIRED_EXT:
      count(g, GNB_UP_DROP_UNSUPPORTED_EXTENSION);
      return;
    case GTPU_TOO_SHORT:
    case GTPU_BAD_VERSION:
    case GTPU_BAD_EXTENSION:
      count(g, GNB_UP_DROP_MALFORMED);
      return;
  }
  switch (m.type) {
    case GTPU_G_PDU: {
      session *s = by_teid(g, m.teid);
      if (s == NULL) {
        count(g, GNB_UP_DROP_UNKNOWN_TEID);
        error_indication(g, m.teid, from, from_length, now);
        return;
      }
      /* The T-PDU must at least start like an IP packet; the UE's kernel checks the rest. */
      uint8_t version = m.payload_length > 0 ? m.payload[0] >> 4 : 0;
      if (version != 4 && version != 6) {
        count(g, GNB_UP_DROP_MALFORMED);
        return;
      }
      if (s->forwarding) {
        forward(g, s, m.payload, m.payload_length);
      } else if (s->forwarded_teid != 0 && m.teid == s->downlink_teid) {
        count(g, upf_buffer_push(&g->held, &s->after_forwarded, m.payload, m.payload_length) ==
                         UPF_BUFFERED
                     ? GNB_UP_DOWNLINK_HELD
                     : GNB_UP_DROP_NOT_READY);
      } else {
        deliver(g, s, m.payload, m.payload_length);
      }
      return;
    }
    case GTPU_ECHO_REQUEST: {
      count(g, GNB_UP_ECHO_REQUESTS);
      uint8_t message[16];
      size_t n = gtpu_write_echo_response(message, m.sequence);
      send_to(g, message, n, (struct sockaddr *)from, from_length);
      count(g, GNB_UP_ECHO_RESPONSES);
      return;
    }
    case GTPU_END_MARKER: {
      /* TS 29.281 7.3.2: the last packet of the old path; nothing to forward to the UE. */
      count(g, GNB_UP_END_MARKERS_RECEIVED);
      session *s = by_teid(g, m.teid);
      if (s == NULL) return;
      s->counters[4]++;
      if (s->forwarding) {
        /* TS 23.502 4.9.1.3.3 step 3: the source passes the End Marker on after the data. */
        uint8_t marker[64];
        send_to(g, marker, gtpu_write_end_marker(marker, s->forward_teid),
                (struct sockaddr *)&s->forward_to, s->forward_length);
      } else if (s->forwarded_teid != 0 && m.teid == s->forwarded_teid) {
        end_forwarded(g, s);
      }
      return;
    }
    case GTPU_ERROR_INDICATION:
      /* The UPF has no context for our uplink TEID; what follows is the control plane's. */
      count(g, GNB_UP_ERROR_INDICATIONS_RECEIVED);
      return;
    case GTPU_ECHO_RESPONSE:
      count(g, GNB_UP_ECHO_RESPONSES);
      return;
    default:
      count(g, GNB_UP_DROP_UNEXPECTED_TYPE);
      return;
  }
}

static void on_n3_packet(void *context, const uint8_t *data, size_t length, bool truncated,
                         struct sockaddr_storage *from, socklen_t from_length, uint64_t now) {
  handle_n3(context, data, length, truncated, from, from_length, now);
}

static void on_downlink_done(void *context) {
  gnb_up *g = context;
  tun_gro_flush(&g->into_ue);
}

/* Returns false when the socket has nothing more to read. */
static bool downlink_batch(gnb_up *g) {
  return n3_receive_batch(g->n3_fd, g->rx, BUFFER_SIZE, BATCH, &g->lock, on_n3_packet,
                          on_downlink_done, g);
}

static void send_uplink(gnb_up *g) {
  g->counters[GNB_UP_DROP_N3_SEND] += n3_send_queue_send(&g->uplink, g->n3_fd);
}

/* Reads up to a batch of TUN reads from a session's TUN and sends them as G-PDUs, a TCP segment of
 * up to 64 KiB cut into the packets a NIC would send (tun-gso.h), one G-PDU each. Returns false when
 * the TUN has nothing more (or the session is gone). */
static bool uplink_batch(gnb_up *g, uint32_t slot, uint32_t generation) {
  bool more = true;
  pthread_mutex_lock(&g->lock);
  session *s = &g->sessions[slot];
  if (!s->used || s->generation != generation) {
    pthread_mutex_unlock(&g->lock);
    return false;
  }
  for (int reads = 0; reads < BATCH; reads++) {
    ssize_t n = read(s->tun_fd, g->frame, FRAME_SIZE);
    if (n <= 0) {
      more = false;
      break;
    }
    tun_gso frame;
    if (!tun_gso_parse(g->frame, (size_t)n, &frame)) {
      count(g, GNB_UP_DROP_MALFORMED);
      continue;
    }
    size_t largest = UPLINK_HEADER + tun_gso_piece_max(&frame);
    if (largest > MAX_GTPU_MESSAGE) {
      count(g, GNB_UP_DROP_OVERSIZED);
      continue;
    }
    if (frame.gso) count(g, GNB_UP_UPLINK_SEGMENTED);
    unsigned first = g->uplink.count;
    for (unsigned i = 0; i < frame.pieces; i++) {
      uint8_t *at = n3_send_queue_room(&g->uplink, largest);
      if (at == NULL) {
        send_uplink(g);
        first = 0;
        at = n3_send_queue_room(&g->uplink, largest);
      }
      size_t length = tun_gso_piece(&frame, i, at + UPLINK_HEADER);
      write_uplink_header(at, s->uplink_teid, s->qfi, length);
      n3_send_queue_push(&g->uplink, UPLINK_HEADER + length, &s->upf, s->upf_length);
      count(g, GNB_UP_UPLINK_PACKETS);
      g->counters[GNB_UP_UPLINK_BYTES] += length;
      s->counters[0]++;
      s->counters[1] += length;
    }
    /* The pieces of one segment to one UPF: sent with UDP GSO (n3-socket.h). */
    if (frame.gso) n3_send_queue_join(&g->uplink, first, UPLINK_HEADER + frame.header + frame.mss);
  }
  send_uplink(g);
  pthread_mutex_unlock(&g->lock);
  return more;
}

static void *run(void *arg) {
  gnb_up *g = arg;
  struct epoll_event events[EVENTS];
  for (;;) {
    int n = epoll_wait(g->epoll_fd, events, EVENTS, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < n; i++) {
      uint64_t tag = events[i].data.u64;
      if (tag == TAG_WAKE) return NULL;
      if (tag == TAG_N3) {
        for (int b = 0; b < BATCHES_PER_TURN && downlink_batch(g); b++) continue;
        continue;
      }
      uint32_t slot = (uint32_t)tag;
      uint32_t generation = (uint32_t)(tag >> 32);
      if (events[i].events & EPOLLIN) {
        for (int b = 0; b < BATCHES_PER_TURN && uplink_batch(g, slot, generation); b++) continue;
      }
    }
  }
  return NULL;
}

/* Opens the N3 socket inside another network namespace: on a thread of its own, since setns changes
 * the calling thread's namespace; the socket keeps the namespace it was made in. */
typedef struct {
  const gnb_up_config *config;
  n3_endpoint *n3;
  const char **syscall;
  int fd; /* or -errno */
} n3_in_namespace;

static void *open_n3_in_namespace(void *arg) {
  n3_in_namespace *job = arg;
  int ns = open(job->config->n3_namespace, O_RDONLY | O_CLOEXEC);
  if (ns < 0 || setns(ns, CLONE_NEWNET) != 0) {
    job->fd = -errno;
    *job->syscall = ns < 0 ? "open" : "setns";
    if (ns >= 0) close(ns);
    return NULL;
  }
  close(ns);
  job->fd = n3_socket_open(&job->config->n3, job->config->n3_length, job->n3, job->syscall);
  return NULL;
}

static int open_n3(const gnb_up_config *config, n3_endpoint *n3, const char **syscall) {
  if (config->n3_namespace == NULL)
    return n3_socket_open(&config->n3, config->n3_length, n3, syscall);
  n3_in_namespace job = {.config = config, .n3 = n3, .syscall = syscall, .fd = -EINVAL};
  pthread_t thread;
  int err = pthread_create(&thread, NULL, open_n3_in_namespace, &job);
  if (err != 0) {
    *syscall = "pthread_create";
    return -err;
  }
  pthread_join(thread, NULL);
  return job.fd;
}

static bool watch(gnb_up *g, int fd, uint64_t tag) {
  struct epoll_event event = {.events = EPOLLIN, .data.u64 = tag};
  return epoll_ctl(g->epoll_fd, EPOLL_CTL_ADD, fd, &event) == 0;
}

int gnb_up_open(const gnb_up_config *config, gnb_up **out, const char **syscall) {
  gnb_up *g = calloc(1, sizeof *g);
  if (g == NULL) return ENOMEM;
  g->n3_fd = g->epoll_fd = g->wake_fd = -1;
  pthread_mutex_init(&g->lock, NULL);
  int err = ENOMEM;
  *syscall = "malloc";
  g->max_sessions = config->max_sessions;
  g->sessions = calloc(config->max_sessions, sizeof *g->sessions);
  g->free_slots = calloc(config->max_sessions, sizeof *g->free_slots);
  g->rx = malloc((size_t)BATCH * BUFFER_SIZE);
  g->scratch = malloc(BUFFER_SIZE + UPLINK_HEADER);
  g->frame = malloc(FRAME_SIZE);
  if (g->sessions == NULL || g->free_slots == NULL || g->rx == NULL || g->scratch == NULL ||
      g->frame == NULL ||
      !n3_send_queue_init(&g->uplink, (size_t)BATCH * (BUFFER_SIZE + UPLINK_HEADER)) ||
      !tun_gro_init(&g->into_ue, -1, sizeof(pending_write), on_ue_written, g) ||
      !upf_buffer_init(&g->held) ||
      !upf_map_init(&g->by_id, config->max_sessions) ||
      /* Each session's downlink TEID and, at a handover target, its DL forwarding TEID. */
      !upf_map_init(&g->by_teid, 2 * config->max_sessions))
    goto fail;
  for (uint32_t i = 0; i < config->max_sessions; i++)
    g->free_slots[i] = config->max_sessions - 1 - i;
  g->free_count = config->max_sessions;
  g->ei_rate = config->error_indications_per_second;
  g->ei_tokens = g->ei_rate;
  g->ei_last_ns = now_ns();
  int fd = open_n3(config, &g->n3, syscall);
  if (fd < 0) {
    err = -fd;
    goto fail;
  }
  g->n3_fd = fd;
  *syscall = "epoll_create1";
  g->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  g->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (g->epoll_fd < 0 || g->wake_fd < 0 || !watch(g, g->wake_fd, TAG_WAKE) ||
      !watch(g, g->n3_fd, TAG_N3)) {
    err = errno;
    goto fail;
  }
  *syscall = "pthread_create";
  err = pthread_create(&g->thread, NULL, run, g);
  if (err != 0) goto fail;
  g->thread_started = true;
  *out = g;
  return 0;
fail:
  gnb_up_close(g);
  return err;
}

void gnb_up_close(gnb_up *g) {
  if (g->thread_started) {
    uint64_t one = 1;
    if (write(g->wake_fd, &one, sizeof one) < 0) {
      /* An eventfd write fails only on overflow, which a stop signal cannot reach. */
    }
    pthread_join(g->thread, NULL);
  }
  for (uint32_t i = 0; g->sessions != NULL && i < g->max_sessions; i++)
    if (g->sessions[i].used) close(g->sessions[i].tun_fd);
  if (g->n3_fd >= 0) close(g->n3_fd);
  if (g->epoll_fd >= 0) close(g->epoll_fd);
  if (g->wake_fd >= 0) close(g->wake_fd);
  upf_map_free(&g->by_id);
  upf_map_free(&g->by_teid);
  free(g->scratch);
  upf_buffer_free(&g->held);
  free(g->sessions);
  free(g->free_slots);
  free(g->rx);
  free(g->frame);
  n3_send_queue_free(&g->uplink);
  tun_gro_free(&g->into_ue);
  pthread_mutex_destroy(&g->lock);
  free(g);
}

uint16_t gnb_up_n3_port(const gnb_up *g) { return g->n3.port; }

int gnb_up_add_session(gnb_up *g, const gnb_up_session *request, char *actual) {
  if (request->upf.ss_family != g->n3.family) return EAFNOSUPPORT;
  int err = 0;
  pthread_mutex_lock(&g->lock);
  uint32_t unused;
  if (upf_map_get(&g->by_id, request->id, &unused) ||
      upf_map_get(&g->by_teid, request->downlink_teid, &unused)) {
    err = EEXIST;
  } else if (g->free_count == 0) {
    err = ENOSPC;
  } else {
    int fd = tun_open(request->tun_name, actual);
    if (fd < 0) {
      err = -fd;
    } else {
      uint32_t slot = g->free_slots[g->free_count - 1];
      session *s = &g->sessions[slot];
      uint32_t generation = s->generation + 1;
      memset(s, 0, sizeof *s);
      s->generation = generation;
      s->id = request->id;
      s->tun_fd = fd;
      s->downlink_teid = request->downlink_teid;
      memcpy(&s->upf, &request->upf, request->upf_length);
      s->upf_length = request->upf_length;
      s->uplink_teid = request->uplink_teid;
      s->qfi = request->qfi;
      upf_buffer_queue_init(&s->held);
      upf_buffer_queue_init(&s->after_forwarded);
      if (!watch(g, fd, ((uint64_t)generation << 32) | slot)) {
        err = errno;
        close(fd);
      } else {
        /* Both maps hold at most max_sessions entries, so these puts cannot fail. */
        s->used = true;
        g->free_count--;
        upf_map_put(&g->by_id, request->id, slot);
        upf_map_put(&g->by_teid, request->downlink_teid, slot);
      }
    }
  }
  pthread_mutex_unlock(&g->lock);
  return err;
}

int gnb_up_remove_session(gnb_up *g, uint32_t id) {
  int err = 0;
  pthread_mutex_lock(&g->lock);
  uint32_t slot;
  if (!upf_map_get(&g->by_id, id, &slot)) {
    err = ENOENT;
  } else {
    session *s = &g->sessions[slot];
    size_t length;
    double stamp;
    while (upf_buffer_peek(&g->held, &s->held, &length, &stamp)) {
      upf_buffer_pop(&g->held, &s->held, g->rx);
      count(g, GNB_UP_DROP_NOT_READY);
    }
    while (upf_buffer_peek(&g->held, &s->after_forwarded, &length, &stamp)) {
      upf_buffer_pop(&g->held, &s->after_forwarded, g->rx);
      count(g, GNB_UP_DROP_NOT_READY);
    }
    if (s->forwarded_teid != 0) upf_map_remove(&g->by_teid, s->forwarded_teid);
    upf_map_remove(&g->by_id, id);
    upf_map_remove(&g->by_teid, s->downlink_teid);
    epoll_ctl(g->epoll_fd, EPOLL_CTL_DEL, s->tun_fd, NULL);
    close(s->tun_fd);
    s->used = false;
    g->free_slots[g->free_count++] = slot;
  }
  pthread_mutex_unlock(&g->lock);
  return err;
}

int gnb_up_set_ready(gnb_up *g, uint32_t id) {
  pthread_mutex_lock(&g->lock);
  uint32_t slot;
  bool found = upf_map_get(&g->by_id, id, &slot);
  if (found) {
    session *s = &g->sessions[slot];
    size_t length;
    double stamp;
    /* rx is the thread's, which waits for the mutex. */
    while (upf_buffer_peek(&g->held, &s->held, &length, &stamp))
      write_downlink(g, s, g->rx, upf_buffer_pop(&g->held, &s->held, g->rx));
    tun_gro_flush(&g->into_ue);
    s->ready = true;
  }
  pthread_mutex_unlock(&g->lock);
  return found ? 0 : ENOENT;
}

int gnb_up_session_counters(gnb_up *g, uint32_t id, uint64_t *out) {
  pthread_mutex_lock(&g->lock);
  uint32_t slot;
  bool found = upf_map_get(&g->by_id, id, &slot);
  if (found) memcpy(out, g->sessions[slot].counters, sizeof g->sessions[slot].counters);
  pthread_mutex_unlock(&g->lock);
  return found ? 0 : ENOENT;
}

void gnb_up_read_counters(gnb_up *g, uint64_t *out) {
  pthread_mutex_lock(&g->lock);
  memcpy(out, g->counters, sizeof g->counters);
  pthread_mutex_unlock(&g->lock);
}

int gnb_up_forward(gnb_up *g, uint32_t id, const struct sockaddr_storage *to, socklen_t to_length,
                   uint32_t teid) {
  if (to->ss_family != g->n3.family) return EAFNOSUPPORT;
  pthread_mutex_lock(&g->lock);
  uint32_t slot;
  bool found = upf_map_get(&g->by_id, id, &slot);
  if (found) {
    session *s = &g->sessions[slot];
    memcpy(&s->forward_to, to, to_length);
    s->forward_length = to_length;
    s->forward_teid = teid;
    s->forwarding = true;
    /* What the UE had not taken yet goes first (TS 38.300 9.2.3.3.1 step 8). */
    size_t length;
    double stamp;
    while (upf_buffer_peek(&g->held, &s->held, &length, &stamp))
      forward(g, s, g->rx, upf_buffer_pop(&g->held, &s->held, g->rx));
  }
  pthread_mutex_unlock(&g->lock);
  return found ? 0 : ENOENT;
}

int gnb_up_expect_forwarded(gnb_up *g, uint32_t id, uint32_t teid) {
  int err = 0;
  pthread_mutex_lock(&g->lock);
  uint32_t slot, unused;
  if (!upf_map_get(&g->by_id, id, &slot)) {
    err = ENOENT;
  } else if (teid == 0 || g->sessions[slot].forwarded_teid != 0 ||
             upf_map_get(&g->by_teid, teid, &unused)) {
    err = EEXIST;
  } else {
    g->sessions[slot].forwarded_teid = teid;
    upf_map_put(&g->by_teid, teid, slot);
  }
  pthread_mutex_unlock(&g->lock);
  return err;
}

int gnb_up_end_forwarded(gnb_up *g, uint32_t id) {
  pthread_mutex_lock(&g->lock);
  uint32_t slot;
  bool found = upf_map_get(&g->by_id, id, &slot);
  if (found) {
    end_forwarded(g, &g->sessions[slot]);
    tun_gro_flush(&g->into_ue);
  }
  pthread_mutex_unlock(&g->lock);
  return found ? 0 : ENOENT;
}
