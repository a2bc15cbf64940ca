/**
 * Runs `operation` in batches of `batch` calls (after one unmeasured batch to warm up) until it has used
 * `seconds` of CPU (user + system); returns the CPU time per call in µs. The CPU benchmarks of codecs and
 * crypto share it, so their figures and their baselines are measured the same way.
 */
export function cpuPerOperation(operation: () => unknown, seconds: number, batch = 1000): number {
  for (let i = 0; i < batch; i++) operation();
  let calls = 0;
  const start = process.cpuUsage();
  let used = 0;
  while (used < seconds * 1e6) {
    for (let i = 0; i < batch; i++) operation();
    calls += batch;
    const delta = process.cpuUsage(start);
    used = delta.user + delta.system;
  }
  return used / calls;
}
