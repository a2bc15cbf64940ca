/* Host routes on the N6 side for the UE addresses this UPF serves (docs/upf.md "Routes to the
 * devices"): one /32 per IPv4 address and one /64 per IPv6 prefix on the N6 TUN, added and removed
 * over rtnetlink with the operator's table and protocol number, so a routing daemon (bird2's kernel
 * protocol with `learn`) redistributes them. Synchronous: one request and its acknowledgement. */
#ifndef PMN_UPF_HOST_ROUTES_H
#define PMN_UPF_HOST_ROUTES_H

#include <stdbool.h>
#include <stdint.h>

typedef struct host_routes host_routes;

/* Opens the netlink socket of this network namespace for routes on `device` (which must exist) in
 * `table` with `protocol`, brings the device up (a route needs it up), and removes the routes of that
 * protocol left on the device in that table (a previous run's, on a persistent device). 0 or an errno;
 * *syscall names the step that failed. */
int host_routes_open(const char *device, uint32_t table, uint8_t protocol, host_routes **out,
                     const char **syscall);
/* Adds (replacing one already there) or removes the route to `address` (4 or 16 octets by family)
 * of `prefix_length`. Removing a route that is not there succeeds. 0 or an errno. */
int host_routes_change(host_routes *r, bool add, int family, const uint8_t *address,
                       uint8_t prefix_length);
void host_routes_close(host_routes *r);

#endif
