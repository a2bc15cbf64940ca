/* Raw IPv4/IPv6 sockets for IP protocol 132 (SCTP): the packet link of the userland SCTP stack.
 *
 * An IPv4 raw socket delivers each datagram with its IP header (RFC 791), which is checked and
 * stripped here; an IPv6 raw socket delivers the payload only, and the destination address comes
 * from an IPV6_PKTINFO control message (RFC 3542 section 6). Datagrams are reassembled by the
 * kernel before a raw socket sees them. */
#include "raw-socket.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RAW_BUFFER_SIZE 65536 /* the largest IPv4 datagram or IPv6 payload without jumbograms */

typedef struct {
  char source[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
  char destination[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
  const unsigned char *payload;
  size_t length;
} raw_packet;

/* RFC 791 section 3.1: version 4, IHL of at least 5 words, total length covering the header and
 * not more than was received. Returns 0 or EBADMSG. */
static int parse_ipv4(const unsigned char *data, size_t received, raw_packet *packet) {
  if (received < 20 || (data[0] >> 4) != 4) return EBADMSG;
  size_t header = (size_t)(data[0] & 0x0f) * 4;
  size_t total = ((size_t)data[2] << 8) | data[3];
  if (header < 20 || total < header || total > received) return EBADMSG;
  if (!pmn_format_ip(AF_INET, data + 12, 0, packet->source, sizeof packet->source) ||
      !pmn_format_ip(AF_INET, data + 16, 0, packet->destination, sizeof packet->destination))
    return EBADMSG;
  packet->payload = data + header;
  packet->length = total - header;
  return 0;
}

static int parse_ipv6(const unsigned char *data, size_t received, const struct msghdr *message,
                      raw_packet *packet) {
  const struct sockaddr_in6 *from = message->msg_name;
  const struct in6_pktinfo *info = NULL;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(message); c != NULL;
       c = CMSG_NXTHDR((struct msghdr *)message, c))
    if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO &&
        c->cmsg_len >= CMSG_LEN(sizeof *info))
      info = (const struct in6_pktinfo *)CMSG_DATA(c);
  if (message->msg_namelen < sizeof *from || from->sin6_family != AF_INET6 || info == NULL)
    return EBADMSG;
  uint32_t scope = IN6_IS_ADDR_LINKLOCAL(&from->sin6_addr) ? from->sin6_scope_id : 0;
  uint32_t local_scope = IN6_IS_ADDR_LINKLOCAL(&info->ipi6_addr) ? (uint32_t)info->ipi6_ifindex : 0;
  if (!pmn_format_ip(AF_INET6, &from->sin6_addr, scope, packet->source, sizeof packet->source) ||
      !pmn_format_ip(AF_INET6, &info->ipi6_addr, local_scope, packet->destination,
                     sizeof packet->destination))
    return EBADMSG;
  packet->payload = data;
  packet->length = received;
  return 0;
}

static void raw_on_readable(pmn_socket *socket) {
  napi_env env = socket->env;
  pmn_emit_batch batch;
  bool open = false;
  for (int i = 0; i < PMN_RECV_BATCH && !socket->closed; i++) {
    struct sockaddr_in6 from;
    union {
      struct cmsghdr align;
      unsigned char bytes[CMSG_SPACE(sizeof(struct in6_pktinfo))];
    } control;
    struct iovec iov = {.iov_base = socket->buffer, .iov_len = socket->buffer_size};
    struct msghdr message = {.msg_name = &from,
                             .msg_namelen = sizeof from,
                             .msg_iov = &iov,
                             .msg_iovlen = 1,
                             .msg_control = control.bytes,
                             .msg_controllen = sizeof control.bytes};
    ssize_t received = recvmsg(socket->fd, &message, MSG_DONTWAIT);
    if (received < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) pmn_socket_emit_error(socket, "recvmsg", errno);
      break;
    }
    raw_packet packet;
    int bad = (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 ? EMSGSIZE
              : socket->family == AF_INET
                  ? parse_ipv4(socket->buffer, (size_t)received, &packet)
                  : parse_ipv6(socket->buffer, (size_t)received, &message, &packet);
    if (bad != 0) {
      if (!pmn_socket_emit_error(socket, "recvmsg", bad)) break;
      continue;
    }
    if (!open && !(open = pmn_socket_batch_open(socket, "onPacket", &batch))) break;
    napi_handle_scope scope;
    if (napi_open_handle_scope(env, &scope) != napi_ok) break;
    napi_value argv[3] = {NULL, pmn_string(env, packet.source), pmn_string(env, packet.destination)};
    void *copy;
    if (napi_create_buffer_copy(env, packet.length, packet.payload, &copy, &argv[0]) != napi_ok)
      argv[0] = NULL;
    bool more = pmn_socket_batch_call(socket, &batch, 3, argv);
    napi_close_handle_scope(env, scope);
    if (!more) break;
  }
  if (open) pmn_socket_batch_close(socket, &batch);
}

static void set_buffer_size(int fd, int force, int plain, int64_t size) {
  int value = (int)size;
  /* The *FORCE variants pass net.core.[rw]mem_max with CAP_NET_ADMIN; without it, ask politely. */
  if (setsockopt(fd, SOL_SOCKET, force, &value, sizeof value) < 0)
    setsockopt(fd, SOL_SOCKET, plain, &value, sizeof value);
}

/* new RawSocket(family: 4 | 6, handlers: { onPacket, onError }, options?: { receiveBufferSize,
 * sendBufferSize }) */
static napi_value raw_new(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], self;
  pmn_datagram_args args;
  PMN_CALL(env, napi_get_cb_info(env, info, &argc, argv, &self, NULL));
  if (!pmn_datagram_args_parse(env, argc, argv, &args)) return NULL;
  int family = args.family;
  int fd = socket(family, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_SCTP);
  if (fd < 0) return pmn_throw_errno(env, "socket", errno);
  int one = 1;
  if (family == AF_INET6 &&
      setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof one) < 0) {
    int err = errno;
    close(fd);
    return pmn_throw_errno(env, "setsockopt", err);
  }
  if (args.has_receive) set_buffer_size(fd, SO_RCVBUFFORCE, SO_RCVBUF, args.receive_size);
  if (args.has_send) set_buffer_size(fd, SO_SNDBUFFORCE, SO_SNDBUF, args.send_size);

  if (!pmn_socket_create(env, self, args.handlers, fd, family, RAW_BUFFER_SIZE, raw_on_readable, NULL,
                         "pmn.RawSocket"))
    return NULL;
  return self;
}

/* bind(address: string): receive only datagrams addressed to it, and send from it. */
static napi_value raw_bind(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  struct sockaddr_storage address;
  socklen_t length;
  pmn_socket *socket = pmn_socket_unwrap(env, info, &argc, argv, NULL);
  if (socket == NULL || !pmn_parse_address(env, argc > 0 ? argv[0] : NULL, 0, &address, &length))
    return NULL;
  if (address.ss_family != socket->family)
    return pmn_throw_type(env, "address family differs from the socket's");
  if (bind(socket->fd, (struct sockaddr *)&address, length) < 0)
    return pmn_throw_errno(env, "bind", errno);
  return NULL;
}

/* One datagram to send: its packet, destination and, optionally, source (IP_PKTINFO / IPV6_PKTINFO).
 * source may be NULL or undefined. */
typedef struct {
  struct sockaddr_storage address;
  struct iovec iov;
  union {
    struct cmsghdr align;
    unsigned char bytes[CMSG_SPACE(sizeof(struct in6_pktinfo))];
  } control;
} raw_datagram;

static bool raw_prepare(napi_env env, pmn_socket *socket, napi_value packet, napi_value address,
                        napi_value source, raw_datagram *d, struct msghdr *message) {
  void *data;
  size_t length;
  socklen_t address_length, source_length;
  struct sockaddr_storage from;
  napi_valuetype source_type = napi_undefined;
  if (!pmn_arg_bytes(env, packet, "packet", &data, &length) ||
      !pmn_parse_address(env, address, 0, &d->address, &address_length))
    return false;
  if (source != NULL && napi_typeof(env, source, &source_type) != napi_ok) return false;
  if (source_type != napi_undefined && !pmn_parse_address(env, source, 0, &from, &source_length))
    return false;
  if (d->address.ss_family != socket->family ||
      (source_type != napi_undefined && from.ss_family != socket->family)) {
    pmn_throw_type(env, "address family differs from the socket's");
    return false;
  }
  d->iov = (struct iovec){.iov_base = data, .iov_len = length};
  *message = (struct msghdr){
      .msg_name = &d->address, .msg_namelen = address_length, .msg_iov = &d->iov, .msg_iovlen = 1};
  if (source_type == napi_undefined) return true;
  memset(&d->control, 0, sizeof d->control);
  message->msg_control = d->control.bytes;
  struct cmsghdr *c = (struct cmsghdr *)d->control.bytes;
  if (socket->family == AF_INET) {
    struct in_pktinfo pktinfo = {.ipi_spec_dst = ((struct sockaddr_in *)&from)->sin_addr};
    c->cmsg_level = IPPROTO_IP;
    c->cmsg_type = IP_PKTINFO;
    c->cmsg_len = CMSG_LEN(sizeof pktinfo);
    memcpy(CMSG_DATA(c), &pktinfo, sizeof pktinfo);
    message->msg_controllen = CMSG_SPACE(sizeof pktinfo);
  } else {
    struct in6_pktinfo pktinfo = {.ipi6_addr = ((struct sockaddr_in6 *)&from)->sin6_addr};
    c->cmsg_level = IPPROTO_IPV6;
    c->cmsg_type = IPV6_PKTINFO;
    c->cmsg_len = CMSG_LEN(sizeof pktinfo);
    memcpy(CMSG_DATA(c), &pktinfo, sizeof pktinfo);
    message->msg_controllen = CMSG_SPACE(sizeof pktinfo);
  }
  return true;
}

/* send(packet: Uint8Array, address: string, source?: string): undefined when handed to the kernel,
 * else the errno code (e.g. 'EAGAIN', 'EHOSTUNREACH'): a lost datagram, which SCTP recovers from.
 * source picks the source address of a multi-homed endpoint (IP_PKTINFO / IPV6_PKTINFO). */
static napi_value raw_send(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  raw_datagram d;
  struct mmsghdr message;
  pmn_socket *socket = pmn_socket_unwrap(env, info, &argc, argv, NULL);
  if (socket == NULL || !raw_prepare(env, socket, argc > 0 ? argv[0] : NULL, argc > 1 ? argv[1] : NULL,
                                     argc > 2 ? argv[2] : NULL, &d, &message.msg_hdr))
    return NULL;
  int err = pmn_sendmmsg(socket->fd, &message, 1);
  return err == 0 ? NULL : pmn_errno_code(env, err);
}

/* sendBatch(packets: Uint8Array[], addresses: string[], sources: (string | undefined)[]): send of
 * each, with sendmmsg, PMN_SEND_BATCH datagrams a system call. undefined when the kernel took them all,
 * else the errno code of the first it refused (the others still went). */
static napi_value raw_send_batch(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  uint32_t count, addresses, sources;
  raw_datagram datagrams[PMN_SEND_BATCH];
  struct mmsghdr messages[PMN_SEND_BATCH];
  pmn_socket *socket = pmn_socket_unwrap(env, info, &argc, argv, NULL);
  if (socket == NULL || !pmn_array_length(env, argc > 0 ? argv[0] : NULL, "packets", &count) ||
      !pmn_array_length(env, argc > 1 ? argv[1] : NULL, "addresses", &addresses) ||
      !pmn_array_length(env, argc > 2 ? argv[2] : NULL, "sources", &sources))
    return NULL;
  if (addresses != count || sources != count)
    return pmn_throw_type(env, "packets, addresses and sources must have the same length");
  int first_error = 0;
  for (uint32_t done = 0; done < count;) {
    unsigned n = 0;
    for (; n < PMN_SEND_BATCH && done + n < count; n++) {
      napi_value packet = pmn_element(env, argv[0], done + n, "packets");
      napi_value address = pmn_element(env, argv[1], done + n, "addresses");
      napi_value source = pmn_element(env, argv[2], done + n, "sources");
      if (packet == NULL || address == NULL || source == NULL ||
          !raw_prepare(env, socket, packet, address, source, &datagrams[n], &messages[n].msg_hdr))
        return NULL;
    }
    int err = pmn_sendmmsg(socket->fd, messages, n);
    if (first_error == 0) first_error = err;
    done += n;
  }
  return first_error == 0 ? NULL : pmn_errno_code(env, first_error);
}

napi_value pmn_raw_socket_class(napi_env env) {
  napi_property_descriptor methods[] = {
      {"bind", NULL, raw_bind, NULL, NULL, NULL, napi_default_method, NULL},
      {"send", NULL, raw_send, NULL, NULL, NULL, napi_default_method, NULL},
      {"sendBatch", NULL, raw_send_batch, NULL, NULL, NULL, napi_default_method, NULL},
      {"close", NULL, pmn_socket_close_method, NULL, NULL, NULL, napi_default_method, NULL},
  };
  napi_value constructor;
  PMN_CALL(env, napi_define_class(env, "RawSocket", NAPI_AUTO_LENGTH, raw_new, NULL,
                                  sizeof methods / sizeof methods[0], methods, &constructor));
  return constructor;
}
