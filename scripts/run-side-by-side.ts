/**
 * Runs lanes of npm scripts side by side: each argument is one lane, its scripts (space-separated) run
 * one after another, stopping at the first that fails; the lanes run at the same time.
 *
 *   node --import tsx scripts/run-side-by-side.ts "lint typecheck test:only" test:system
 *
 * Why: the system suites spend most of their wall time waiting (guests booting, timers, sockets; about
 * 0.9 of a core on two, docs/testing.md), so the CPU-bound fast suites fill their waits. The first lane
 * streams to this process's output as it runs; each other lane's output is kept in a file and printed
 * whole once the first lane and it have ended, so that no two reporters' lines interleave. Last come,
 * for each lane that failed, the failing tests its reporters listed (the spec reporter's "failing tests"
 * block), so that the tail of a long log names what failed. The exit code is 0 only when every lane
 * passed. SIGINT or SIGTERM stops every lane's process group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { failingTests } from './failing-tests.ts';

interface LaneResult {
  scripts: string[];
  /** The script that failed, or undefined when all passed. */
  failed: string | undefined;
  seconds: number;
}

const running = new Set<ChildProcess>();

function runScript(script: string, outputs: NodeJS.WritableStream[]): Promise<number> {
  return new Promise((resolve, reject) => {
    // Its own process group, so that a stop reaches every process the script started.
    const child = spawn('npm', ['run', '--silent', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    running.add(child);
    for (const output of outputs) {
      child.stdout?.pipe(output, { end: false });
      child.stderr?.pipe(output, { end: false });
    }
    child.on('error', reject);
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

async function runLane(scripts: string[], outputs: NodeJS.WritableStream[]): Promise<LaneResult> {
  const started = process.hrtime.bigint();
  let failed: string | undefined;
  for (const script of scripts) {
    for (const output of outputs) output.write(`> npm run ${script}\n`);
    if ((await runScript(script, outputs)) !== 0) {
      failed = script;
      break;
    }
  }
  return { scripts, failed, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

function stopAll(signal: NodeJS.Signals): void {
  for (const child of running) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  }
}

async function main(lanes: string[][]): Promise<number> {
  if (lanes.length === 0 || lanes.some((lane) => lane.length === 0)) {
    process.stderr.write('usage: run-side-by-side.ts "<script> [<script> ...]" ["<script> ..."] ...\n');
    return 2;
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stopAll(signal));
  const directory = mkdtempSync(join(tmpdir(), 'pmn-lanes-'));
  try {
    const files = lanes.map((_, index) => join(directory, `lane-${index + 1}.log`));
    const streams = files.map((file) => createWriteStream(file));
    const results = await Promise.all(
      lanes.map((lane, index) =>
        runLane(lane, index === 0 ? [process.stdout, streams[0]!] : [streams[index]!]),
      ),
    );
    await Promise.all(streams.map((stream) => new Promise((resolve) => stream.end(resolve))));
    for (const [index, file] of files.entries()) {
      if (index === 0) continue;
      process.stdout.write(`\n── lane ${index + 1}: npm run ${lanes[index]!.join(', ')} ──\n`);
      await pipeline(createReadStream(file), process.stdout, { end: false });
    }
    process.stdout.write('\n');
    for (const [index, result] of results.entries()) {
      if (result.failed === undefined) continue;
      const failing = failingTests(readFileSync(files[index]!, 'utf8'));
      process.stdout.write(
        `── lane ${index + 1} failed at ${result.failed}; ${failing.length > 0 ? 'its failing tests:' : 'its reporters listed no failing test'} ──\n`,
      );
      if (failing.length > 0) process.stdout.write(`${failing.join('\n')}\n\n`);
    }
    for (const [index, result] of results.entries()) {
      const outcome = result.failed === undefined ? 'passed' : `FAILED at ${result.failed}`;
      process.stdout.write(
        `lane ${index + 1} (${result.scripts.join(', ')}): ${outcome} in ${result.seconds.toFixed(0)} s\n`,
      );
    }
    return results.every((result) => result.failed === undefined) ? 0 : 1;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

process.exitCode = await main(process.argv.slice(2).map((lane) => lane.split(/\s+/).filter(Boolean)));
