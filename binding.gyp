{
  "variables": {
    "upf_xdp%": "<!(sh native/upf/bpf/available.sh)"
  },
  "targets": [
    {
      "target_name": "pmn_native",
      "sources": [
        "native/addon.c",
        "native/common.c",
        "native/crc32c.c",
        "native/raw-socket.c",
        "native/udp-socket.c",
        "native/kernel-sctp.c"
      ],
      "cflags": ["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden"],
      "defines": ["_GNU_SOURCE"]
    },
    {
      "target_name": "pmn_upf",
      "sources": [
        "native/upf/addon.c",
        "native/napi-args.c",
        "native/napi-handle.c",
        "native/upf/default-route.c",
        "native/upf/downlink-buffer.c",
        "native/upf/flows.c",
        "native/upf/forwarder.c",
        "native/upf/gtpu.c",
        "native/upf/host-routes.c",
        "native/upf/host-routes-addon.c",
        "native/upf/map.c",
        "native/upf/n3-socket.c",
        "native/upf/tun-gro.c",
        "native/upf/tun-gso.c",
        "native/upf/xdp.c"
      ],
      "cflags": ["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden", "-pthread"],
      "ldflags": ["-pthread"],
      "defines": ["_GNU_SOURCE"],
      "conditions": [
        [
          "upf_xdp==1",
          {
            "defines": ["PMN_UPF_XDP"],
            "libraries": ["-lbpf"],
            "actions": [
              {
                "action_name": "upf_bpf_object",
                "inputs": ["native/upf/bpf/upf.bpf.c", "native/upf/bpf/upf-xdp.h"],
                "outputs": ["<(PRODUCT_DIR)/upf.bpf.o"],
                "action": ["sh", "native/upf/bpf/compile.sh", "native/upf/bpf/upf.bpf.c", "<(PRODUCT_DIR)/upf.bpf.o"]
              }
            ]
          }
        ]
      ]
    },
    {
      "target_name": "pmn_gnb_user_plane",
      "sources": [
        "native/gnb-user-plane/addon.c",
        "native/napi-args.c",
        "native/napi-handle.c",
        "native/gnb-user-plane/gnb-user-plane.c",
        "native/upf/downlink-buffer.c",
        "native/upf/gtpu.c",
        "native/upf/map.c",
        "native/upf/n3-socket.c",
        "native/upf/tun-gro.c",
        "native/upf/tun-gso.c"
      ],
      "cflags": ["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden", "-pthread"],
      "ldflags": ["-pthread"],
      "defines": ["_GNU_SOURCE"]
    }
  ]
}
