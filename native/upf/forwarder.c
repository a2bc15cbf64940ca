#include "forwarder.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "downlink-buffer.h"
#include "flows.h"
#include "gtpu.h"
#include "map.h"
#include "n3-socket.h"
#include "tun-gro.h"
#include "tun-gso.h"
#include "xdp.h"

#define UPF_COUNTER_NAME(name, text) text,
const char *const upf_counter_names[UPF_COUNTER_COUNT] = {UPF_COUNTERS(UPF_COUNTER_NAME)};
#undef UPF_COUNTER_NAME

/* Datagrams (or TUN reads) per batch, batches per readable event before looking at the other side. */
#define BATCH 32
#define BATCHES_PER_TURN 8
#define BUFFER_SIZE 65536
/* A TUN read: its virtio_net_hdr and a packet or TCP segment of up to 64 KiB. */
#define FRAME_SIZE (TUN_VNET_HDR + BUFFER_SIZE)
/* Pieces of a 64 KiB TCP segment at an MSS of 1,024 or more: a batch stops reading while its
 * queue has less room, so that it is sent after the mutex is released. */
#define PIECES_PER_FRAME 64
/* The largest UDP payload over IPv4. */
#define MAX_GTPU_MESSAGE 65507
/* Packets per second the XDP program hands to this thread at most (what it cannot do itself): a
 * little less than the thread moves (docs/upf.md "Performance"), so a flood of unknown TEIDs or
 * malformed G-PDUs is shed in the kernel instead of filling the socket. */
#define XDP_TO_STACK_PER_SECOND 50000

/* A token bucket in bytes; rate 0 means no limit. */
typedef struct {
  double rate;  /* bytes per nanosecond */
  double burst; /* bytes */
  double tokens;
  uint64_t last_ns;
} bucket;

typedef struct {
  bool used;
  uint32_t id;
  uint32_t uplink_teid;
  bool has_ipv4;
  bool has_ipv6;
  uint8_t ipv4[4];
  uint8_t ipv6_prefix[8];
  bool downlink;
  struct sockaddr_storage gnb;
  socklen_t gnb_length;
  uint32_t remote_teid;
  uint8_t qfi;
  bucket uplink_ambr;
  bucket downlink_ambr;
  uint64_t uplink_usage;
  uint64_t downlink_usage;
  uint32_t flow_head; /* the session's open flows (flows.h) */
  /* Downlink data arrived while inactive and the core was told; cleared when the downlink changes. */
  bool downlink_data_reported;
  /* Downlink packets that came while inactive, until the downlink is set again. */
  upf_buffer_queue buffer;
  /* Indirect data forwarding (upf_set_forwarding): what arrives on forward_teid goes to the target. */
  bool forwarding;
  uint32_t forward_teid;
  struct sockaddr_storage forward_gnb;
  socklen_t forward_gnb_length;
  uint32_t forward_remote_teid;
  uint8_t forward_qfi;
  /* The XDP program's usage of this session already added to the usage above. */
  uint64_t xdp_uplink_seen;
  uint64_t xdp_downlink_seen;
  /* Packets of the session's flows read from the program's flow map (on_xdp_flow, on_flow_end). */
  uint64_t xdp_flow_packets_taken;
} session;

/* An uplink packet handed to the N6 TUN's joiner, not written yet: what it counts once it is. */
typedef struct {
  session *s;
  upf_flow_key key;
  size_t length;
} n6_pending;

struct upf {
  int n3_fd;
  int tun_fd;
  int wake_fd;
  n3_endpoint n3; /* where n3_fd is bound */
  char tun_name[IFNAMSIZ];
  pthread_t thread;
  bool thread_started;
  pthread_mutex_t lock;
  session *sessions;
  uint32_t max_sessions;
  uint32_t *free_slots;
  uint32_t free_count;
  upf_map by_id;
  upf_map by_teid;
  upf_map by_forward_teid;
  upf_map by_ipv4;
  upf_map by_ipv6;
  upf_flows flows;
  uint64_t counters[UPF_COUNTER_COUNT];
  bucket error_indications;
  /* Ids of sessions with downlink data while inactive, not yet taken by the core. */
  uint32_t *downlink_data;
  uint32_t downlink_data_count;
  upf_buffer buffer;
  double buffer_ms;
  /* Where a session's buffered packets get their GTP-U headers when they are flushed. */
  uint8_t *flush;
  /* Where a forwarded G-PDU gets the target's header (forward_pdu). */
  uint8_t *forward;
  /* Uplink receive buffers; the last N6 read; the downlink G-PDUs gathered for one sendmmsg. */
  uint8_t *rx;
  uint8_t *frame;
  n3_send_queue downlink;
  /* Uplink packets joined into TCP segments for the N6 TUN (tun-gro.h), each with its n6_pending. */
  tun_gro n6;
  /* The XDP datapath when it runs (NULL: the TUN alone), and why it does or does not. */
  upf_xdp *xdp;
  char datapath_reason[384];
};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Session AMBR (TS 23.501 5.7.1.8) as a bucket holding 50 ms of traffic, at least 16 KiB so that
 * one full-size packet always fits. */
static void bucket_set(bucket *b, double bytes_per_second, double min_burst) {
  b->rate = bytes_per_second / 1e9;
  b->burst = bytes_per_second / 20 > min_burst ? bytes_per_second / 20 : min_burst;
  b->tokens = b->burst;
  b->last_ns = now_ns();
}

static bool bucket_take(bucket *b, size_t bytes, uint64_t now) {
  if (b->rate == 0) return true;
  b->tokens += (double)(now - b->last_ns) * b->rate;
  if (b->tokens > b->burst) b->tokens = b->burst;
  b->last_ns = now;
  if (b->tokens < (double)bytes) return false;
  b->tokens -= (double)bytes;
  return true;
}

static uint64_t ipv4_key(const uint8_t *a) {
  return ((uint64_t)a[0] << 24) | ((uint64_t)a[1] << 16) | ((uint64_t)a[2] << 8) | a[3];
}

static uint64_t ipv6_key(const uint8_t *prefix) {
  uint64_t k = 0;
  for (int i = 0; i < 8; i++) k = (k << 8) | prefix[i];
  return k;
}

static void count(upf *u, upf_counter c) { u->counters[c]++; }

static void account(upf *u, session *s, const upf_flow_key *key, size_t bytes) {
  if (!upf_flows_add(&u->flows, key, 1, bytes, &s->flow_head)) count(u, UPF_FLOW_TABLE_FULL);
}

static size_t parse_ip(const uint8_t *p, size_t length, upf_flow_key *key);

/* A downlink packet of the session (one that was buffered) as a flow of this action. */
static void account_downlink(upf *u, session *s, const uint8_t *packet, size_t length,
                             uint8_t action) {
  upf_flow_key key;
  memset(&key, 0, sizeof key);
  if (parse_ip(packet, length, &key) == 0) return; /* it parsed when it was buffered */
  key.session = s->id;
  key.direction = 1;
  key.action = action;
  account(u, s, &key, length);
}

/* Drops the session's buffered packets, oldest first: all of them (why = released), or those
 * stamped at or before expired_at (why = expired). Each is a drop flow (network.md 7). */
static void drop_buffered(upf *u, session *s, upf_counter why, double expired_at) {
  size_t length;
  double stamp;
  while (upf_buffer_peek(&u->buffer, &s->buffer, &length, &stamp)) {
    if (why == UPF_DROP_BUFFER_EXPIRED && !(stamp <= expired_at)) return;
    upf_buffer_pop(&u->buffer, &s->buffer, u->flush);
    count(u, why);
    account_downlink(u, s, u->flush, length, 1);
  }
}

/* The inner IP packet: checks it against its own length fields and fills a flow key's addresses,
 * protocol and ports. Returns its length (octets beyond it are padding), 0 when malformed. */
static size_t parse_ip(const uint8_t *p, size_t length, upf_flow_key *key) {
  if (length < 1) return 0;
  size_t header;
  size_t total;
  uint8_t protocol;
  bool first_fragment = true;
  if (p[0] >> 4 == 4) {
    /* RFC 791 3.1 */
    if (length < 20) return 0;
    header = 4 * (size_t)(p[0] & 0x0f);
    total = ((size_t)p[2] << 8) | p[3];
    if (header < 20 || total < header || total > length) return 0;
    protocol = p[9];
    first_fragment = ((p[6] & 0x1f) | p[7]) == 0;
    key->family = 4;
    memcpy(key->source, p + 12, 4);
    memcpy(key->destination, p + 16, 4);
  } else if (p[0] >> 4 == 6) {
    /* RFC 8200 3: the ports are read only when no extension header comes first. */
    if (length < 40) return 0;
    header = 40;
    total = 40 + (((size_t)p[4] << 8) | p[5]);
    if (total > length) return 0;
    protocol = p[6];
    key->family = 6;
    memcpy(key->source, p + 8, 16);
    memcpy(key->destination, p + 24, 16);
  } else {
    return 0;
  }
  key->protocol = protocol;
  if ((protocol == IPPROTO_TCP || protocol == IPPROTO_UDP || protocol == IPPROTO_SCTP) &&
      first_fragment && total >= header + 4) {
    key->source_port = (uint16_t)((p[header] << 8) | p[header + 1]);
    key->destination_port = (uint16_t)((p[header + 2] << 8) | p[header + 3]);
  }
  return total;
}

static void send_to(upf *u, const uint8_t *message, size_t length, const struct sockaddr *to,
                    socklen_t to_length) {
  if (sendto(u->n3_fd, message, length, MSG_DONTWAIT, to, to_length) < 0) count(u, UPF_DROP_N3_SEND);
}

static void error_indication(upf *u, uint32_t teid, struct sockaddr_storage *from,
                             socklen_t from_length, uint64_t now) {
  if (!bucket_take(&u->error_indications, 1, now)) {
    count(u, UPF_ERROR_INDICATIONS_SUPPRESSED);
    return;
  }
  uint16_t source_port;
  struct sockaddr_storage to = *from;
  /* TS 29.281 4.4.2.3: an Error Indication goes to the user plane port, whatever the G-PDU's
   * source port was (that one travels in the UDP Port extension header). */
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
  size_t length = gtpu_write_error_indication(message, teid, u->n3.address, u->n3.address_length,
                                              source_port);
  send_to(u, message, length, (struct sockaddr *)&to, from_length);
  count(u, UPF_ERROR_INDICATIONS_SENT);
}

/* A G-PDU the source gNB forwards (TS 23.502 4.9.1.3.3 step 2) goes on to the target's DL forwarding
 * tunnel with the QFI it came with (the session's when it had no PDU Session Container). Not policed
 * nor counted as the session's usage: it was when it first went down to the source. */
static void forward_pdu(upf *u, session *s, const gtpu_message *m) {
  if (m->payload_length + GTPU_DOWNLINK_HEADER > MAX_GTPU_MESSAGE) {
    count(u, UPF_DROP_OVERSIZED);
    return;
  }
  uint8_t *message = u->forward;
  memcpy(message + GTPU_DOWNLINK_HEADER, m->payload, m->payload_length);
  gtpu_write_downlink_header(message, s->forward_remote_teid,
                             m->qfi >= 0 ? (uint8_t)m->qfi : s->forward_qfi, m->payload_length);
  send_to(u, message, GTPU_DOWNLINK_HEADER + m->payload_length, (struct sockaddr *)&s->forward_gnb,
          s->forward_gnb_length);
  count(u, UPF_FORWARDED_PACKETS);
}

static void uplink_pdu(upf *u, const gtpu_message *m, struct sockaddr_storage *from,
                       socklen_t from_length, uint64_t now) {
  uint32_t slot;
  if (upf_map_get(&u->by_forward_teid, m->teid, &slot)) {
    forward_pdu(u, &u->sessions[slot], m);
    return;
  }
  if (!upf_map_get(&u->by_teid, m->teid, &slot)) {
    count(u, UPF_DROP_UNKNOWN_TEID);
    error_indication(u, m->teid, from, from_length, now);
    return;
  }
  session *s = &u->sessions[slot];
  upf_flow_key key;
  memset(&key, 0, sizeof key);
  size_t length = parse_ip(m->payload, m->payload_length, &key);
  if (length == 0) {
    count(u, UPF_DROP_MALFORMED);
    return;
  }
  key.session = s->id;
  key.direction = 0;
  /* Anti-spoofing: the source must be the session's address (IPv4) or in its /64 (IPv6). */
  bool own = key.family == 4 ? s->has_ipv4 && memcmp(key.source, s->ipv4, 4) == 0
                             : s->has_ipv6 && memcmp(key.source, s->ipv6_prefix, 8) == 0;
  if (!own) {
    count(u, UPF_DROP_SPOOFED);
    key.action = 1;
    account(u, s, &key, length);
    return;
  }
  if (!bucket_take(&s->uplink_ambr, length, now)) {
    count(u, UPF_DROP_UPLINK_AMBR);
    key.action = 1;
    account(u, s, &key, length);
    return;
  }
  /* Counted once written (on_n6_written), at the latest when the batch ends (on_uplink_done). */
  n6_pending pending = {.s = s, .key = key, .length = length};
  tun_gro_add(&u->n6, m->payload, length, &pending);
}

static void on_n6_written(void *context, const void *items, unsigned packets, bool ok) {
  upf *u = context;
  if (ok && packets > 1) count(u, UPF_UPLINK_JOINED);
  for (unsigned i = 0; i < packets; i++) {
    const n6_pending *p = (const n6_pending *)items + i;
    if (!ok) {
      count(u, UPF_DROP_N6_WRITE);
      continue;
    }
    count(u, UPF_UPLINK_PACKETS);
    u->counters[UPF_UPLINK_BYTES] += p->length;
    p->s->uplink_usage += p->length;
    account(u, p->s, &p->key, p->length);
  }
}

static void handle_n3(upf *u, const uint8_t *data, size_t length, bool truncated,
                      struct sockaddr_storage *from, socklen_t from_length, uint64_t now) {
  count(u, UPF_N3_RECEIVED);
  if (truncated) {
    count(u, UPF_DROP_OVERSIZED);
    return;
  }
  gtpu_message m;
  switch (gtpu_parse(data, length, &m)) {
    case GTPU_OK:
      break;
    case GTPU_UNKNOWN_REQUIRED_EXT:
      count(u, UPF_DROP_UNSUPPORTED_EXTENSION);
      return;
    case GTPU_TOO_SHORT:
    case GTPU_BAD_VERSION:
    case GTPU_BAD_EXTENSION:
      count(u, UPF_DROP_MALFORMED);
      return;
  }
  switch (m.type) {
    case GTPU_G_PDU:
      uplink_pdu(u, &m, from, from_length, now);
      return;
    case GTPU_ECHO_REQUEST: {
      count(u, UPF_ECHO_REQUESTS);
      uint8_t message[16];
      size_t n = gtpu_write_echo_response(message, m.sequence);
      send_to(u, message, n, (struct sockaddr *)from, from_length);
      count(u, UPF_ECHO_RESPONSES);
      return;
    }
    case GTPU_END_MARKER: {
      /* An End Marker ends a downlink path at the gNB. One the source forwards after the path
       * switch goes on to the target, after the forwarded packets (TS 23.502 4.9.1.3.3 step 3, TS
       * 29.281 7.3.2): the target then delivers the new path's. */
      count(u, UPF_END_MARKERS_RECEIVED);
      uint32_t slot;
      if (!upf_map_get(&u->by_forward_teid, m.teid, &slot)) return;
      session *s = &u->sessions[slot];
      uint8_t message[8];
      size_t n = gtpu_write_end_marker(message, s->forward_remote_teid);
      send_to(u, message, n, (struct sockaddr *)&s->forward_gnb, s->forward_gnb_length);
      count(u, UPF_FORWARDED_END_MARKERS);
      return;
    }
    case GTPU_ERROR_INDICATION:
      /* The gNB has no context for a TEID of ours; counted, the session's fate is the SMF's. */
      count(u, UPF_ERROR_INDICATIONS_RECEIVED);
      return;
    default:
      count(u, UPF_DROP_UNEXPECTED_TYPE);
      return;
  }
}

/* Looks up the session of a downlink packet, polices it and writes its GTP-U header in front of
 * it. Returns the session or NULL when the packet is dropped. */
static session *downlink_packet(upf *u, uint8_t *slot_buffer, size_t length, uint64_t now) {
  uint8_t *packet = slot_buffer + GTPU_DOWNLINK_HEADER;
  upf_flow_key key;
  memset(&key, 0, sizeof key);
  size_t ip_length = parse_ip(packet, length, &key);
  if (ip_length == 0) {
    count(u, UPF_DROP_MALFORMED);
    return NULL;
  }
  uint32_t index;
  bool found = key.family == 4 ? upf_map_get(&u->by_ipv4, ipv4_key(key.destination), &index)
                               : upf_map_get(&u->by_ipv6, ipv6_key(key.destination), &index);
  if (!found) {
    count(u, UPF_DROP_UNKNOWN_DESTINATION);
    return NULL;
  }
  session *s = &u->sessions[index];
  key.session = s->id;
  key.direction = 1;
  if (ip_length + GTPU_DOWNLINK_HEADER > MAX_GTPU_MESSAGE) {
    count(u, UPF_DROP_OVERSIZED);
    return NULL;
  }
  if (!s->downlink) {
    /* TS 23.501 5.8.3.2: buffered until the tunnel is back; accounted when flushed or dropped. */
    if (upf_buffer_push(&u->buffer, &s->buffer, packet, ip_length) == UPF_BUFFERED) {
      count(u, UPF_DOWNLINK_BUFFERED);
    } else {
      count(u, UPF_DROP_BUFFER_FULL);
      key.action = 1;
      account(u, s, &key, ip_length);
    }
    /* The Downlink Data Notification role (TS 23.502 4.2.3.3 step 2a): the first packet for an idle
     * session is queued for the core, once until its downlink changes, so that the device is paged.
     * A full queue leaves it to the next packet. */
    if (!s->downlink_data_reported && u->downlink_data_count < u->max_sessions) {
      s->downlink_data_reported = true;
      u->downlink_data[u->downlink_data_count++] = s->id;
    }
    return NULL;
  }
  if (!bucket_take(&s->downlink_ambr, ip_length, now)) {
    count(u, UPF_DROP_DOWNLINK_AMBR);
    key.action = 1;
    account(u, s, &key, ip_length);
    return NULL;
  }
  gtpu_write_downlink_header(slot_buffer, s->remote_teid, s->qfi, ip_length);
  count(u, UPF_DOWNLINK_PACKETS);
  u->counters[UPF_DOWNLINK_BYTES] += ip_length;
  s->downlink_usage += ip_length;
  account(u, s, &key, ip_length);
  return s;
}

static void on_n3_packet(void *context, const uint8_t *data, size_t length, bool truncated,
                         struct sockaddr_storage *from, socklen_t from_length, uint64_t now) {
  handle_n3(context, data, length, truncated, from, from_length, now);
}

/* The batch's last TCP segment goes into the TUN before the mutex is released, so that no session
 * a packet of it belongs to can be removed while it waits. */
static void on_uplink_done(void *context) {
  upf *u = context;
  tun_gro_flush(&u->n6);
}

/* Returns false when the socket has nothing more to read. */
static bool uplink_batch(upf *u) {
  return n3_receive_batch(u->n3_fd, u->rx, BUFFER_SIZE, BATCH, &u->lock, on_n3_packet,
                          on_uplink_done, u);
}

/* Reads up to a batch from the N6 TUN and sends each packet, or each MSS-sized piece of a TCP
 * segment of up to 64 KiB (tun-gso.h), as a G-PDU of its session. Returns false when the TUN had
 * nothing more to read. */
static bool downlink_batch(upf *u) {
  n3_send_queue *q = &u->downlink;
  bool more = true;
  unsigned lost = 0;
  uint64_t now = now_ns();
  pthread_mutex_lock(&u->lock);
  for (int reads = 0; reads < BATCH; reads++) {
    if (q->count + PIECES_PER_FRAME > N3_SEND_MESSAGES ||
        n3_send_queue_room(q, 2 * (GTPU_DOWNLINK_HEADER + FRAME_SIZE)) == NULL)
      break;
    ssize_t n = read(u->tun_fd, u->frame, FRAME_SIZE);
    if (n <= 0) {
      more = false;
      break;
    }
    tun_gso frame;
    if (!tun_gso_parse(u->frame, (size_t)n, &frame)) {
      count(u, UPF_DROP_MALFORMED);
      continue;
    }
    if (frame.gso) count(u, UPF_DOWNLINK_SEGMENTED);
    size_t largest = GTPU_DOWNLINK_HEADER + tun_gso_piece_max(&frame);
    unsigned first = q->count;
    for (unsigned i = 0; i < frame.pieces; i++) {
      uint8_t *at = n3_send_queue_room(q, largest);
      if (at == NULL) {
        /* Only a segment of more than PIECES_PER_FRAME pieces gets here: sent under the mutex. */
        lost += n3_send_queue_send(q, u->n3_fd);
        first = 0;
        at = n3_send_queue_room(q, largest);
      }
      size_t length = tun_gso_piece(&frame, i, at + GTPU_DOWNLINK_HEADER);
      session *s = downlink_packet(u, at, length, now);
      if (s == NULL) continue;
      n3_send_queue_push(q, ((size_t)at[2] << 8 | at[3]) + 8, &s->gnb, s->gnb_length);
    }
    /* The pieces of one segment go to one session's gNB (those policed or buffered are not
     * queued; only the segment's last piece is shorter): sent with UDP GSO (n3-socket.h). */
    if (frame.gso) n3_send_queue_join(q, first, GTPU_DOWNLINK_HEADER + frame.header + frame.mss);
  }
  pthread_mutex_unlock(&u->lock);
  lost += n3_send_queue_send(q, u->n3_fd);
  if (lost > 0) {
    pthread_mutex_lock(&u->lock);
    u->counters[UPF_DROP_N3_SEND] += lost;
    pthread_mutex_unlock(&u->lock);
  }
  return more;
}

static void *run(void *arg) {
  upf *u = arg;
  struct pollfd fds[3] = {
      {.fd = u->wake_fd, .events = POLLIN},
      {.fd = u->n3_fd, .events = POLLIN},
      {.fd = u->tun_fd, .events = POLLIN},
  };
  for (;;) {
    if (poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents) break;
    if (fds[1].revents & POLLIN)
      for (int i = 0; i < BATCHES_PER_TURN && uplink_batch(u); i++) continue;
    if (fds[2].revents & POLLIN)
      for (int i = 0; i < BATCHES_PER_TURN && downlink_batch(u); i++) continue;
    /* A TUN whose device was deleted: stop polling it (poll skips negative descriptors) instead of
     * spinning on the condition; the socket keeps answering echoes. */
    for (int i = 1; i < 3; i++)
      if (fds[i].revents & (POLLHUP | POLLNVAL)) fds[i].fd = -1;
  }
  return NULL;
}

/* The XDP datapath in front of the TUN, as the config asks; its reason in words either way. */
static upf_flow_end_fn on_flow_end;

static int open_xdp(upf *u, const upf_config *config, const char **syscall) {
  if (config->datapath == UPF_DATAPATH_TUN) {
    snprintf(u->datapath_reason, sizeof u->datapath_reason, "the TUN datapath was chosen");
    return 0;
  }
  struct sockaddr_storage n3;
  memset(&n3, 0, sizeof n3);
  if (u->n3.family == AF_INET) {
    struct sockaddr_in *a = (struct sockaddr_in *)&n3;
    a->sin_family = AF_INET;
    a->sin_port = htons(u->n3.port);
    memcpy(&a->sin_addr, u->n3.address, 4);
  } else {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&n3;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(u->n3.port);
    memcpy(&a->sin6_addr, u->n3.address, 16);
  }
  upf_xdp_config x = {
      .object_path = config->bpf_object,
      .n3 = &n3,
      .n6_interface = config->n6_interface,
      .max_sessions = config->max_sessions,
      .max_flows = config->max_flows,
      .to_stack_per_second = XDP_TO_STACK_PER_SECOND,
      .native_on_veth = config->xdp_native_on_veth,
  };
  char reason[300];
  int err = upf_xdp_open(&x, &u->xdp, reason, sizeof reason);
  if (err == 0) {
    snprintf(u->datapath_reason, sizeof u->datapath_reason, "XDP on %s, the TUN for the rest",
             upf_xdp_description(u->xdp));
    return 0;
  }
  u->xdp = NULL;
  snprintf(u->datapath_reason, sizeof u->datapath_reason, "XDP cannot run: %s", reason);
  if (config->datapath == UPF_DATAPATH_AUTO) return 0;
  *syscall = u->datapath_reason;
  return err;
}

const char *upf_datapath(const upf *u) { return u->xdp != NULL ? "xdp" : "tun"; }

const char *upf_datapath_reason(const upf *u) { return u->datapath_reason; }

int upf_open(const upf_config *config, upf **out, const char **syscall) {
  upf *u = calloc(1, sizeof *u);
  if (u == NULL) return ENOMEM;
  u->n3_fd = u->tun_fd = u->wake_fd = -1;
  pthread_mutex_init(&u->lock, NULL);
  int err = ENOMEM;
  *syscall = "malloc";
  u->max_sessions = config->max_sessions;
  u->sessions = calloc(config->max_sessions, sizeof *u->sessions);
  u->free_slots = calloc(config->max_sessions, sizeof *u->free_slots);
  u->downlink_data = calloc(config->max_sessions, sizeof *u->downlink_data);
  u->rx = malloc((size_t)BATCH * BUFFER_SIZE);
  u->frame = malloc(FRAME_SIZE);
  u->forward = malloc(MAX_GTPU_MESSAGE);
  u->flush = malloc(UPF_BUFFER_SESSION_BYTES + UPF_BUFFER_SESSION_PACKETS * GTPU_DOWNLINK_HEADER);
  u->buffer_ms = config->downlink_buffer_ms;
  if (u->sessions == NULL || u->flush == NULL || !upf_buffer_init(&u->buffer) || u->free_slots == NULL || u->downlink_data == NULL || u->rx == NULL ||
      u->frame == NULL || u->forward == NULL ||
      !n3_send_queue_init(&u->downlink, (size_t)BATCH * (BUFFER_SIZE + GTPU_DOWNLINK_HEADER)) ||
      !upf_map_init(&u->by_id, config->max_sessions) ||
      !upf_map_init(&u->by_teid, config->max_sessions) ||
      !upf_map_init(&u->by_forward_teid, config->max_sessions) ||
      !upf_map_init(&u->by_ipv4, config->max_sessions) ||
      !upf_map_init(&u->by_ipv6, config->max_sessions) ||
      !upf_flows_init(&u->flows, config->max_flows))
    goto fail;
  for (uint32_t i = 0; i < config->max_sessions; i++)
    u->free_slots[i] = config->max_sessions - 1 - i;
  u->free_count = config->max_sessions;
  bucket_set(&u->error_indications, config->error_indications_per_second, 1);
  u->error_indications.burst = config->error_indications_per_second;
  u->error_indications.tokens = u->error_indications.burst;
  int fd = n3_socket_open(&config->n3, config->n3_length, &u->n3, syscall);
  if (fd < 0) {
    err = -fd;
    goto fail;
  }
  u->n3_fd = fd;
  *syscall = "open /dev/net/tun";
  fd = tun_open(config->tun_name, u->tun_name);
  if (fd < 0) {
    err = -fd;
    goto fail;
  }
  u->tun_fd = fd;
  *syscall = "malloc";
  if (!tun_gro_init(&u->n6, u->tun_fd, sizeof(n6_pending), on_n6_written, u)) {
    err = ENOMEM;
    goto fail;
  }
  *syscall = "eventfd";
  u->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (u->wake_fd < 0) {
    err = errno;
    goto fail;
  }
  err = open_xdp(u, config, syscall);
  if (err != 0) goto fail;
  if (u->xdp != NULL) {
    u->flows.on_end = on_flow_end;
    u->flows.on_end_context = u;
  }
  *syscall = "pthread_create";
  err = pthread_create(&u->thread, NULL, run, u);
  if (err != 0) goto fail;
  u->thread_started = true;
  *out = u;
  return 0;
fail:
  upf_close(u);
  return err;
}

void upf_close(upf *u) {
  if (u->thread_started) {
    uint64_t one = 1;
    if (write(u->wake_fd, &one, sizeof one) < 0) {
      /* An eventfd write fails only on overflow, which a stop signal cannot reach. */
    }
    pthread_join(u->thread, NULL);
  }
  if (u->n3_fd >= 0) close(u->n3_fd);
  if (u->tun_fd >= 0) close(u->tun_fd);
  if (u->wake_fd >= 0) close(u->wake_fd);
  upf_xdp_close(u->xdp);
  upf_map_free(&u->by_id);
  upf_map_free(&u->by_teid);
  upf_map_free(&u->by_forward_teid);
  upf_map_free(&u->by_ipv4);
  upf_map_free(&u->by_ipv6);
  upf_flows_free(&u->flows);
  upf_buffer_free(&u->buffer);
  free(u->flush);
  free(u->sessions);
  free(u->free_slots);
  free(u->downlink_data);
  free(u->rx);
  free(u->frame);
  free(u->forward);
  n3_send_queue_free(&u->downlink);
  tun_gro_free(&u->n6);
  pthread_mutex_destroy(&u->lock);
  free(u);
}

uint16_t upf_n3_port(const upf *u) { return u->n3.port; }

const char *upf_tun_name(const upf *u) { return u->tun_name; }

static session *find(upf *u, uint32_t id) {
  uint32_t slot;
  return upf_map_get(&u->by_id, id, &slot) ? &u->sessions[slot] : NULL;
}

/* Takes a session out of the tables and frees its slot. */
static void forget(upf *u, session *s, uint32_t slot) {
  upf_map_remove(&u->by_id, s->id);
  upf_map_remove(&u->by_teid, s->uplink_teid);
  if (s->forwarding) upf_map_remove(&u->by_forward_teid, s->forward_teid);
  if (s->has_ipv4) upf_map_remove(&u->by_ipv4, ipv4_key(s->ipv4));
  if (s->has_ipv6) upf_map_remove(&u->by_ipv6, ipv6_key(s->ipv6_prefix));
  s->used = false;
  u->free_slots[u->free_count++] = slot;
}

/* The XDP program's octets for a session (since its slot was added) into its usage. */
static void add_xdp_usage(session *s, uint64_t uplink, uint64_t downlink) {
  s->uplink_usage += uplink - s->xdp_uplink_seen;
  s->downlink_usage += downlink - s->xdp_downlink_seen;
  s->xdp_uplink_seen = uplink;
  s->xdp_downlink_seen = downlink;
}

/* Returns the packets the program counted in the session's flows since its slot was added. */
static uint64_t take_xdp_usage(upf *u, session *s) {
  uint64_t uplink, downlink, flow_packets;
  upf_xdp_usage(u->xdp, (uint32_t)(s - u->sessions), &uplink, &downlink, &flow_packets);
  add_xdp_usage(s, uplink, downlink);
  return flow_packets;
}

static void on_xdp_usage(void *context, uint32_t slot, uint64_t uplink, uint64_t downlink) {
  upf *u = context;
  if (slot < u->max_sessions && u->sessions[slot].used)
    add_xdp_usage(&u->sessions[slot], uplink, downlink);
}

/* What a flow's entry in the program's map counted since it was last read, into the flow. The
 * program adds a packet's count and octets one after the other, so a read may see the packet without
 * its octets: they come with a later read. The entry only grows while it is in the map. */
static void take_since_read(session *s, upf_flow *flow, uint64_t packets, uint64_t bytes) {
  if (packets < flow->xdp_packets || bytes < flow->xdp_bytes) return;
  if (s != NULL) s->xdp_flow_packets_taken += packets - flow->xdp_packets;
  upf_flows_count(flow, packets - flow->xdp_packets, bytes - flow->xdp_bytes);
  flow->xdp_packets = packets;
  flow->xdp_bytes = bytes;
}

/* A flow as the XDP program's map holds it, read in place at a tick: what came since the last read
 * joins the flow table like the thread's own packets, and the entry stays for the flow's next
 * packets. An entry the table cannot take is deleted: its session is gone (packets in flight at the
 * release), or no slot is free, which counts flowTableFull as for a flow the thread cannot open. */
static void on_xdp_flow(void *context, const upf_flow_key *key, uint64_t packets, uint64_t bytes) {
  upf *u = context;
  session *s = find(u, key->session);
  upf_flow *flow = s == NULL ? NULL : upf_flows_open(&u->flows, key, &s->flow_head);
  if (flow == NULL) {
    upf_xdp_take_flow(u->xdp, key, &packets, &bytes);
    if (s != NULL) {
      s->xdp_flow_packets_taken += packets;
      count(u, UPF_FLOW_TABLE_FULL);
    }
    return;
  }
  if (!flow->in_xdp) {
    /* Inserted since the last read (new, or the first of an open flow's packets to take the
     * program's path): all of it is new. */
    flow->in_xdp = true;
    flow->xdp_packets = 0;
    flow->xdp_bytes = 0;
  }
  take_since_read(s, flow, packets, bytes);
}

/* A flow ends (idle, active timeout, its session's release): its entry leaves the program's map, and
 * what the program counted since the last read joins it first, so no packet is lost or counted
 * twice; the key's next packet makes a new entry, hence a new flow. */
static void on_flow_end(void *context, upf_flow *flow) {
  if (!flow->in_xdp) return;
  upf *u = context;
  flow->in_xdp = false;
  uint64_t packets, bytes;
  if (upf_xdp_take_flow(u->xdp, &flow->key, &packets, &bytes) != 0) return;
  take_since_read(find(u, flow->key.session), flow, packets, bytes);
}

int upf_add_session(upf *u, uint32_t id, uint32_t uplink_teid, const uint8_t *ipv4,
                    const uint8_t *ipv6_prefix, uint64_t uplink_bps, uint64_t downlink_bps) {
  int err = 0;
  pthread_mutex_lock(&u->lock);
  uint32_t unused;
  if (upf_map_get(&u->by_id, id, &unused) || upf_map_get(&u->by_teid, uplink_teid, &unused) ||
      upf_map_get(&u->by_forward_teid, uplink_teid, &unused) ||
      (ipv4 != NULL && upf_map_get(&u->by_ipv4, ipv4_key(ipv4), &unused)) ||
      (ipv6_prefix != NULL && upf_map_get(&u->by_ipv6, ipv6_key(ipv6_prefix), &unused))) {
    err = EEXIST;
  } else if (u->free_count == 0) {
    err = ENOSPC;
  } else {
    /* Every map holds at most max_sessions entries, so these puts cannot fail. */
    uint32_t slot = u->free_slots[--u->free_count];
    session *s = &u->sessions[slot];
    memset(s, 0, sizeof *s);
    upf_buffer_queue_init(&s->buffer);
    s->used = true;
    s->id = id;
    s->flow_head = UPF_NO_FLOW;
    s->uplink_teid = uplink_teid;
    upf_map_put(&u->by_id, id, slot);
    upf_map_put(&u->by_teid, uplink_teid, slot);
    if (ipv4 != NULL) {
      s->has_ipv4 = true;
      memcpy(s->ipv4, ipv4, 4);
      upf_map_put(&u->by_ipv4, ipv4_key(ipv4), slot);
    }
    if (ipv6_prefix != NULL) {
      s->has_ipv6 = true;
      memcpy(s->ipv6_prefix, ipv6_prefix, 8);
      upf_map_put(&u->by_ipv6, ipv6_key(ipv6_prefix), slot);
    }
    bucket_set(&s->uplink_ambr, (double)uplink_bps / 8, 16384);
    bucket_set(&s->downlink_ambr, (double)downlink_bps / 8, 16384);
    if (u->xdp != NULL) {
      err = upf_xdp_add_session(u->xdp, slot, id, uplink_teid, ipv4, ipv6_prefix, uplink_bps,
                                downlink_bps);
      if (err != 0) forget(u, s, slot);
    }
  }
  pthread_mutex_unlock(&u->lock);
  return err;
}

/* Sends the session's buffered packets down its (new) tunnel, oldest first, under the mutex so that
 * the thread's next downlink packets of the session follow them. Policed and accounted as they go. */
static void flush_buffered(upf *u, session *s) {
  struct mmsghdr messages[UPF_BUFFER_SESSION_PACKETS];
  struct iovec iov[UPF_BUFFER_SESSION_PACKETS];
  uint8_t *at = u->flush;
  unsigned out = 0;
  uint64_t now = now_ns();
  size_t length;
  double stamp;
  while (upf_buffer_peek(&u->buffer, &s->buffer, &length, &stamp)) {
    uint8_t *packet = at + GTPU_DOWNLINK_HEADER;
    upf_buffer_pop(&u->buffer, &s->buffer, packet);
    if (!bucket_take(&s->downlink_ambr, length, now)) {
      count(u, UPF_DROP_DOWNLINK_AMBR);
      account_downlink(u, s, packet, length, 1);
      continue;
    }
    gtpu_write_downlink_header(at, s->remote_teid, s->qfi, length);
    count(u, UPF_DOWNLINK_PACKETS);
    u->counters[UPF_DOWNLINK_BYTES] += length;
    s->downlink_usage += length;
    account_downlink(u, s, packet, length, 0);
    iov[out].iov_base = at;
    iov[out].iov_len = GTPU_DOWNLINK_HEADER + length;
    memset(&messages[out].msg_hdr, 0, sizeof messages[out].msg_hdr);
    messages[out].msg_hdr.msg_name = &s->gnb;
    messages[out].msg_hdr.msg_namelen = s->gnb_length;
    messages[out].msg_hdr.msg_iov = &iov[out];
    messages[out].msg_hdr.msg_iovlen = 1;
    out++;
    at += GTPU_DOWNLINK_HEADER + length;
  }
  for (unsigned sent = 0; sent < out;) {
    int n = sendmmsg(u->n3_fd, messages + sent, out - sent, MSG_DONTWAIT);
    if (n <= 0) {
      count(u, UPF_DROP_N3_SEND);
      sent++;
      continue;
    }
    sent += (unsigned)n;
    u->counters[UPF_DOWNLINK_BUFFER_FLUSHED] += (uint64_t)n;
  }
}

int upf_set_downlink(upf *u, uint32_t id, const struct sockaddr *gnb, socklen_t gnb_length,
                     uint32_t remote_teid, uint8_t qfi) {
  if (gnb->sa_family != u->n3.family) return EAFNOSUPPORT;
  int err = 0;
  pthread_mutex_lock(&u->lock);
  session *s = find(u, id);
  if (s == NULL) {
    err = ENOENT;
  } else {
    bool moved = s->downlink && (s->remote_teid != remote_teid || s->gnb_length != gnb_length ||
                                 memcmp(&s->gnb, gnb, gnb_length) != 0);
    if (moved) {
      /* The program stops using the old tunnel before the End Marker goes down it: from here its
       * packets of the session come to this thread, which sends them down the new one. */
      if (u->xdp != NULL) upf_xdp_clear_downlink(u->xdp, (uint32_t)(s - u->sessions));
      uint8_t message[8];
      size_t n = gtpu_write_end_marker(message, s->remote_teid);
      send_to(u, message, n, (struct sockaddr *)&s->gnb, s->gnb_length);
      count(u, UPF_END_MARKERS_SENT);
    }
    memcpy(&s->gnb, gnb, gnb_length);
    s->gnb_length = gnb_length;
    s->remote_teid = remote_teid;
    s->qfi = qfi;
    s->downlink = true;
    s->downlink_data_reported = false;
    flush_buffered(u, s);
    /* The buffered packets went first; the program's packets follow them. */
    if (u->xdp != NULL)
      err = upf_xdp_set_downlink(u->xdp, (uint32_t)(s - u->sessions), gnb, remote_teid, qfi);
  }
  pthread_mutex_unlock(&u->lock);
  return err;
}

int upf_set_forwarding(upf *u, uint32_t id, uint32_t forward_teid, const struct sockaddr *gnb,
                       socklen_t gnb_length, uint32_t remote_teid, uint8_t qfi) {
  if (gnb->sa_family != u->n3.family) return EAFNOSUPPORT;
  int err = 0;
  pthread_mutex_lock(&u->lock);
  session *s = find(u, id);
  uint32_t holder;
  if (s == NULL) {
    err = ENOENT;
  } else if (upf_map_get(&u->by_teid, forward_teid, &holder) ||
             (upf_map_get(&u->by_forward_teid, forward_teid, &holder) &&
              &u->sessions[holder] != s)) {
    err = EEXIST;
  } else {
    /* A session has one forwarding tunnel (one handover at a time): a new one replaces it. At most
     * max_sessions entries, so the put cannot fail. */
    if (s->forwarding) upf_map_remove(&u->by_forward_teid, s->forward_teid);
    s->forwarding = true;
    s->forward_teid = forward_teid;
    memcpy(&s->forward_gnb, gnb, gnb_length);
    s->forward_gnb_length = gnb_length;
    s->forward_remote_teid = remote_teid;
    s->forward_qfi = qfi;
    upf_map_put(&u->by_forward_teid, forward_teid, (uint32_t)(s - u->sessions));
  }
  pthread_mutex_unlock(&u->lock);
  return err;
}

int upf_clear_forwarding(upf *u, uint32_t id) {
  pthread_mutex_lock(&u->lock);
  session *s = find(u, id);
  if (s != NULL && s->forwarding) {
    upf_map_remove(&u->by_forward_teid, s->forward_teid);
    s->forwarding = false;
  }
  pthread_mutex_unlock(&u->lock);
  return s == NULL ? ENOENT : 0;
}

int upf_clear_downlink(upf *u, uint32_t id) {
  pthread_mutex_lock(&u->lock);
  session *s = find(u, id);
  if (s != NULL) {
    /* The program first, so that its next packets go to this thread, which buffers them. */
    if (u->xdp != NULL) upf_xdp_clear_downlink(u->xdp, (uint32_t)(s - u->sessions));
    s->downlink = false;
    s->downlink_data_reported = false;
  }
  pthread_mutex_unlock(&u->lock);
  return s == NULL ? ENOENT : 0;
}

int upf_set_ambr(upf *u, uint32_t id, uint64_t uplink_bps, uint64_t downlink_bps) {
  pthread_mutex_lock(&u->lock);
  session *s = find(u, id);
  if (s != NULL) {
    bucket_set(&s->uplink_ambr, (double)uplink_bps / 8, 16384);
    bucket_set(&s->downlink_ambr, (double)downlink_bps / 8, 16384);
    if (u->xdp != NULL)
      upf_xdp_set_ambr(u->xdp, (uint32_t)(s - u->sessions), uplink_bps, downlink_bps);
  }
  pthread_mutex_unlock(&u->lock);
  return s == NULL ? ENOENT : 0;
}

/* The program's keys of the session go first, so it counts no more for it; then what it counted
 * joins the session's usage, and its flows' entries the flow table (ending the session's flows then
 * deletes them, on_flow_end). The map is read whole only when the session has packets in entries
 * not read yet (inserted since the last tick): a read visits every bucket of the map (upf_max_flows
 * of them), all sessions' flows, which the tick reads anyway. */
static void retire_from_xdp(upf *u, session *s, uint32_t slot) {
  upf_xdp_remove_session(u->xdp, slot, s->uplink_teid, s->has_ipv4 ? s->ipv4 : NULL,
                         s->has_ipv6 ? s->ipv6_prefix : NULL);
  if (take_xdp_usage(u, s) != s->xdp_flow_packets_taken)
    upf_xdp_read_flows(u->xdp, on_xdp_flow, u);
}

int upf_remove_session(upf *u, uint32_t id, double now_ms, double previous_ms,
                       uint64_t *uplink_bytes, uint64_t *downlink_bytes, uint64_t *flows_ended) {
  int err = 0;
  pthread_mutex_lock(&u->lock);
  uint32_t slot;
  if (!upf_map_get(&u->by_id, id, &slot)) {
    err = ENOENT;
  } else {
    session *s = &u->sessions[slot];
    if (u->xdp != NULL) retire_from_xdp(u, s, slot);
    *uplink_bytes = s->uplink_usage;
    drop_buffered(u, s, UPF_DROP_BUFFER_RELEASED, 0);
    *downlink_bytes = s->downlink_usage;
    upf_flows_end_session(&u->flows, &s->flow_head, now_ms, previous_ms);
    *flows_ended = u->flows.ended_total;
    forget(u, s, slot);
  }
  pthread_mutex_unlock(&u->lock);
  return err;
}

void upf_tick_flows(upf *u, double now_ms, double previous_ms, double idle_ms, double active_ms) {
  pthread_mutex_lock(&u->lock);
  /* Packets that came since the previous tick get its time; the expired ones become drop flows of
   * this tick. Visits only the sessions with packets buffered. */
  for (upf_buffer_queue *q = u->buffer.queues; q != NULL;) {
    upf_buffer_queue *next = q->next; /* dropping all of q's packets unlinks it */
    session *s = (session *)((uint8_t *)q - offsetof(session, buffer));
    upf_buffer_stamp(&u->buffer, q, previous_ms);
    drop_buffered(u, s, UPF_DROP_BUFFER_EXPIRED, now_ms - u->buffer_ms);
    q = next;
  }
  if (u->xdp != NULL) upf_xdp_read_flows(u->xdp, on_xdp_flow, u);
  upf_flows_tick(&u->flows, now_ms, previous_ms, idle_ms, active_ms);
  pthread_mutex_unlock(&u->lock);
}

uint8_t *upf_take_flows(upf *u, uint32_t max, size_t *count_out) {
  pthread_mutex_lock(&u->lock);
  uint32_t n = u->flows.ended_count < max ? u->flows.ended_count : max;
  uint8_t *out = malloc((size_t)n * UPF_FLOW_RECORD + 1);
  if (out != NULL) n = upf_flows_take(&u->flows, out, n);
  pthread_mutex_unlock(&u->lock);
  *count_out = out == NULL ? 0 : n;
  return out;
}

uint8_t *upf_take_downlink_data(upf *u, size_t *count_out) {
  pthread_mutex_lock(&u->lock);
  size_t n = u->downlink_data_count;
  uint8_t *out = malloc(n * 4 + 1);
  if (out != NULL) {
    for (size_t i = 0; i < n; i++) {
      uint32_t id = u->downlink_data[i];
      for (int b = 0; b < 4; b++) out[4 * i + (size_t)b] = (uint8_t)(id >> (8 * b));
    }
    u->downlink_data_count = 0;
  }
  pthread_mutex_unlock(&u->lock);
  *count_out = out == NULL ? 0 : n;
  return out;
}

void upf_flow_counts(upf *u, uint32_t *open, uint32_t *ended) {
  pthread_mutex_lock(&u->lock);
  *open = u->flows.live_count;
  *ended = u->flows.ended_count;
  pthread_mutex_unlock(&u->lock);
}

static void put_le64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

uint8_t *upf_drain_usage(upf *u, size_t *count_out) {
  pthread_mutex_lock(&u->lock);
  uint32_t active = u->max_sessions - u->free_count;
  uint8_t *out = malloc((size_t)active * UPF_USAGE_RECORD + 1);
  size_t n = 0;
  if (out != NULL) {
    if (u->xdp != NULL) upf_xdp_usage_all(u->xdp, on_xdp_usage, u);
    for (uint32_t i = 0; i < u->max_sessions; i++) {
      session *s = &u->sessions[i];
      if (!s->used || (s->uplink_usage == 0 && s->downlink_usage == 0)) continue;
      uint8_t *r = out + n * UPF_USAGE_RECORD;
      put_le64(r, s->id);
      put_le64(r + 8, s->uplink_usage);
      put_le64(r + 16, s->downlink_usage);
      s->uplink_usage = 0;
      s->downlink_usage = 0;
      n++;
    }
  }
  pthread_mutex_unlock(&u->lock);
  *count_out = n;
  return out;
}

void upf_read_counters(upf *u, uint64_t *out) {
  pthread_mutex_lock(&u->lock);
  memcpy(out, u->counters, sizeof u->counters);
  if (u->xdp != NULL) {
    /* The program's packets never reach this thread: its counts add to the thread's. */
    upf_xdp_counters x;
    upf_xdp_read_counters(u->xdp, &x);
    out[UPF_N3_RECEIVED] += x.n3_received;
    out[UPF_UPLINK_PACKETS] += x.uplink_packets;
    out[UPF_UPLINK_BYTES] += x.uplink_bytes;
    out[UPF_DOWNLINK_PACKETS] += x.downlink_packets;
    out[UPF_DOWNLINK_BYTES] += x.downlink_bytes;
    out[UPF_DROP_SPOOFED] += x.drop_spoofed;
    out[UPF_DROP_UPLINK_AMBR] += x.drop_uplink_ambr;
    out[UPF_DROP_DOWNLINK_AMBR] += x.drop_downlink_ambr;
    out[UPF_FLOW_TABLE_FULL] += x.flow_table_full;
    out[UPF_XDP_TO_STACK] += x.to_stack;
    out[UPF_XDP_TO_STACK_LIMITED] += x.to_stack_limited;
    out[UPF_XDP_FLOWS_INSERTED] += x.flows_inserted;
  }
  pthread_mutex_unlock(&u->lock);
}

uint32_t upf_buffered_packets(upf *u) {
  pthread_mutex_lock(&u->lock);
  uint32_t n = u->buffer.packets;
  pthread_mutex_unlock(&u->lock);
  return n;
}

uint32_t upf_session_count(upf *u) {
  pthread_mutex_lock(&u->lock);
  uint32_t n = u->max_sessions - u->free_count;
  pthread_mutex_unlock(&u->lock);
  return n;
}

uint32_t upf_forwarding_count(upf *u) {
  pthread_mutex_lock(&u->lock);
  uint32_t n = u->by_forward_teid.count;
  pthread_mutex_unlock(&u->lock);
  return n;
}
