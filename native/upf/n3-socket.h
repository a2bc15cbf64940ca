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

/* A non-blocking UDP socket bound to `address` with 4 MiB buffers where allowed, and UDP_GRO where
 * the kernel has it (n3_receive_batch splits what it joins). Returns the descriptor, or -errno with
 * *syscall naming the call that failed. */
int n3_socket_open(const struct sockaddr_storage *address, socklen_t length, n3_endpoint *bound,
                   const char **syscall);

/* A non-blocking TUN device of bare IP packets (IFF_NO_PI) named `name` (empty: the kernel's
 * tunN); its actual name goes to `actual`. Not persistent: closing the descriptor removes it.
 * With IFF_VNET_HDR and the offloads TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6, so that the kernel hands
 * over TCP segments of up to 64 KiB with their checksums left to us: every read starts with a
 * struct virtio_net_hdr (tun-gso.h cuts and finishes them), every write needs one (tun_write).
 * Returns the descriptor or -errno. */
int tun_open(const char *name, char actual[IFNAMSIZ]);

/* Writes one IP packet into such a TUN behind a zero virtio_net_hdr (no GSO; the checksums are
 * complete and the kernel checks them). Returns true when the whole packet was taken. */
bool tun_write(int fd, const uint8_t *packet, size_t length);

/* Datagrams gathered for one sendmmsg: each written in place into the queue's area (room then push),
 * with a copy of its destination, so a batch can be sent after the caller's lock is released. */
#define N3_SEND_MESSAGES 512
typedef struct {
  uint8_t *area;
  size_t size;
  size_t used;
  unsigned count;
  /* UDP_SEGMENT failed on this socket's route (its device does not checksum): no more joins. */
  bool no_segment;
  struct mmsghdr messages[N3_SEND_MESSAGES];
  struct iovec iov[N3_SEND_MESSAGES];
  struct sockaddr_storage to[N3_SEND_MESSAGES];
  uint16_t segment[N3_SEND_MESSAGES]; /* a joined message's datagram size, else 0 */
  union {
    char buffer[CMSG_SPACE(sizeof(uint16_t))];
    struct cmsghdr align;
  } control[N3_SEND_MESSAGES];
} n3_send_queue;

/* An area of `size` octets; false when it cannot be allocated. */
bool n3_send_queue_init(n3_send_queue *q, size_t size);
void n3_send_queue_free(n3_send_queue *q);
/* Where a datagram of up to `length` octets can be written, or NULL when the queue must be sent
 * first (its area or its messages are full). */
uint8_t *n3_send_queue_room(n3_send_queue *q, size_t length);
/* Queues the datagram of `length` octets written where n3_send_queue_room pointed, to `to`. */
void n3_send_queue_push(n3_send_queue *q, size_t length, const struct sockaddr_storage *to,
                        socklen_t to_length);
/* Joins the datagrams queued from index `first` on (the pieces of one TCP segment to one peer: each
 * `size` octets but the last) into sends with UDP_SEGMENT, the kernel's UDP GSO, of at most 64
 * datagrams and 64 KiB each: one pass through the stack instead of one per datagram; the receiver
 * gets the same datagrams (or, with UDP_GRO, joined with their size). */
void n3_send_queue_join(n3_send_queue *q, unsigned first, size_t size);
/* Sends everything queued (sendmmsg until done) and empties the queue. Returns how many datagrams
 * were lost: a call that fails loses the first of the rest. */
unsigned n3_send_queue_send(n3_send_queue *q, int fd);

/* One datagram read from an N3 socket: `length` is 0 when it was larger than its buffer (`truncated`);
 * `now` is CLOCK_MONOTONIC in nanoseconds, read once per batch. */
typedef void n3_packet_handler(void *context, const uint8_t *data, size_t length, bool truncated,
                               struct sockaddr_storage *from, socklen_t from_length, uint64_t now);

/* Called with the lock still held after the last datagram of a batch. */
typedef void n3_batch_done(void *context);

/* Reads up to `batch` datagrams at once (recvmmsg, non-blocking) into `rx` (`batch` buffers of
 * `buffer_size` octets each) and hands each to `handler` with `lock` held, then calls `done` (when
 * not NULL); a read the kernel's UDP GRO joined (a cmsg with the segment size) is handed over
 * datagram by datagram. Returns false when the
 * socket had nothing more to read, true when it may hold more (the batch was full). */
bool n3_receive_batch(int fd, uint8_t *rx, size_t buffer_size, unsigned batch, pthread_mutex_t *lock,
                      n3_packet_handler *handler, n3_batch_done *done, void *context);

#endif
