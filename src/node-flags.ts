/**
 * The V8 flags every launcher of the service passes to node (`npm start`, the Dockerfile, the systemd
 * unit, the benchmarks; a test keeps them in step). Without a heap limit V8 lets garbage pile up to
 * gigabytes before collecting it: at full-rate record ingestion the process peaked at 834 MiB RSS with
 * 117 MiB of live heap. Any explicit old-space limit makes V8 collect early. 640 MiB holds 100,000
 * registered devices (about 5 KB of live heap each; at 512 MiB the service ran out of heap near
 * 105,000; docs/performance/history.md, Registration). A 4 MiB young generation promotes queued records sooner
 * and keeps the peak near 200 MiB, for about 15% fewer records written per second.
 */
export const SERVICE_NODE_FLAGS = ['--max-old-space-size=640', '--max-semi-space-size=4'] as const;
