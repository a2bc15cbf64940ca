import { afterEach } from 'node:test';

/**
 * Registers, for the file that calls it, an afterEach that closes what each test opened (servers, links,
 * harnesses) when it ends, passed or failed, the last opened first (a client before its server). Returns
 * the function a test hands each close to. Without it a failing test skips its own closing and the
 * sockets it left keep the file running until the runner's timeout.
 */
export function closeAfterEach(): (close: () => Promise<void>) => void {
  const opened: (() => Promise<void>)[] = [];
  afterEach(async () => {
    const failures: unknown[] = [];
    for (let close = opened.pop(); close !== undefined; close = opened.pop()) {
      await close().catch((error: unknown) => failures.push(error));
    }
    if (failures.length > 0) throw failures[0];
  });
  return (close) => void opened.push(close);
}
