/**
 * Runs test files with Node's test runner from JavaScript compiled once (scripts/test-build.ts).
 *
 *   node --import tsx scripts/run-tests.ts [--concurrency N] [--groups N | --per-file] [--test-...]
 *                                          [file or directory ...]
 *
 * Without paths it runs the fast suite: every `test/**\/*.test.ts` except `test/system/` and
 * `test/process/` (those start processes, guests and peers of their own: `npm run test:system`).
 * New test files are picked up by that walk. The working directory stays the checkout; the exit code
 * is the runner's.
 *
 * The files are dealt into groups (by default three per core, `--groups N`), `--concurrency` of them
 * (by default one more than the cores) running at a time, each group in one process: most of a test
 * file's cost is starting Node and loading the service (about 2 s CPU for an HTTP test file), which a
 * group pays once. In a group each file's tests run inside a suite named after the file, one file after
 * another, so the file's top-level hooks (`before`, `after`) stay its own; every test also passes alone
 * in a process of its own (`npm run test:alone`). `--per-file` runs each file in a process of its own
 * instead, as `node --test` does. Options starting with `--test-` (`--test-name-pattern=...`) go to
 * Node's test runner.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { ROOT, buildTests, testFiles, type TestBuild } from './test-build.ts';

/** Writes one entry per group into the build; each imports its files inside a suite per file. */
function groupEntries(build: TestBuild, files: string[], groups: number): string[] {
  const entries: string[] = [];
  for (let group = 0; group < Math.min(groups, files.length); group++) {
    const members = files.filter((_, i) => i % groups === group);
    const lines = [
      "import { describe } from 'node:test';",
      ...members.map(
        (file) => `describe(${JSON.stringify(file)}, () => import(${JSON.stringify(build.compiled(file))}));`,
      ),
    ];
    const entry = join(build.root, `group-${group + 1}.test.js`);
    writeFileSync(entry, `${lines.join('\n')}\n`);
    entries.push(entry);
  }
  return entries;
}

function option(args: string[], name: string): number | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : undefined;
}

async function main(args: string[]): Promise<number> {
  const cores = availableParallelism();
  // One process more than cores: a group waits about as long as it computes (real 1 s profiles, worker
  // threads, sockets), measured in docs/testing.md, so a third process fills the waits of two.
  const concurrency = option(args, '--concurrency') ?? cores + 1;
  const groups = option(args, '--groups') ?? 3 * cores;
  const valued = new Set(['--concurrency', '--groups']);
  const files = testFiles(args.filter((arg, i) => !arg.startsWith('--') && !valued.has(args[i - 1] ?? '')));
  const runnerOptions = args.filter((arg) => arg.startsWith('--test-'));
  const build = await buildTests();
  try {
    const entries = args.includes('--per-file')
      ? files.map((file) => build.compiled(file))
      : groupEntries(build, files, groups);
    const child = spawn(
      process.execPath,
      // Source maps: a failure's stack names the TypeScript file and line, not the compiled copy.
      [
        '--enable-source-maps',
        '--test',
        '--test-reporter=spec',
        `--test-concurrency=${concurrency}`,
        ...runnerOptions,
        ...entries,
      ],
      { cwd: ROOT, stdio: 'inherit' },
    );
    return await new Promise<number>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  } finally {
    build.dispose();
  }
}

process.exitCode = await main(process.argv.slice(2));
