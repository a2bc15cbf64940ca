/**
 * Runs lanes of npm scripts side by side: each argument is one lane, its scripts (space-separated) run
 * one after another, stopping at the first that fails; the lanes run at the same time.
 *
 *   node --import tsx scripts/run-side-by-side.ts "lint typecheck test:only" test:system
 *
 * Why: the system suites spend most of their wall time waiting (guests booting, timers, sockets; about
 * 0.9 of a core on two, docs/testing.md), so the CPU-bound fast suites fill their waits. The first lane
 * streams to this process's output as it runs; each other lane's output is kept in a file and printed
 * whole once the first lane and it have ended, so that no two reporters' lines interleave. The exit
 * code is 0 only when every lane passed. SIGINT or SIGTERM stops every lane's process group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

interface LaneResult {
  scripts: string[];
  /** The script that failed, or undefined when all passed. */
  failed: string | undefined;
  seconds: number;
}

const running = new Set<ChildProcess>();

function runScript(script: string, output: 'inherit' | NodeJS.WritableStream): Promise<number> {
  return new Promise((resolve, reject) => {
    // Its own process group, so that a stop reaches every process the script started.
    const child = spawn('npm', ['run', '--silent', script], {
      stdio: output === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    running.add(child);
    if (output !== 'inherit') {
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

async function runLane(scripts: string[], output: 'inherit' | NodeJS.WritableStream): Promise<LaneResult> {
  const started = process.hrtime.bigint();
  let failed: string | undefined;
  for (const script of scripts) {
    (output === 'inherit' ? process.stdout : output).write(`> npm run ${script}\n`);
    if ((await runScript(script, output)) !== 0) {
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
    const files = lanes.slice(1).map((_, index) => join(directory, `lane-${index + 2}.log`));
    const streams = files.map((file) => createWriteStream(file));
    const results = await Promise.all(
      lanes.map((lane, index) =>
        runLane(lane, index === 0 ? 'inherit' : (streams[index - 1] as NodeJS.WritableStream)),
      ),
    );
    await Promise.all(streams.map((stream) => new Promise((resolve) => stream.end(resolve))));
    for (const [index, file] of files.entries()) {
      process.stdout.write(
        `\n── lane ${index + 2}: npm run ${(lanes[index + 1] as string[]).join(', ')} ──\n`,
      );
      await pipeline(createReadStream(file), process.stdout, { end: false });
    }
    process.stdout.write('\n');
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
