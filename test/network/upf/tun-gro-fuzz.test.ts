/**
 * A million mutated packet sequences through the TUN joiner (native/upf/tun-gro.c) by the C driver
 * beside this file, built with AddressSanitizer and UndefinedBehaviorSanitizer (what it sends and
 * checks at every write: its header comment). A fixed seed: a failure is reproduced by running the
 * driver with the same arguments. Needs `cc` with the sanitizers' runtimes (gcc's); skipped without cc.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { compileC } from '../../helpers/compile-c.ts';
import { hasCommand } from '../../helpers/has-command.ts';

const run = promisify(execFile);
// The driver is a C program: Node.js only starts it, so CI's second runtime (.ci/run sets
// PMN_TEST_C_DRIVERS_RAN) does not run it again.
const skip = !hasCommand('cc')
  ? 'no cc'
  : process.env.PMN_TEST_C_DRIVERS_RAN
    ? 'a C driver: ran under the first Node.js runtime'
    : undefined;

const SEQUENCES = 1_000_000;
const SEED = 31;

describe('the TUN joiner under a million mutated packet sequences (tun-gro.c)', { skip }, () => {
  const directory = mkdtempSync(join(tmpdir(), 'pmn-tun-gro-fuzz-'));
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('tells of every packet once and in order, writes within bounds, and its segments cut back into the packets', async () => {
    const driver = compileC(join(directory, 'tun-gro-fuzz'), join(import.meta.dirname, 'tun-gro-fuzz.c'), {
      upf: ['tun-gro.c', 'tun-gso.c', 'n3-socket.c'],
      sanitize: true,
    });
    // A bound for a loaded machine, not a measure: about 20 s of CPU.
    const { stdout } = await run(driver, [String(SEQUENCES), String(SEED)], { timeout: 600_000 }).catch(
      (error: { stdout?: string; stderr?: string; message: string }) =>
        assert.fail(
          `the driver found a violation (reproduce: tun-gro-fuzz.c built as here, run with ${SEQUENCES} ${SEED}): ${error.stdout ?? ''}${error.stderr ?? error.message}`,
        ),
    );
    const tally = JSON.parse(stdout) as Record<string, number>;
    assert.equal(tally.sequences, SEQUENCES, stdout);
    // Every outcome reached, many times: joined writes (IPv6 too), the 64-packet and 64 KiB limits,
    // packets written alone, writes the kernel refused, a batch's end and a switch to another TUN.
    for (const [name, least] of Object.entries({
      joinedWrites: 100_000,
      ipv6Joined: 10_000,
      fullWrites: 100,
      bigWrites: 100,
      alone: 100_000,
      failedWrites: 100_000,
      flushes: 10_000,
      switches: 10_000,
      mutations: 100_000,
    }))
      assert.ok((tally[name] ?? 0) >= least, `${name} below ${least}: ${stdout}`);
  });
});
