#include "host-routes.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct host_routes {
  int fd;
  uint32_t seq;
  int ifindex;
  uint32_t table;
  uint8_t protocol;
};

typedef struct {
  struct nlmsghdr header;
  union {
    struct rtmsg route;
    struct ifinfomsg link;
  };
  uint8_t attributes[64];
} request;

static void put_attribute(request *m, uint16_t type, const void *data, uint16_t length) {
  struct rtattr *a = (struct rtattr *)((uint8_t *)m + NLMSG_ALIGN(m->header.nlmsg_len));
  a->rta_type = type;
  a->rta_len = RTA_LENGTH(length);
  memcpy(RTA_DATA(a), data, length);
  m->header.nlmsg_len = NLMSG_ALIGN(m->header.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

/* Sends one request and waits for its acknowledgement: 0 or the kernel's errno. */
static int transact(host_routes *r, request *m) {
  m->header.nlmsg_seq = ++r->seq;
  m->header.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
  if (send(r->fd, m, m->header.nlmsg_len, 0) < 0) return errno;
  uint8_t answer[4096] __attribute__((aligned(4)));
  for (;;) {
    ssize_t n = recv(r->fd, answer, sizeof answer, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    for (struct nlmsghdr *h = (struct nlmsghdr *)answer; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
      if (h->nlmsg_seq != r->seq || h->nlmsg_type != NLMSG_ERROR) continue;
      if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr))) return EPROTO;
      return -((struct nlmsgerr *)NLMSG_DATA(h))->error;
    }
  }
}

static void route_request(request *m, host_routes *r, uint16_t type, int family, const uint8_t *address,
                          uint8_t prefix_length) {
  memset(m, 0, sizeof *m);
  m->header.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
  m->header.nlmsg_type = type;
  m->route.rtm_family = (uint8_t)family;
  m->route.rtm_dst_len = prefix_length;
  m->route.rtm_table = r->table < 256 ? (uint8_t)r->table : RT_TABLE_UNSPEC;
  m->route.rtm_protocol = r->protocol;
  /* As `ip route add <address> dev <device>`: on the link, no gateway. */
  m->route.rtm_scope = family == AF_INET ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE;
  m->route.rtm_type = RTN_UNICAST;
  put_attribute(m, RTA_DST, address, family == AF_INET ? 4 : 16);
  put_attribute(m, RTA_OIF, &r->ifindex, sizeof r->ifindex);
  put_attribute(m, RTA_TABLE, &r->table, sizeof r->table);
}

int host_routes_change(host_routes *r, bool add, int family, const uint8_t *address,
                       uint8_t prefix_length) {
  if ((family != AF_INET && family != AF_INET6) || prefix_length > (family == AF_INET ? 32 : 128))
    return EINVAL;
  request m;
  route_request(&m, r, add ? RTM_NEWROUTE : RTM_DELROUTE, family, address, prefix_length);
  if (add) m.header.nlmsg_flags = NLM_F_CREATE | NLM_F_REPLACE;
  int err = transact(r, &m);
  /* Already gone (the device went down and took it, or never added): nothing to remove. */
  return !add && err == ESRCH ? 0 : err;
}

typedef struct {
  uint8_t family, prefix_length, address[16];
} stale_route;

/* The routes of r's protocol on r's device in r's table, by a dump of every route of the namespace. */
static int find_stale(host_routes *r, stale_route **out, size_t *count) {
  request m;
  memset(&m, 0, sizeof m);
  m.header.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
  m.header.nlmsg_type = RTM_GETROUTE;
  m.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  m.header.nlmsg_seq = ++r->seq;
  m.route.rtm_family = AF_UNSPEC;
  size_t capacity = 0;
  *out = NULL;
  *count = 0;
  if (send(r->fd, &m, m.header.nlmsg_len, 0) < 0) return errno;
  uint8_t answer[32768] __attribute__((aligned(4)));
  for (;;) {
    ssize_t n = recv(r->fd, answer, sizeof answer, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    for (struct nlmsghdr *h = (struct nlmsghdr *)answer; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
      if (h->nlmsg_seq != r->seq) continue;
      if (h->nlmsg_type == NLMSG_DONE) return 0;
      if (h->nlmsg_type == NLMSG_ERROR) return -((struct nlmsgerr *)NLMSG_DATA(h))->error;
      if (h->nlmsg_type != RTM_NEWROUTE || h->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg))) continue;
      struct rtmsg *route = NLMSG_DATA(h);
      if (route->rtm_protocol != r->protocol) continue;
      uint32_t table = route->rtm_table;
      int oif = 0;
      stale_route found = {.family = route->rtm_family, .prefix_length = route->rtm_dst_len};
      int length = (int)RTM_PAYLOAD(h);
      for (struct rtattr *a = RTM_RTA(route); RTA_OK(a, length); a = RTA_NEXT(a, length)) {
        size_t size = RTA_PAYLOAD(a);
        if (a->rta_type == RTA_TABLE && size == 4) memcpy(&table, RTA_DATA(a), 4);
        if (a->rta_type == RTA_OIF && size == 4) memcpy(&oif, RTA_DATA(a), 4);
        if (a->rta_type == RTA_DST && size <= 16) memcpy(found.address, RTA_DATA(a), size);
      }
      if (table != r->table || oif != r->ifindex) continue;
      if (*count == capacity) {
        capacity = capacity == 0 ? 64 : capacity * 2;
        stale_route *grown = realloc(*out, capacity * sizeof **out);
        if (grown == NULL) return ENOMEM;
        *out = grown;
      }
      (*out)[(*count)++] = found;
    }
  }
}

static int set_up(host_routes *r) {
  request m;
  memset(&m, 0, sizeof m);
  m.header.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
  m.header.nlmsg_type = RTM_NEWLINK;
  m.link.ifi_family = AF_UNSPEC;
  m.link.ifi_index = r->ifindex;
  m.link.ifi_flags = IFF_UP;
  m.link.ifi_change = IFF_UP;
  return transact(r, &m);
}

int host_routes_open(const char *device, uint32_t table, uint8_t protocol, host_routes **out,
                     const char **syscall) {
  host_routes *r = calloc(1, sizeof *r);
  if (r == NULL) return ENOMEM;
  r->table = table;
  r->protocol = protocol;
  int err;
  *syscall = "if_nametoindex";
  r->ifindex = (int)if_nametoindex(device);
  if (r->ifindex == 0) {
    free(r);
    return errno;
  }
  *syscall = "socket";
  r->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (r->fd < 0) {
    err = errno;
    free(r);
    return err;
  }
  struct sockaddr_nl local = {.nl_family = AF_NETLINK};
  *syscall = "bind";
  if (bind(r->fd, (struct sockaddr *)&local, sizeof local) < 0) goto fail_errno;
  *syscall = "RTM_NEWLINK";
  err = set_up(r);
  if (err != 0) goto fail;
  *syscall = "RTM_GETROUTE";
  stale_route *stale;
  size_t count;
  err = find_stale(r, &stale, &count);
  *syscall = "RTM_DELROUTE";
  for (size_t i = 0; err == 0 && i < count; i++)
    err = host_routes_change(r, false, stale[i].family, stale[i].address, stale[i].prefix_length);
  free(stale);
  if (err != 0) goto fail;
  *out = r;
  return 0;
fail_errno:
  err = errno;
fail:
  host_routes_close(r);
  return err;
}

void host_routes_close(host_routes *r) {
  if (r == NULL) return;
  close(r->fd);
  free(r);
}
