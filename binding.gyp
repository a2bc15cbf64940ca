{
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
        "native/upf/downlink-buffer.c",
        "native/upf/flows.c",
        "native/upf/forwarder.c",
        "native/upf/gtpu.c",
        "native/upf/map.c",
        "native/upf/n3-socket.c"
      ],
      "cflags": ["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden", "-pthread"],
      "ldflags": ["-pthread"],
      "defines": ["_GNU_SOURCE"]
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
        "native/upf/n3-socket.c"
      ],
      "cflags": ["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden", "-pthread"],
      "ldflags": ["-pthread"],
      "defines": ["_GNU_SOURCE"]
    }
  ]
}
