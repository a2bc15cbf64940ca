/* The host kernel's SCTP through the sockets API of RFC 6458, using only the Linux UAPI header
 * (no lksctp-tools): one-to-many (SOCK_SEQPACKET) sockets, SCTP_SNDINFO/SCTP_RCVINFO ancillary
 * data (RFC 6458 sections 5.3.4 and 5.3.5), SCTP_EVENT subscriptions (section 6.2.2) and the
 * bindx/connectx socket options (sections 9.1 and 9.9). Messages larger than the receive buffer
 * arrive in pieces; each piece says whether it ends the message (MSG_EOR), and the JavaScript side
 * joins them. */
#include "kernel-sctp.h"

#include <errno.h>
#include <linux/sctp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SCTP_BUFFER_SIZE 65536
#define SCTP_MAX_ADDRESSES 16

/* ---- notifications (RFC 6458 section 6.1) --------------------------------------------- */

static const char *assoc_state_name(uint16_t state) {
  switch (state) {
    case SCTP_COMM_UP: return "comm-up";
    case SCTP_COMM_LOST: return "comm-lost";
    case SCTP_RESTART: return "restart";
    case SCTP_SHUTDOWN_COMP: return "shutdown-comp";
    case SCTP_CANT_STR_ASSOC: return "cant-str-assoc";
    default: return NULL;
  }
}

static const char *address_state_name(int state) {
  switch (state) {
    case SCTP_ADDR_AVAILABLE: return "available";
    case SCTP_ADDR_UNREACHABLE: return "unreachable";
    case SCTP_ADDR_REMOVED: return "removed";
    case SCTP_ADDR_ADDED: return "added";
    case SCTP_ADDR_MADE_PRIM: return "made-prim";
    case SCTP_ADDR_CONFIRMED: return "confirmed";
    case SCTP_ADDR_POTENTIALLY_FAILED: return "potentially-failed";
    default: return NULL;
  }
}

/* Builds the JavaScript object of one notification, or returns NULL with *bad set when the
 * kernel's bytes do not hold what their header says. */
static napi_value notification_value(napi_env env, const unsigned char *data, size_t length,
                                     bool *bad) {
  union sctp_notification n;
  napi_value value;
  *bad = true;
  if (length < sizeof n.sn_header) return NULL;
  memcpy(&n, data, length < sizeof n ? length : sizeof n);
  if (n.sn_header.sn_length > length) return NULL;
  if (napi_create_object(env, &value) != napi_ok) return NULL;
  switch (n.sn_header.sn_type) {
    case SCTP_ASSOC_CHANGE: {
      const char *state = assoc_state_name(n.sn_assoc_change.sac_state);
      if (length < sizeof n.sn_assoc_change || state == NULL) return NULL;
      *bad = false;
      if (!pmn_set(env, value, "type", pmn_string(env, "assoc-change")) ||
          !pmn_set(env, value, "assocId", pmn_number(env, n.sn_assoc_change.sac_assoc_id)) ||
          !pmn_set(env, value, "state", pmn_string(env, state)) ||
          !pmn_set(env, value, "error", pmn_number(env, n.sn_assoc_change.sac_error)) ||
          !pmn_set(env, value, "outboundStreams",
                   pmn_number(env, n.sn_assoc_change.sac_outbound_streams)) ||
          !pmn_set(env, value, "inboundStreams",
                   pmn_number(env, n.sn_assoc_change.sac_inbound_streams)))
        return NULL;
      /* sac_info: for a loss caused by the peer's ABORT, Linux copies the ABORT's error causes. */
      size_t end = n.sn_header.sn_length, start = sizeof n.sn_assoc_change;
      napi_value info;
      void *copy;
      if (napi_create_buffer_copy(env, end > start ? end - start : 0, data + start, &copy,
                                  &info) != napi_ok ||
          !pmn_set(env, value, "info", info))
        return NULL;
      return value;
    }
    case SCTP_PEER_ADDR_CHANGE: {
      const char *state = address_state_name(n.sn_paddr_change.spc_state);
      if (length < sizeof n.sn_paddr_change || state == NULL) return NULL;
      *bad = false;
      struct sockaddr_storage address;
      memcpy(&address, &n.sn_paddr_change.spc_aaddr, sizeof address);
      if (!pmn_set(env, value, "type", pmn_string(env, "peer-addr-change")) ||
          !pmn_set(env, value, "assocId", pmn_number(env, n.sn_paddr_change.spc_assoc_id)) ||
          !pmn_set(env, value, "address",
                   pmn_sockaddr_value(env, (struct sockaddr *)&address, sizeof address)) ||
          !pmn_set(env, value, "state", pmn_string(env, state)) ||
          !pmn_set(env, value, "error", pmn_number(env, n.sn_paddr_change.spc_error)))
        return NULL;
      return value;
    }
    case SCTP_SHUTDOWN_EVENT:
      if (length < sizeof n.sn_shutdown_event) return NULL;
      *bad = false;
      if (!pmn_set(env, value, "type", pmn_string(env, "shutdown-event")) ||
          !pmn_set(env, value, "assocId", pmn_number(env, n.sn_shutdown_event.sse_assoc_id)))
        return NULL;
      return value;
    default:
      /* Only the three kinds above are subscribed to. */
      return NULL;
  }
}

/* ---- receiving ------------------------------------------------------------------------ */

static const struct sctp_rcvinfo *find_rcvinfo(struct msghdr *message) {
  for (struct cmsghdr *c = CMSG_FIRSTHDR(message); c != NULL; c = CMSG_NXTHDR(message, c))
    if (c->cmsg_level == IPPROTO_SCTP && c->cmsg_type == SCTP_RCVINFO &&
        c->cmsg_len >= CMSG_LEN(sizeof(struct sctp_rcvinfo)))
      return (const struct sctp_rcvinfo *)CMSG_DATA(c);
  return NULL;
}

/* One recvmsg result: a notification, or a piece of a message with its stream, PPID and
 * association. Returns false when the socket closed or a handler threw. */
static bool deliver(pmn_socket *socket, struct msghdr *message, size_t received) {
  napi_env env = socket->env;
  bool more = false;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return false;
  if (message->msg_flags & MSG_NOTIFICATION) {
    bool bad = false;
    /* A notification always fits the 64 KiB buffer: a piece without MSG_EOR is malformed. */
    napi_value argv[1] = {(message->msg_flags & MSG_EOR)
                              ? notification_value(env, socket->buffer, received, &bad)
                              : NULL};
    if (argv[0] != NULL)
      more = pmn_socket_emit(socket, "onNotification", 1, argv);
    else if (bad || !(message->msg_flags & MSG_EOR))
      more = pmn_socket_emit_error(socket, "recvmsg", EBADMSG);
  } else {
    const struct sctp_rcvinfo *rcv = find_rcvinfo(message);
    if (rcv == NULL) {
      more = pmn_socket_emit_error(socket, "recvmsg", EBADMSG);
    } else {
      struct sctp_rcvinfo info;
      memcpy(&info, rcv, sizeof info);
      void *copy;
      napi_value argv[6] = {pmn_number(env, info.rcv_assoc_id), pmn_number(env, info.rcv_sid),
                            pmn_number(env, ntohl(info.rcv_ppid)), NULL,
                            pmn_bool(env, (message->msg_flags & MSG_EOR) != 0),
                            pmn_bool(env, (info.rcv_flags & SCTP_UNORDERED) != 0)};
      if (napi_create_buffer_copy(env, received, socket->buffer, &copy, &argv[3]) == napi_ok)
        more = pmn_socket_emit(socket, "onMessage", 6, argv);
    }
  }
  napi_close_handle_scope(env, scope);
  return more;
}

static void sctp_on_readable(pmn_socket *socket) {
  for (int i = 0; i < PMN_RECV_BATCH && !socket->closed; i++) {
    union {
      struct cmsghdr align;
      unsigned char bytes[CMSG_SPACE(sizeof(struct sctp_rcvinfo))];
    } control;
    struct iovec iov = {.iov_base = socket->buffer, .iov_len = socket->buffer_size};
    struct msghdr message = {.msg_iov = &iov,
                             .msg_iovlen = 1,
                             .msg_control = control.bytes,
                             .msg_controllen = sizeof control.bytes};
    ssize_t received = recvmsg(socket->fd, &message, MSG_DONTWAIT);
    if (received < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) pmn_socket_emit_error(socket, "recvmsg", errno);
      return;
    }
    if (message.msg_flags & MSG_CTRUNC) {
      if (!pmn_socket_emit_error(socket, "recvmsg", EBADMSG)) return;
      continue;
    }
    if (!deliver(socket, &message, (size_t)received)) return;
  }
}

static void sctp_on_writable(pmn_socket *socket) { pmn_socket_emit(socket, "onWritable", 0, NULL); }

/* ---- construction --------------------------------------------------------------------- */

static int subscribe(int fd, uint16_t type) {
  struct sctp_event event = {.se_assoc_id = SCTP_FUTURE_ASSOC, .se_type = type, .se_on = 1};
  return setsockopt(fd, IPPROTO_SCTP, SCTP_EVENT, &event, sizeof event);
}

/* new SctpSocket(family: 4 | 6, handlers: { onMessage, onNotification, onWritable, onError },
 *   options?: { outboundStreams, maxInboundStreams, maxInitAttempts, maxInitTimeout,
 *   receiveBufferSize, sendBufferSize }) */
static napi_value sctp_new(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], self, options;
  int64_t version, ostreams = 0, istreams = 0, attempts = 0, timeout = 0, rcvbuf = 0, sndbuf = 0;
  bool has_ostreams, has_istreams, has_attempts, has_timeout, has_rcvbuf, has_sndbuf;
  PMN_CALL(env, napi_get_cb_info(env, info, &argc, argv, &self, NULL));
  if (!pmn_arg_int(env, argc > 0 ? argv[0] : NULL, "family", 4, 6, &version)) return NULL;
  if (version == 5) return pmn_throw_type(env, "family must be 4 or 6");
  if (argc < 2 || !pmn_arg_handler(env, argv[1], "onMessage") ||
      !pmn_arg_handler(env, argv[1], "onNotification") ||
      !pmn_arg_handler(env, argv[1], "onWritable") || !pmn_arg_handler(env, argv[1], "onError"))
    return NULL;
  options = argc > 2 ? argv[2] : NULL;
  if (options == NULL) PMN_CALL(env, napi_get_undefined(env, &options));
  if (!pmn_option_int(env, options, "outboundStreams", 1, 65535, &ostreams, &has_ostreams) ||
      !pmn_option_int(env, options, "maxInboundStreams", 1, 65535, &istreams, &has_istreams) ||
      !pmn_option_int(env, options, "maxInitAttempts", 1, 65535, &attempts, &has_attempts) ||
      !pmn_option_int(env, options, "maxInitTimeout", 1, 65535, &timeout, &has_timeout) ||
      !pmn_option_int(env, options, "receiveBufferSize", 4096, INT32_MAX / 2, &rcvbuf,
                      &has_rcvbuf) ||
      !pmn_option_int(env, options, "sendBufferSize", 4096, INT32_MAX / 2, &sndbuf, &has_sndbuf))
    return NULL;

  int family = version == 4 ? AF_INET : AF_INET6;
  int fd = socket(family, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_SCTP);
  /* Without SCTP, Linux finds no protocol for this socket type and says ESOCKTNOSUPPORT (a
   * SOCK_STREAM socket would say EPROTONOSUPPORT): report both as the kernel lacking SCTP. */
  if (fd < 0 && errno == ESOCKTNOSUPPORT) errno = EPROTONOSUPPORT;
  if (fd < 0) return pmn_throw_errno(env, "socket", errno);
  int one = 1, zero = 0, rcv = (int)rcvbuf, snd = (int)sndbuf;
  /* Kernel defaults (RFC 6458 section 8.1.3) for whatever the caller left out. */
  struct sctp_initmsg init;
  socklen_t init_length = sizeof init;
  const char *failed = NULL;
  if (setsockopt(fd, IPPROTO_SCTP, SCTP_RECVRCVINFO, &one, sizeof one) < 0)
    failed = "setsockopt(SCTP_RECVRCVINFO)";
  else if (subscribe(fd, SCTP_ASSOC_CHANGE) < 0 || subscribe(fd, SCTP_PEER_ADDR_CHANGE) < 0 ||
           subscribe(fd, SCTP_SHUTDOWN_EVENT) < 0)
    failed = "setsockopt(SCTP_EVENT)";
  /* IPv4 peers of an IPv6 socket as AF_INET addresses, not ::ffff:a.b.c.d (RFC 6458 8.1.15). */
  else if (family == AF_INET6 &&
           setsockopt(fd, IPPROTO_SCTP, SCTP_I_WANT_MAPPED_V4_ADDR, &zero, sizeof zero) < 0)
    failed = "setsockopt(SCTP_I_WANT_MAPPED_V4_ADDR)";
  else if (setsockopt(fd, IPPROTO_SCTP, SCTP_NODELAY, &one, sizeof one) < 0)
    failed = "setsockopt(SCTP_NODELAY)";
  else if (getsockopt(fd, IPPROTO_SCTP, SCTP_INITMSG, &init, &init_length) < 0)
    failed = "getsockopt(SCTP_INITMSG)";
  else {
    if (has_ostreams) init.sinit_num_ostreams = (uint16_t)ostreams;
    if (has_istreams) init.sinit_max_instreams = (uint16_t)istreams;
    if (has_attempts) init.sinit_max_attempts = (uint16_t)attempts;
    if (has_timeout) init.sinit_max_init_timeo = (uint16_t)timeout;
    if (setsockopt(fd, IPPROTO_SCTP, SCTP_INITMSG, &init, sizeof init) < 0)
      failed = "setsockopt(SCTP_INITMSG)";
    else if (has_rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv) < 0)
      failed = "setsockopt(SO_RCVBUF)";
    else if (has_sndbuf && setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &snd, sizeof snd) < 0)
      failed = "setsockopt(SO_SNDBUF)";
  }
  if (failed != NULL) {
    int err = errno;
    close(fd);
    return pmn_throw_errno(env, failed, err);
  }

  if (!pmn_socket_create(env, self, argv[1], fd, family, SCTP_BUFFER_SIZE, sctp_on_readable,
                         sctp_on_writable, "pmn.SctpSocket"))
    return NULL;
  return self;
}

/* ---- methods -------------------------------------------------------------------------- */

/* Packs addresses[] with port into the array of sockaddr_in/sockaddr_in6 that bindx and connectx
 * take (RFC 6458 section 9.1). */
static bool pack_addresses(napi_env env, napi_value list, napi_value port_value,
                           unsigned char *out, size_t *size) {
  bool is_array = false;
  uint32_t count;
  int64_t port;
  if (napi_is_array(env, list, &is_array) != napi_ok || !is_array ||
      napi_get_array_length(env, list, &count) != napi_ok || count == 0 ||
      count > SCTP_MAX_ADDRESSES) {
    pmn_throw_type(env, "addresses must be an array of 1 to 16 addresses");
    return false;
  }
  if (!pmn_arg_int(env, port_value, "port", 0, 65535, &port)) return false;
  *size = 0;
  for (uint32_t i = 0; i < count; i++) {
    napi_value item;
    struct sockaddr_storage address;
    socklen_t length;
    if (napi_get_element(env, list, i, &item) != napi_ok ||
        !pmn_parse_address(env, item, (uint16_t)port, &address, &length))
      return false;
    memcpy(out + *size, &address, length);
    *size += length;
  }
  return true;
}

/* bind(addresses: string[], port: number): sctp_bindx(SCTP_BINDX_ADD_ADDR); several addresses
 * make the endpoint multi-homed. */
static napi_value sctp_bind(napi_env env, napi_callback_info info) {
  size_t argc = 2, size;
  napi_value argv[2];
  unsigned char packed[SCTP_MAX_ADDRESSES * sizeof(struct sockaddr_in6)];
  pmn_socket *socket = pmn_socket_unwrap(env, info, &argc, argv, NULL);
  if (socket == NULL || argc < 2 || !pack_addresses(env, argv[0], argv[1], packed, &size))
    return socket == NULL || argc >= 2 ? NULL : pmn_throw_type(env, "bind(addresses, port)");
  if (setsockopt(socket->fd, IPPROTO_SCTP, SCTP_SOCKOPT_BINDX_ADD, packed, (socklen_t)size) < 0)
    return pmn_throw_errno(env, "sctp_bindx", errno);
  return NULL;
}

static napi_value sctp_listen(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int64_t backlog;
  pmn_socket *socket = pmn_socket_unwrap(env, info, &argc, argv, NULL);
  if (socket == NULL ||
      !pmn_arg_int(env, argc > 0 ? argv[0] : NULL, "backlog", 0, 65535, &backlog))
    return NULL;
  if (listen(socket->fd, (int)backlog) < 0) return pmn_throw_errno(env, "listen", errno);
  return NULL;
}

/* connect(addresses: string[], port: number): number — starts an association (sctp_connectx,
 * RFC 6458 section 9.9) and returns its id; 'comm-up' or 'cant-str-assoc' follows. */
static napi_value sctp_connect(napi_env env, napi_callback_info info) {
  size_t argc = 2, size;
  napi_value argv[2];
  unsigned char packed[SCTP_MAX_ADDRESSES * sizeof(struct sockaddr_in6)];
  pmn_socket *socket = pmn_socket_unwrap(env, info, &argc, argv, NULL);
  if (socket == NULL || argc < 2 || !pack_addresses(env, argv[0], argv[1], packed, &size))
    return socket == NULL || argc >= 2 ? NULL : pmn_throw_type(env, "connect(addresses, port)");
  /* SCTP_SOCKOPT_CONNECTX3 returns the association id even when the connect is in progress;
   * addr_num carries the byte size of the packed addresses, as libsctp passes it. */
  union {
    struct sctp_getaddrs_old request;
    sctp_assoc_t assoc_id;
  } param;
  memset(&param, 0, sizeof param);
  param.request.addr_num = (int)size;
  param.request.addrs = (struct sockaddr *)packed;
  socklen_t length = sizeof param.request;
  if (getsockopt(socket->fd, IPPROTO_SCTP, SCTP_SOCKOPT_CONNECTX3, &param, &length) < 0 &&
      errno != EINPROGRESS)
    return pmn_throw_errno(env, "sctp_connectx", errno);
  return pmn_number(env, param.assoc_id);
}

/* sendmsg with an SCTP_SNDINFO control message; returns undefined when the kernel took the
 * message, else its errno code ('EAGAIN': wait for onWritable after wantWritable()). */
static napi_value send_with_info(napi_env env, pmn_socket *socket, sctp_assoc_t assoc_id,
                                 uint16_t stream, uint32_t ppid, uint16_t flags, void *data,
                                 size_t length) {
  union {
    struct cmsghdr align;
    unsigned char bytes[CMSG_SPACE(sizeof(struct sctp_sndinfo))];
  } control;
  memset(&control, 0, sizeof control);
  struct iovec iov = {.iov_base = data, .iov_len = length};
  struct msghdr message = {.msg_iov = &iov,
                           .msg_iovlen = 1,
                           .msg_control = control.bytes,
                           .msg_controllen = sizeof control.bytes};
  struct cmsghdr *c = CMSG_FIRSTHDR(&message);
  c->cmsg_level = IPPROTO_SCTP;
  c->cmsg_type = SCTP_SNDINFO;
  c->cmsg_len = CMSG_LEN(sizeof(struct sctp_sndinfo));
  struct sctp_sndinfo info = {.snd_sid = stream,
                              .snd_flags = flags,
                              .snd_ppid = htonl(ppid),
                              .snd_assoc_id = assoc_id};
  memcpy(CMSG_DATA(c), &info, sizeof info);
  ssize_t sent;
  do
    sent = sendmsg(socket->fd, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  if (sent < 0) return pmn_errno_code(env, errno);
  return NULL;
}

/* send(assocId, stream, ppid, data: Uint8Array, unordered: boolean) */
static napi_value sctp_send(napi_env env, napi_callback_info info) {
  size_t argc = 5, length;
  napi_value argv[5];
  int64_t assoc_id, stream, ppid;
  bool unordered = false;
  void *data;
  pmn_socket *socket = pmn_socket_unwrap(env, info, &argc, argv, NULL);
  if (socket == NULL ||
      !pmn_arg_int(env, argc > 0 ? argv[0] : NULL, "assocId", INT32_MIN, INT32_MAX, &assoc_id) ||
      !pmn_arg_int(env, argc > 1 ? argv[1] : NULL, "stream", 0, 65535, &stream) ||
      !pmn_arg_int(env, argc > 2 ? argv[2] : NULL, "ppid", 0, UINT32_MAX, &ppid) ||
      !pmn_arg_bytes(env, argc > 3 ? argv[3] : NULL, "data", &data, &length))
    return NULL;
  if (argc > 4 && napi_get_value_bool(env, argv[4], &unordered) != napi_ok)
    return pmn_throw_type(env, "unordered must be a boolean");
  return send_with_info(env, socket, (sctp_assoc_t)assoc_id, (uint16_t)stream, (uint32_t)ppid,
                        unordered ? SCTP_UNORDERED : 0, data, length);
}

/* shutdown(assocId): graceful SHUTDOWN after queued data (SCTP_EOF, RFC 6458 section 5.3.4). */
static napi_value sctp_shutdown(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int64_t assoc_id;
  pmn_socket *socket = pmn_socket_unwrap(env, info, &argc, argv, NULL);
  if (socket == NULL ||
      !pmn_arg_int(env, argc > 0 ? argv[0] : NULL, "assocId", INT32_MIN, INT32_MAX, &assoc_id))
    return NULL;
  return send_with_info(env, socket, (sctp_assoc_t)assoc_id, 0, 0, SCTP_EOF, NULL, 0);
}

/* abort(assocId, reason?: Uint8Array): ABORT with a User-Initiated Abort cause carrying reason
 * (SCTP_ABORT, RFC 6458 section 5.3.4; RFC 9260 section 3.3.10.12). */
static napi_value sctp_abort(napi_env env, napi_callback_info info) {
  size_t argc = 2, length = 0;
  napi_value argv[2];
  int64_t assoc_id;
  void *reason = NULL;
  napi_valuetype type = napi_undefined;
  pmn_socket *socket = pmn_socket_unwrap(env, info, &argc, argv, NULL);
  if (socket == NULL ||
      !pmn_arg_int(env, argc > 0 ? argv[0] : NULL, "assocId", INT32_MIN, INT32_MAX, &assoc_id))
    return NULL;
  if (argc > 1) PMN_CALL(env, napi_typeof(env, argv[1], &type));
  if (type != napi_undefined && !pmn_arg_bytes(env, argv[1], "reason", &reason, &length))
    return NULL;
  return send_with_info(env, socket, (sctp_assoc_t)assoc_id, 0, 0, SCTP_ABORT, reason, length);
}

/* peerAddresses(assocId) / localAddresses(assocId): [{ address, port }] (RFC 6458 section 9.3,
 * 9.5). assocId 0 asks for the socket's bound addresses. */
static napi_value get_addresses(napi_env env, napi_callback_info info, int option,
                                const char *syscall) {
  size_t argc = 1;
  napi_value argv[1], list;
  int64_t assoc_id;
  pmn_socket *socket = pmn_socket_unwrap(env, info, &argc, argv, NULL);
  if (socket == NULL ||
      !pmn_arg_int(env, argc > 0 ? argv[0] : NULL, "assocId", INT32_MIN, INT32_MAX, &assoc_id))
    return NULL;
  union {
    struct sctp_getaddrs header;
    unsigned char bytes[sizeof(struct sctp_getaddrs) + 64 * sizeof(struct sockaddr_in6)];
  } result;
  memset(&result, 0, sizeof result);
  result.header.assoc_id = (sctp_assoc_t)assoc_id;
  socklen_t length = sizeof result;
  if (getsockopt(socket->fd, IPPROTO_SCTP, option, &result, &length) < 0)
    return pmn_throw_errno(env, syscall, errno);
  PMN_CALL(env, napi_create_array(env, &list));
  /* Linux returns in optlen the bytes of the addresses alone for local addresses but not for peer
   * addresses, so the walk is bounded by addr_num and the buffer, not by optlen. */
  size_t offset = sizeof result.header;
  for (uint32_t i = 0; i < result.header.addr_num; i++) {
    struct sockaddr_storage address;
    size_t size;
    if (offset + sizeof(sa_family_t) > sizeof result) return pmn_throw_errno(env, syscall, EBADMSG);
    memcpy(&address, result.bytes + offset, sizeof(sa_family_t));
    size = address.ss_family == AF_INET    ? sizeof(struct sockaddr_in)
           : address.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                           : 0;
    if (size == 0 || offset + size > sizeof result) return pmn_throw_errno(env, syscall, EBADMSG);
    memcpy(&address, result.bytes + offset, size);
    napi_value item = pmn_sockaddr_value(env, (struct sockaddr *)&address, size);
    if (item == NULL) return NULL;
    PMN_CALL(env, napi_set_element(env, list, i, item));
    offset += size;
  }
  return list;
}

static napi_value sctp_peer_addresses(napi_env env, napi_callback_info info) {
  return get_addresses(env, info, SCTP_GET_PEER_ADDRS, "getsockopt(SCTP_GET_PEER_ADDRS)");
}

static napi_value sctp_local_addresses(napi_env env, napi_callback_info info) {
  return get_addresses(env, info, SCTP_GET_LOCAL_ADDRS, "getsockopt(SCTP_GET_LOCAL_ADDRS)");
}

/* wantWritable(): call onWritable once the socket can take data again (after 'EAGAIN'). */
static napi_value sctp_want_writable(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  pmn_socket *socket = pmn_socket_unwrap(env, info, &argc, NULL, NULL);
  if (socket != NULL) pmn_socket_set_events(socket, socket->events | UV_WRITABLE);
  return NULL;
}

napi_value pmn_sctp_socket_class(napi_env env) {
  napi_property_descriptor methods[] = {
      {"bind", NULL, sctp_bind, NULL, NULL, NULL, napi_default_method, NULL},
      {"listen", NULL, sctp_listen, NULL, NULL, NULL, napi_default_method, NULL},
      {"connect", NULL, sctp_connect, NULL, NULL, NULL, napi_default_method, NULL},
      {"send", NULL, sctp_send, NULL, NULL, NULL, napi_default_method, NULL},
      {"shutdown", NULL, sctp_shutdown, NULL, NULL, NULL, napi_default_method, NULL},
      {"abort", NULL, sctp_abort, NULL, NULL, NULL, napi_default_method, NULL},
      {"peerAddresses", NULL, sctp_peer_addresses, NULL, NULL, NULL, napi_default_method, NULL},
      {"localAddresses", NULL, sctp_local_addresses, NULL, NULL, NULL, napi_default_method, NULL},
      {"wantWritable", NULL, sctp_want_writable, NULL, NULL, NULL, napi_default_method, NULL},
      {"close", NULL, pmn_socket_close_method, NULL, NULL, NULL, napi_default_method, NULL},
  };
  napi_value constructor;
  PMN_CALL(env, napi_define_class(env, "SctpSocket", NAPI_AUTO_LENGTH, sctp_new, NULL,
                                  sizeof methods / sizeof methods[0], methods, &constructor));
  return constructor;
}
