/* The ceiling bench/upf-xdp.ts measures the UPF's XDP datapath against: an XDP program that redirects
 * every IPv4 packet from one interface to another with fixed MAC addresses, no GTP-U, no lookup, no
 * policing or counting. Compiled per run with -DOUT_IFINDEX, -DSOURCE_MAC and -DDESTINATION_MAC
 * (0x-prefixed octet lists). */
#include <linux/bpf.h>
#include <linux/if_ether.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int plain(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP)) return XDP_PASS;
  const unsigned char source[ETH_ALEN] = {SOURCE_MAC}, destination[ETH_ALEN] = {DESTINATION_MAC};
  __builtin_memcpy(eth->h_source, source, ETH_ALEN);
  __builtin_memcpy(eth->h_dest, destination, ETH_ALEN);
  return bpf_redirect(OUT_IFINDEX, 0);
}

char LICENSE[] SEC("license") = "GPL";
