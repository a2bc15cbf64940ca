/**
 * A million mutated packets through the UPF's XDP program in the kernel (BPF_PROG_TEST_RUN), by the C
 * driver beside this file (what it sends and checks: its header comment). Needs root, `cc`, libbpf and
 * a build with the program; skipped with the reason otherwise.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { upfBpfObject } from '../../src/network/upf/upf-addon.ts';
import { compileC } from '../helpers/compile-c.ts';
import { namespacesUnavailable } from '../helpers/netns.ts';

const run = promisify(execFile);
const skip =
  namespacesUnavailable() ??
  (existsSync(upfBpfObject()) ? undefined : 'built without the XDP program (clang or libbpf-dev missing)');

describe('UPF XDP program under a million mutated packets', { skip }, () => {
  const directory = mkdtempSync(join(tmpdir(), 'pmn-xdp-fuzz-'));
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('answers PASS, DROP or REDIRECT, hands packets to the stack unchanged, counts every drop', async () => {
    const driver = join(directory, 'upf-xdp-fuzz');
    const source = join(import.meta.dirname, 'upf-xdp-fuzz.c');
    compileC(driver, source, { libraries: ['-lbpf'] });
    const { stdout } = await run(driver, [upfBpfObject(), '1000000', '31'], { timeout: 120_000 }).catch(
      (error: { stdout?: string; message: string }) => {
        assert.fail(`the driver found a violation: ${error.stdout ?? error.message}`);
      },
    );
    const tally = JSON.parse(stdout) as Record<string, number>;
    // The seeds as they are (XDP_PASS 2, XDP_DROP 1; the test run's loopback does not forward, so what
    // the program would redirect goes to the stack): uplink, downlink, echo to the stack; the spoofed
    // IPv4 and the IPv6 source outside the session's /64 dropped, the one inside it not.
    assert.deepEqual((JSON.parse(stdout) as { seedVerdicts: number[] }).seedVerdicts, [2, 2, 2, 1, 2, 1]);
    assert.equal(tally.packets, 1_000_000);
    assert.equal(tally.unexpected, 0);
    assert.equal(tally.changedOnPass, 0);
    assert.equal(tally.drop, (tally.dropSpoofed ?? 0) + (tally.dropAmbr ?? 0) + (tally.toStackLimited ?? 0));
    // Both of the program's outcomes were reached: drops (spoofed sources survive some mutations) and
    // hand-overs of what it does not forward itself.
    assert.ok((tally.dropSpoofed ?? 0) > 10_000, stdout);
    assert.ok((tally.toStack ?? 0) > 100_000, stdout);
  });

  it('hands at most its budget to the stack and drops the rest, counted', async () => {
    const driver = join(directory, 'upf-xdp-fuzz-budget');
    compileC(driver, join(import.meta.dirname, 'upf-xdp-fuzz.c'), { libraries: ['-lbpf'] });
    const { stdout } = await run(driver, [upfBpfObject(), '20000', '5', '1000'], { timeout: 60_000 });
    const tally = JSON.parse(stdout) as Record<string, number>;
    // 1,000 and the refill of about one a second while it runs.
    assert.ok((tally.toStack ?? 0) >= 1000 && (tally.toStack ?? 0) <= 1010, stdout);
    assert.ok((tally.toStackLimited ?? 0) > 10_000, stdout);
    assert.equal(tally.drop, (tally.dropSpoofed ?? 0) + (tally.dropAmbr ?? 0) + (tally.toStackLimited ?? 0));
  });
});
