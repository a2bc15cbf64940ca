/* The interface of the host's default route: the UPF's N6 interface when n6_interface is unset
 * (docs/upf.md "The XDP datapath", Choosing). */
#ifndef PMN_UPF_DEFAULT_ROUTE_H
#define PMN_UPF_DEFAULT_ROUTE_H

#include <stdbool.h>
#include <stddef.h>

/* The IPv4 default route with the lowest metric (/proc/net/route), else the IPv6 one
 * (/proc/net/ipv6_route), as the kernel would pick it for traffic to the internet; its interface's
 * name into name (size >= IF_NAMESIZE). False when this namespace has no usable default route. */
bool upf_default_route_interface(char *name, size_t size);

#endif
