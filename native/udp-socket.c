/* UDP sockets for SCTP's UDP encapsulation (RFC 6951): the `udp` link of the userland SCTP stack.
 *
 * Node's dgram pays a DNS-lookup turn, a request object and an event per datagram; the userland
 * stack sends a few packets per flush and reads many per turn, so here they go out with one sendmmsg
 * per batch and come in through one callback scope per readable event (common.c). */
#include "udp-socket.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UDP_BUFFER_SIZE 65536 /* the largest UDP payload is 65,507 bytes over IPv4, 65,527 over IPv6 */

/* The source of a datagram as text (a link-local IPv6 address with its zone) and port. */
static bool udp_source(const struct sockaddr_storage *from, socklen_t length, char *text,
                       size_t size, uint16_t *port) {
  if (from->ss_family == AF_INET && length >= sizeof(struct sockaddr_in)) {
    const struct sockaddr_in *v4 = (const struct sockaddr_in *)from;
    *port = ntohs(v4->sin_port);
    return pmn_format_ip(AF_INET, &v4->sin_addr, 0, text, size);
  }
  if (from->ss_family == AF_INET6 && length >= sizeof(struct sockaddr_in6)) {
    const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)from;
    *port = ntohs(v6->sin6_port);
    uint32_t scope = IN6_IS_ADDR_LINKLOCAL(&v6->sin6_addr) ? v6->sin6_scope_id : 0;
    return pmn_format_ip(AF_INET6, &v6->sin6_addr, scope, text, size);
  }
  return false;
}

static void udp_on_readable(pmn_socket *socket) {
  napi_env env = socket->env;
  pmn_emit_batch batch;
  bool open = false;
  for (int i = 0; i < PMN_RECV_BATCH && !socket->closed; i++) {
    struct sockaddr_storage from;
    socklen_t from_length = sizeof from;
    ssize_t received = recvfrom(socket->fd, socket->buffer, socket->buffer_size, MSG_DONTWAIT,
                                (struct sockaddr *)&from, &from_length);
    if (received < 0) {
      if (errno == EINTR) continue;
      /* ECONNREFUSED and the like: an ICMP error for an earlier datagram, packet loss to SCTP. */
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        if (!pmn_socket_emit_error(socket, "recvfrom", errno)) break;
        continue;
      }
      break;
    }
    if (!open && !(open = pmn_socket_batch_open(socket, "onPacket", &batch))) break;
    napi_handle_scope scope;
    if (napi_open_handle_scope(env, &scope) != napi_ok) break;
    napi_value argv[3] = {NULL, NULL, NULL};
    void *copy;
    char text[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
    uint16_t port;
    bool more = true;
    if (udp_source(&from, from_length, text, sizeof text, &port) &&
        napi_create_buffer_copy(env, (size_t)received, socket->buffer, &copy, &argv[0]) == napi_ok) {
      argv[1] = pmn_string(env, text);
      argv[2] = pmn_number(env, port);
      more = pmn_socket_batch_call(socket, &batch, 3, argv);
    }
    napi_close_handle_scope(env, scope);
    if (!more) break;
  }
  if (open) pmn_socket_batch_close(socket, &batch);
}

static void set_buffer_size(int fd, int option, int64_t size) {
  int value = (int)size;
  /* The kernel caps it at net.core.[rw]mem_max; a smaller buffer is not an error. */
  setsockopt(fd, SOL_SOCKET, option, &value, sizeof value);
}

/* new UdpSocket(family: 4 | 6, handlers: { onPacket, onError }, options?: { receiveBufferSize,
 * sendBufferSize }). An IPv6 socket is IPV6_V6ONLY: IPv4 has its own. */
static napi_value udp_new(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], self;
  pmn_datagram_args args;
  PMN_CALL(env, napi_get_cb_info(env, info, &argc, argv, &self, NULL));
  if (!pmn_datagram_args_parse(env, argc, argv, &args)) return NULL;
  int family = args.family;
  int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
  if (fd < 0) return pmn_throw_errno(env, "socket", errno);
  int one = 1;
  if (family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) < 0) {
    int err = errno;
    close(fd);
    return pmn_throw_errno(env, "setsockopt", err);
  }
  if (args.has_receive) set_buffer_size(fd, SO_RCVBUF, args.receive_size);
  if (args.has_send) set_buffer_size(fd, SO_SNDBUF, args.send_size);

  if (!pmn_socket_create(env, self, args.handlers, fd, family, UDP_BUFFER_SIZE, udp_on_readable, NULL,
                         "pmn.UdpSocket"))
    return NULL;
  return self;
}

/* bind(address: string, port: number): number, the port bound (an ephemeral one for 0). */
static napi_value udp_bind(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  int64_t port;
  struct sockaddr_storage address;
  socklen_t length;
  pmn_socket *socket = pmn_socket_unwrap(env, info, &argc, argv, NULL);
  if (socket == NULL || !pmn_arg_int(env, argc > 1 ? argv[1] : NULL, "port", 0, 65535, &port) ||
      !pmn_parse_address(env, argc > 0 ? argv[0] : NULL, (uint16_t)port, &address, &length))
    return NULL;
  if (address.ss_family != socket->family)
    return pmn_throw_type(env, "address family differs from the socket's");
  if (bind(socket->fd, (struct sockaddr *)&address, length) < 0)
    return pmn_throw_errno(env, "bind", errno);
  length = sizeof address;
  if (getsockname(socket->fd, (struct sockaddr *)&address, &length) < 0)
    return pmn_throw_errno(env, "getsockname", errno);
  return pmn_number(env, ntohs(address.ss_family == AF_INET
                                   ? ((struct sockaddr_in *)&address)->sin_port
                                   : ((struct sockaddr_in6 *)&address)->sin6_port));
}

/* send(packets: Uint8Array[], addresses: string[], ports: number[]): one datagram each, with
 * sendmmsg, PMN_SEND_BATCH a system call. undefined when the kernel took them all, else the errno code
 * of the first it refused (the others still went): lost datagrams, which SCTP recovers from. */
static napi_value udp_send(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  uint32_t count, addresses, ports;
  struct sockaddr_storage destinations[PMN_SEND_BATCH];
  struct iovec iovs[PMN_SEND_BATCH];
  struct mmsghdr messages[PMN_SEND_BATCH];
  pmn_socket *socket = pmn_socket_unwrap(env, info, &argc, argv, NULL);
  if (socket == NULL || !pmn_array_length(env, argc > 0 ? argv[0] : NULL, "packets", &count) ||
      !pmn_array_length(env, argc > 1 ? argv[1] : NULL, "addresses", &addresses) ||
      !pmn_array_length(env, argc > 2 ? argv[2] : NULL, "ports", &ports))
    return NULL;
  if (addresses != count || ports != count)
    return pmn_throw_type(env, "packets, addresses and ports must have the same length");
  int first_error = 0;
  for (uint32_t done = 0; done < count;) {
    unsigned n = 0;
    for (; n < PMN_SEND_BATCH && done + n < count; n++) {
      void *data;
      size_t length;
      int64_t port;
      socklen_t address_length;
      napi_value packet = pmn_element(env, argv[0], done + n, "packets");
      napi_value address = pmn_element(env, argv[1], done + n, "addresses");
      napi_value port_value = pmn_element(env, argv[2], done + n, "ports");
      if (packet == NULL || address == NULL || port_value == NULL ||
          !pmn_arg_bytes(env, packet, "packet", &data, &length) ||
          !pmn_arg_int(env, port_value, "port", 1, 65535, &port) ||
          !pmn_parse_address(env, address, (uint16_t)port, &destinations[n], &address_length))
        return NULL;
      if (destinations[n].ss_family != socket->family)
        return pmn_throw_type(env, "address family differs from the socket's");
      iovs[n] = (struct iovec){.iov_base = data, .iov_len = length};
      messages[n].msg_hdr = (struct msghdr){.msg_name = &destinations[n],
                                            .msg_namelen = address_length,
                                            .msg_iov = &iovs[n],
                                            .msg_iovlen = 1};
    }
    int err = pmn_sendmmsg(socket->fd, messages, n);
    if (first_error == 0) first_error = err;
    done += n;
  }
  return first_error == 0 ? NULL : pmn_errno_code(env, first_error);
}

napi_value pmn_udp_socket_class(napi_env env) {
  napi_property_descriptor methods[] = {
      {"bind", NULL, udp_bind, NULL, NULL, NULL, napi_default_method, NULL},
      {"send", NULL, udp_send, NULL, NULL, NULL, napi_default_method, NULL},
      {"close", NULL, pmn_socket_close_method, NULL, NULL, NULL, napi_default_method, NULL},
  };
  napi_value constructor;
  PMN_CALL(env, napi_define_class(env, "UdpSocket", NAPI_AUTO_LENGTH, udp_new, NULL,
                                  sizeof methods / sizeof methods[0], methods, &constructor));
  return constructor;
}
