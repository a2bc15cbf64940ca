#include "xdp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifndef PMN_UPF_XDP

/* Built without clang or libbpf-dev (binding.gyp): the forwarder runs on its TUN alone. */
int upf_xdp_open(const upf_xdp_config *config, upf_xdp **out, char *reason, size_t reason_size) {
  (void)config;
  (void)out;
  snprintf(reason, reason_size,
           "this build has no XDP datapath (clang or libbpf-dev were missing when it was built)");
  return ENOTSUP;
}
void upf_xdp_close(upf_xdp *xdp) { (void)xdp; }
const char *upf_xdp_description(const upf_xdp *xdp) {
  (void)xdp;
  return "";
}
int upf_xdp_add_session(upf_xdp *xdp, uint32_t slot, uint32_t id, uint32_t uplink_teid,
                        const uint8_t *ipv4, const uint8_t *ipv6_prefix, uint64_t uplink_bps,
                        uint64_t downlink_bps) {
  (void)xdp, (void)slot, (void)id, (void)uplink_teid, (void)ipv4, (void)ipv6_prefix;
  (void)uplink_bps, (void)downlink_bps;
  return ENOTSUP;
}
int upf_xdp_set_ambr(upf_xdp *xdp, uint32_t slot, uint64_t uplink_bps, uint64_t downlink_bps) {
  (void)xdp, (void)slot, (void)uplink_bps, (void)downlink_bps;
  return ENOTSUP;
}
int upf_xdp_set_downlink(upf_xdp *xdp, uint32_t slot, const struct sockaddr *gnb,
                         uint32_t remote_teid, uint8_t qfi) {
  (void)xdp, (void)slot, (void)gnb, (void)remote_teid, (void)qfi;
  return ENOTSUP;
}
int upf_xdp_clear_downlink(upf_xdp *xdp, uint32_t slot) {
  (void)xdp, (void)slot;
  return ENOTSUP;
}
void upf_xdp_remove_session(upf_xdp *xdp, uint32_t slot, uint32_t uplink_teid, const uint8_t *ipv4,
                            const uint8_t *ipv6_prefix) {
  (void)xdp, (void)slot, (void)uplink_teid, (void)ipv4, (void)ipv6_prefix;
}
void upf_xdp_usage(upf_xdp *xdp, uint32_t slot, uint64_t *uplink_bytes, uint64_t *downlink_bytes,
                   uint64_t *flow_packets) {
  (void)xdp, (void)slot;
  *uplink_bytes = *downlink_bytes = *flow_packets = 0;
}
void upf_xdp_usage_all(upf_xdp *xdp, upf_xdp_usage_fn *fn, void *context) {
  (void)xdp, (void)fn, (void)context;
}
void upf_xdp_read_counters(upf_xdp *xdp, upf_xdp_counters *out) {
  (void)xdp;
  memset(out, 0, sizeof *out);
}
void upf_xdp_read_flows(upf_xdp *xdp, upf_xdp_flow_fn *fn, void *context) {
  (void)xdp, (void)fn, (void)context;
}
int upf_xdp_take_flow(upf_xdp *xdp, const upf_flow_key *key, uint64_t *packets, uint64_t *bytes) {
  (void)xdp, (void)key;
  *packets = *bytes = 0;
  return ENOENT;
}

#else

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ifaddrs.h>

#include "default-route.h"
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "bpf/upf-xdp.h"

struct upf_xdp {
  struct bpf_object *object;
  int config_fd, rules_fd, policers_fd, usage_fd, by_teid_fd, by_ipv4_fd, by_ipv6_fd, flows_fd,
      counters_fd, budget_fd, ports_fd;
  int links[2];
  int link_count;
  int cpus;
  struct xdp_usage *usage_values; /* one per possible CPU */
  uint64_t *counter_values;
  struct xdp_flow_key *flow_keys;
  struct xdp_flow_value *flow_values;
  uint32_t *usage_keys;         /* USAGE_BATCH */
  struct xdp_usage *usage_batch; /* USAGE_BATCH x cpus */
  char description[256];
};

/* Flows taken from the map, and sessions' usage read, per system call. */
#define FLOW_BATCH 1024
#define USAGE_BATCH 1024

static uint64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts); /* bpf_ktime_get_ns's clock */
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The forwarder's AMBR bucket (forwarder.c bucket_set) in the program's fixed point: 50 ms of the
 * rate, at least min_burst octets, full. Rates beyond 100 GB/s are not limited. */
static void bucket_set(struct xdp_bucket *b, double octets_per_second, double min_burst) {
  memset(b, 0, sizeof *b);
  if (octets_per_second <= 0 || octets_per_second > 1e11) return;
  double burst = octets_per_second / 20 > min_burst ? octets_per_second / 20 : min_burst;
  double rate = octets_per_second * (double)(1ull << XDP_FP) / 1e9;
  b->rate = rate < 1 ? 1 : (uint64_t)rate;
  b->burst = (uint64_t)burst << XDP_FP;
  b->fill_ns = b->burst / b->rate + 1;
  b->tokens = b->burst;
  b->last_ns = monotonic_ns();
}

/* The interface holding the address, or 0. */
static unsigned interface_of(const struct sockaddr_storage *address, char *name, size_t size) {
  struct ifaddrs *list;
  if (getifaddrs(&list) != 0) return 0;
  unsigned index = 0;
  for (struct ifaddrs *i = list; i != NULL && index == 0; i = i->ifa_next) {
    if (i->ifa_addr == NULL || i->ifa_addr->sa_family != address->ss_family) continue;
    bool same = address->ss_family == AF_INET
                    ? ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr ==
                          ((const struct sockaddr_in *)address)->sin_addr.s_addr
                    : memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
                             &((const struct sockaddr_in6 *)address)->sin6_addr, 16) == 0;
    if (!same) continue;
    snprintf(name, size, "%s", i->ifa_name);
    index = if_nametoindex(i->ifa_name);
  }
  freeifaddrs(list);
  return index;
}

static bool forwarding(const char *name) {
  char path[96];
  snprintf(path, sizeof path, "/proc/sys/net/ipv4/conf/%s/forwarding", name);
  FILE *f = fopen(path, "r");
  if (f == NULL) return false;
  int on = fgetc(f) == '1';
  fclose(f);
  return on;
}

/* The interface's driver name (ETHTOOL_GDRVINFO), "" when it has none to tell. */
static void driver_of(const char *name, char *driver, size_t size) {
  driver[0] = 0;
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  struct ethtool_drvinfo info = {.cmd = ETHTOOL_GDRVINFO};
  struct ifreq request;
  memset(&request, 0, sizeof request);
  snprintf(request.ifr_name, sizeof request.ifr_name, "%s", name);
  request.ifr_data = (void *)&info;
  if (ioctl(fd, SIOCETHTOOL, &request) == 0) snprintf(driver, size, "%s", info.driver);
  close(fd);
}

/* Attaches through a BPF link, which the kernel removes when its descriptor closes (also when the
 * process dies, so no program outlives its maps' owner). Native mode, except on veth: a frame
 * redirected into a veth in native mode is dropped unless its peer runs XDP or GRO, which the
 * UPF does not control, so veth gets the generic (skb) mode unless the caller says its peers do. */
static int attach(upf_xdp *x, int program, unsigned ifindex, const char *name, const char *role,
                  bool native_on_veth, char *reason, size_t reason_size) {
  char driver[32];
  driver_of(name, driver, sizeof driver);
  bool generic = !native_on_veth && strcmp(driver, "veth") == 0;
  LIBBPF_OPTS(bpf_link_create_opts, options,
              .flags = generic ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE);
  int link = bpf_link_create(program, (int)ifindex, BPF_XDP, &options);
  if (link < 0 && !generic) {
    generic = true;
    options.flags = XDP_FLAGS_SKB_MODE;
    link = bpf_link_create(program, (int)ifindex, BPF_XDP, &options);
  }
  if (link < 0) {
    int err = -link;
    snprintf(reason, reason_size, "XDP could not attach to %s %s: %s", role, name, strerror(err));
    return err;
  }
  x->links[x->link_count++] = link;
  uint32_t key = ifindex;
  bpf_map_update_elem(x->ports_fd, &key, &key, BPF_ANY);
  size_t used = strlen(x->description);
  snprintf(x->description + used, sizeof x->description - used, "%s%s %s (%s)", used ? ", " : "",
           role, name, generic ? "generic" : "native");
  return 0;
}

static int map_fd(struct bpf_object *object, const char *name) {
  struct bpf_map *map = bpf_object__find_map_by_name(object, name);
  return map == NULL ? -1 : bpf_map__fd(map);
}

static int silent(enum libbpf_print_level level, const char *format, va_list args) {
  (void)level, (void)format, (void)args;
  return 0;
}

int upf_xdp_open(const upf_xdp_config *c, upf_xdp **out, char *reason, size_t reason_size) {
  char n3_name[IF_NAMESIZE] = "";
  unsigned n3_index = interface_of(c->n3, n3_name, sizeof n3_name);
  if (n3_index == 0) {
    snprintf(reason, reason_size, "no interface holds the N3 address");
    return EADDRNOTAVAIL;
  }
  if (strcmp(n3_name, "lo") == 0) {
    snprintf(reason, reason_size, "the N3 address is on the loopback interface");
    return EINVAL;
  }
  /* Unset, N6 is where the host sends traffic for the internet: the default route's interface. */
  char n6_name[IF_NAMESIZE] = "";
  bool defaulted = c->n6_interface == NULL || c->n6_interface[0] == 0;
  if (!defaulted) {
    snprintf(n6_name, sizeof n6_name, "%s", c->n6_interface);
  } else if (!upf_default_route_interface(n6_name, sizeof n6_name)) {
    snprintf(reason, reason_size,
             "n6_interface is not set and no default route names an interface to take instead");
    return EINVAL;
  }
  unsigned n6_index = if_nametoindex(n6_name);
  if (n6_index == 0) {
    snprintf(reason, reason_size, "no interface %s (n6_interface)", n6_name);
    return ENODEV;
  }
  /* bpf_fib_lookup answers only for interfaces that forward, as the kernel routes. */
  for (int i = 0; i < 2; i++) {
    const char *name = i == 0 ? n3_name : n6_name;
    if (!forwarding(name)) {
      snprintf(reason, reason_size, "IPv4 forwarding is off on %s (net.ipv4.conf.%s.forwarding)%s",
               name, name,
               i == 1 && defaulted ? ", N6 being the default route's interface" : "");
      return EPERM;
    }
  }
  if (access(c->object_path, R_OK) != 0) {
    snprintf(reason, reason_size, "the XDP program %s is missing (built without clang?)",
             c->object_path);
    return ENOENT;
  }
  libbpf_set_print(silent);
  upf_xdp *x = calloc(1, sizeof *x);
  if (x == NULL) return ENOMEM;
  int err = 0;
  x->cpus = libbpf_num_possible_cpus();
  x->object = bpf_object__open_file(c->object_path, NULL);
  if (x->object == NULL) {
    err = errno;
    snprintf(reason, reason_size, "the XDP program could not be opened: %s", strerror(err));
    goto fail;
  }
  static const char *const per_session[] = {"xdp_rules", "xdp_policers", "xdp_usage",
                                            "xdp_by_teid", "xdp_by_ipv4", "xdp_by_ipv6"};
  for (size_t i = 0; i < sizeof per_session / sizeof per_session[0]; i++)
    bpf_map__set_max_entries(bpf_object__find_map_by_name(x->object, per_session[i]),
                             c->max_sessions);
  bpf_map__set_max_entries(bpf_object__find_map_by_name(x->object, "xdp_flows"), c->max_flows);
  err = -bpf_object__load(x->object);
  if (err != 0) {
    snprintf(reason, reason_size, "the kernel refused the XDP program: %s", strerror(err));
    goto fail;
  }
  x->config_fd = map_fd(x->object, "xdp_config");
  x->rules_fd = map_fd(x->object, "xdp_rules");
  x->policers_fd = map_fd(x->object, "xdp_policers");
  x->usage_fd = map_fd(x->object, "xdp_usage");
  x->by_teid_fd = map_fd(x->object, "xdp_by_teid");
  x->by_ipv4_fd = map_fd(x->object, "xdp_by_ipv4");
  x->by_ipv6_fd = map_fd(x->object, "xdp_by_ipv6");
  x->flows_fd = map_fd(x->object, "xdp_flows");
  x->counters_fd = map_fd(x->object, "xdp_counters");
  x->budget_fd = map_fd(x->object, "xdp_budget");
  x->ports_fd = map_fd(x->object, "xdp_ports");
  x->usage_values = calloc((size_t)x->cpus, sizeof *x->usage_values);
  x->counter_values = calloc((size_t)x->cpus, sizeof *x->counter_values);
  x->flow_keys = calloc(FLOW_BATCH, sizeof *x->flow_keys);
  x->flow_values = calloc(FLOW_BATCH, sizeof *x->flow_values);
  x->usage_keys = calloc(USAGE_BATCH, sizeof *x->usage_keys);
  x->usage_batch = calloc((size_t)USAGE_BATCH * (size_t)x->cpus, sizeof *x->usage_batch);
  if (x->usage_values == NULL || x->counter_values == NULL || x->flow_keys == NULL ||
      x->flow_values == NULL || x->usage_keys == NULL || x->usage_batch == NULL) {
    err = ENOMEM;
    snprintf(reason, reason_size, "out of memory");
    goto fail;
  }
  struct xdp_config config;
  memset(&config, 0, sizeof config);
  if (c->n3->ss_family == AF_INET) {
    const struct sockaddr_in *a = (const struct sockaddr_in *)c->n3;
    config.family = 4;
    config.n3_port = a->sin_port;
    memcpy(config.n3, &a->sin_addr, 4);
  } else {
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)c->n3;
    config.family = 6;
    config.n3_port = a->sin6_port;
    memcpy(config.n3, &a->sin6_addr, 16);
  }
  config.to_stack_per_second = c->to_stack_per_second;
  uint32_t zero = 0;
  struct xdp_budget budget;
  memset(&budget, 0, sizeof budget);
  /* Packets, not octets: a bucket of one second's budget. */
  bucket_set(&budget.bucket, c->to_stack_per_second, 0);
  budget.bucket.burst = (uint64_t)c->to_stack_per_second << XDP_FP;
  budget.bucket.tokens = budget.bucket.burst;
  budget.bucket.fill_ns = budget.bucket.burst / budget.bucket.rate + 1;
  if (bpf_map_update_elem(x->config_fd, &zero, &config, BPF_ANY) != 0 ||
      bpf_map_update_elem(x->budget_fd, &zero, &budget, BPF_ANY) != 0) {
    err = errno;
    snprintf(reason, reason_size, "the XDP program's maps could not be set: %s", strerror(err));
    goto fail;
  }
  int program = bpf_program__fd(bpf_object__find_program_by_name(x->object, "upf_xdp"));
  err = attach(x, program, n3_index, n3_name, "N3", c->native_on_veth, reason, reason_size);
  if (err == 0 && n6_index != n3_index)
    err = attach(x, program, n6_index, n6_name, "N6", c->native_on_veth, reason, reason_size);
  if (err == 0 && n6_index == n3_index) {
    size_t used = strlen(x->description);
    snprintf(x->description + used, sizeof x->description - used, ", N6 %s too", n6_name);
  }
  if (err == 0 && defaulted) {
    size_t used = strlen(x->description);
    snprintf(x->description + used, sizeof x->description - used,
             " (N6: the default route's interface, n6_interface being unset)");
  }
  if (err != 0) goto fail;
  *out = x;
  return 0;
fail:
  upf_xdp_close(x);
  return err;
}

void upf_xdp_close(upf_xdp *x) {
  if (x == NULL) return;
  for (int i = 0; i < x->link_count; i++) close(x->links[i]);
  bpf_object__close(x->object);
  free(x->usage_values);
  free(x->counter_values);
  free(x->flow_keys);
  free(x->flow_values);
  free(x->usage_keys);
  free(x->usage_batch);
  free(x);
}

const char *upf_xdp_description(const upf_xdp *x) { return x->description; }

static int result(int status) { return status == 0 ? 0 : errno; }

int upf_xdp_add_session(upf_xdp *x, uint32_t slot, uint32_t id, uint32_t uplink_teid,
                        const uint8_t *ipv4, const uint8_t *ipv6_prefix, uint64_t uplink_bps,
                        uint64_t downlink_bps) {
  struct xdp_rule rule;
  memset(&rule, 0, sizeof rule);
  rule.id = id;
  if (ipv4 != NULL) {
    rule.has_ipv4 = 1;
    memcpy(rule.ipv4, ipv4, 4);
  }
  if (ipv6_prefix != NULL) {
    rule.has_ipv6 = 1;
    memcpy(rule.ipv6_prefix, ipv6_prefix, 8);
  }
  struct xdp_policer policer;
  memset(&policer, 0, sizeof policer);
  bucket_set(&policer.uplink, (double)uplink_bps / 8, 16384);
  bucket_set(&policer.downlink, (double)downlink_bps / 8, 16384);
  uint32_t teid = htonl(uplink_teid);
  /* The slot's usage from zero, the rule, and the keys that lead to it last: the program never finds
   * a half-made session. */
  memset(x->usage_values, 0, (size_t)x->cpus * sizeof *x->usage_values);
  int err = result(bpf_map_update_elem(x->usage_fd, &slot, x->usage_values, BPF_ANY));
  if (err == 0) err = result(bpf_map_update_elem(x->rules_fd, &slot, &rule, BPF_ANY));
  if (err == 0) err = result(bpf_map_update_elem(x->policers_fd, &slot, &policer, BPF_F_LOCK));
  if (err == 0 && ipv4 != NULL)
    err = result(bpf_map_update_elem(x->by_ipv4_fd, ipv4, &slot, BPF_ANY));
  if (err == 0 && ipv6_prefix != NULL)
    err = result(bpf_map_update_elem(x->by_ipv6_fd, ipv6_prefix, &slot, BPF_ANY));
  if (err == 0) err = result(bpf_map_update_elem(x->by_teid_fd, &teid, &slot, BPF_ANY));
  if (err != 0) upf_xdp_remove_session(x, slot, uplink_teid, ipv4, ipv6_prefix);
  return err;
}

int upf_xdp_set_ambr(upf_xdp *x, uint32_t slot, uint64_t uplink_bps, uint64_t downlink_bps) {
  struct xdp_policer policer;
  memset(&policer, 0, sizeof policer);
  bucket_set(&policer.uplink, (double)uplink_bps / 8, 16384);
  bucket_set(&policer.downlink, (double)downlink_bps / 8, 16384);
  return result(bpf_map_update_elem(x->policers_fd, &slot, &policer, BPF_F_LOCK));
}

/* The program reads a rule without a lock: a change is written whole, inactive first when it moves
 * the tunnel, so a packet sees the old tunnel, none (userspace), or the new one. */
int upf_xdp_set_downlink(upf_xdp *x, uint32_t slot, const struct sockaddr *gnb,
                         uint32_t remote_teid, uint8_t qfi) {
  struct xdp_rule rule;
  if (bpf_map_lookup_elem(x->rules_fd, &slot, &rule) != 0) return errno;
  if (rule.active) {
    rule.active = 0;
    if (bpf_map_update_elem(x->rules_fd, &slot, &rule, BPF_ANY) != 0) return errno;
  }
  memset(rule.gnb, 0, sizeof rule.gnb);
  if (gnb->sa_family == AF_INET) {
    const struct sockaddr_in *a = (const struct sockaddr_in *)gnb;
    memcpy(rule.gnb, &a->sin_addr, 4);
    rule.gnb_port = a->sin_port;
  } else {
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)gnb;
    memcpy(rule.gnb, &a->sin6_addr, 16);
    rule.gnb_port = a->sin6_port;
  }
  rule.remote_teid = htonl(remote_teid);
  rule.qfi = qfi;
  rule.active = 1;
  return result(bpf_map_update_elem(x->rules_fd, &slot, &rule, BPF_ANY));
}

int upf_xdp_clear_downlink(upf_xdp *x, uint32_t slot) {
  struct xdp_rule rule;
  if (bpf_map_lookup_elem(x->rules_fd, &slot, &rule) != 0) return errno;
  rule.active = 0;
  return result(bpf_map_update_elem(x->rules_fd, &slot, &rule, BPF_ANY));
}

void upf_xdp_remove_session(upf_xdp *x, uint32_t slot, uint32_t uplink_teid, const uint8_t *ipv4,
                            const uint8_t *ipv6_prefix) {
  uint32_t teid = htonl(uplink_teid);
  bpf_map_delete_elem(x->by_teid_fd, &teid);
  if (ipv4 != NULL) bpf_map_delete_elem(x->by_ipv4_fd, ipv4);
  if (ipv6_prefix != NULL) bpf_map_delete_elem(x->by_ipv6_fd, ipv6_prefix);
  (void)slot; /* its rule and usage stay until the slot's next session overwrites them */
}

void upf_xdp_usage(upf_xdp *x, uint32_t slot, uint64_t *uplink_bytes, uint64_t *downlink_bytes,
                   uint64_t *flow_packets) {
  *uplink_bytes = *downlink_bytes = *flow_packets = 0;
  if (bpf_map_lookup_elem(x->usage_fd, &slot, x->usage_values) != 0) return;
  for (int i = 0; i < x->cpus; i++) {
    *uplink_bytes += x->usage_values[i].uplink_bytes;
    *downlink_bytes += x->usage_values[i].downlink_bytes;
    *flow_packets += x->usage_values[i].flow_packets;
  }
}

void upf_xdp_usage_all(upf_xdp *x, upf_xdp_usage_fn *fn, void *context) {
  uint32_t position = 0;
  bool first = true;
  for (;;) {
    __u32 count = USAGE_BATCH;
    int status = bpf_map_lookup_batch(x->usage_fd, first ? NULL : &position, &position,
                                      x->usage_keys, x->usage_batch, &count, NULL);
    int err = status == 0 ? 0 : errno;
    for (__u32 i = 0; i < count; i++) {
      uint64_t uplink = 0, downlink = 0;
      for (int c = 0; c < x->cpus; c++) {
        uplink += x->usage_batch[(size_t)i * (size_t)x->cpus + (size_t)c].uplink_bytes;
        downlink += x->usage_batch[(size_t)i * (size_t)x->cpus + (size_t)c].downlink_bytes;
      }
      fn(context, x->usage_keys[i], uplink, downlink);
    }
    first = false;
    if (err != 0) return; /* ENOENT: every slot was read */
  }
}

static uint64_t counter(upf_xdp *x, uint32_t key) {
  uint64_t sum = 0;
  if (bpf_map_lookup_elem(x->counters_fd, &key, x->counter_values) != 0) return 0;
  for (int i = 0; i < x->cpus; i++) sum += x->counter_values[i];
  return sum;
}

void upf_xdp_read_counters(upf_xdp *x, upf_xdp_counters *out) {
  out->n3_received = counter(x, XDP_C_N3_RECEIVED);
  out->uplink_packets = counter(x, XDP_C_UPLINK_PACKETS);
  out->uplink_bytes = counter(x, XDP_C_UPLINK_BYTES);
  out->downlink_packets = counter(x, XDP_C_DOWNLINK_PACKETS);
  out->downlink_bytes = counter(x, XDP_C_DOWNLINK_BYTES);
  out->drop_spoofed = counter(x, XDP_C_DROP_SPOOFED);
  out->drop_uplink_ambr = counter(x, XDP_C_DROP_UPLINK_AMBR);
  out->drop_downlink_ambr = counter(x, XDP_C_DROP_DOWNLINK_AMBR);
  out->flow_table_full = counter(x, XDP_C_FLOW_TABLE_FULL);
  out->to_stack = counter(x, XDP_C_TO_STACK);
  out->to_stack_limited = counter(x, XDP_C_TO_STACK_LIMITED);
  out->flows_inserted = counter(x, XDP_C_FLOWS_INSERTED);
}

_Static_assert(sizeof(struct xdp_flow_key) == sizeof(upf_flow_key), "flow keys differ");

void upf_xdp_read_flows(upf_xdp *x, upf_xdp_flow_fn *fn, void *context) {
  struct xdp_flow_key position;
  bool first = true;
  for (;;) {
    __u32 count = FLOW_BATCH;
    int status = bpf_map_lookup_batch(x->flows_fd, first ? NULL : &position, &position,
                                      x->flow_keys, x->flow_values, &count, NULL);
    int err = status == 0 ? 0 : errno;
    for (__u32 i = 0; i < count; i++) {
      upf_flow_key key;
      memcpy(&key, &x->flow_keys[i], sizeof key);
      fn(context, &key, x->flow_values[i].packets, x->flow_values[i].bytes);
    }
    first = false;
    if (err != 0) return; /* ENOENT: the whole map was visited */
  }
}

int upf_xdp_take_flow(upf_xdp *x, const upf_flow_key *key, uint64_t *packets, uint64_t *bytes) {
  struct xdp_flow_key k;
  struct xdp_flow_value v;
  memcpy(&k, key, sizeof k);
  *packets = *bytes = 0;
  if (bpf_map_lookup_and_delete_elem(x->flows_fd, &k, &v) != 0) return errno;
  *packets = v.packets;
  *bytes = v.bytes;
  return 0;
}

#endif
