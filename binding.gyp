{
  "targets": [
    {
      "target_name": "pmn_native",
      "sources": [
        "native/addon.c",
        "native/common.c",
        "native/raw-socket.c",
        "native/kernel-sctp.c"
      ],
      "cflags": ["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden"],
      "defines": ["_GNU_SOURCE"]
    }
  ]
}
