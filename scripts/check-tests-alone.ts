/**
 * Runs every test of the fast suite by itself and prints the ones that fail alone; with `--times`,
 * measures each test file's CPU and wall time instead.
 *
 *   node --import tsx scripts/check-tests-alone.ts [--jobs 2] [--tsx] [file or directory ...]
 *   node --import tsx scripts/check-tests-alone.ts --times [--tsx] [file or directory ...]
 *
 * Without paths it takes the files `npm run test:only` runs (test/**\/*.test.ts except test/system and
 * test/process). Like `npm run test:only`, it runs the JavaScript compiled once by scripts/test-build.ts;
 * with `--tsx` it runs the TypeScript through tsx instead (as `node --import tsx --test` does). A test
 * runs alone as `node --test-name-pattern='^<name>$' <file>` (what `node --test` runs in the child
 * process of the file): Node 20 matches the pattern against a test's own name (not its describe path),
 * so tests of one file that share a name run together (listed at the end, not counted as failures).
 * The exit code is 1 when a test fails alone.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, buildTests, testFiles } from './test-build.ts';

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Starts the reporter's lines, so that a test's own output (JSON logs) is never taken for one. */
const MARK = '@@check-tests-alone@@';

/** A reporter (a data: module) that prints one JSON line per finished test or suite. */
const REPORTER = `data:text/javascript,${encodeURIComponent(`
export default async function* (source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, nesting, skip, details } = event.data;
    const error = details?.error;
    yield '${MARK}' + JSON.stringify({
      passed: event.type === 'test:pass',
      name,
      nesting,
      suite: details?.type === 'suite',
      skipped: skip !== undefined && skip !== false,
      error: error ? String(error.cause ?? error).slice(0, 2000) : undefined,
    }) + '\\n';
  }
}`)}`;

interface Result {
  passed: boolean;
  name: string;
  nesting: number;
  suite: boolean;
  skipped: boolean;
  error?: string;
}

interface Run {
  code: number | null;
  results: Result[];
  stderr: string;
  wallMs: number;
}

function runNode(args: string[], wrapTime?: string): Promise<Run> {
  const started = performance.now();
  const [command, argv] = wrapTime
    ? ['/usr/bin/time', ['-f', '%U %S %e', '-o', wrapTime, process.execPath, ...args]]
    : [process.execPath, args];
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    // A test that hangs alone is a failure too, not a checker that never ends.
    const timeout = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timeout);
      const results = stdout
        .split('\n')
        .filter((line) => line.startsWith(MARK))
        .map((line) => JSON.parse(line.slice(MARK.length)) as Result);
      resolve({ code, results, stderr, wallMs: performance.now() - started });
    });
  });
}

const TIMEOUT_MS = 300_000;

/** How a test file of the checkout is run: its compiled JavaScript, or its TypeScript through tsx. */
let load: (file: string) => string[] = (file) => ['--import', 'tsx', file];

/**
 * Runs the file in one process, as `node --test` runs each file in a child of its own (the runner's
 * parent process would only double the start-up cost).
 */
function testArgs(file: string, pattern?: string): string[] {
  const only = pattern === undefined ? [] : [`--test-name-pattern=${pattern}`];
  return [`--test-reporter=${REPORTER}`, ...only, ...load(file)];
}

/** A test's name and the describe path above it, as `outer > inner > test`. */
interface Listed {
  name: string;
  path: string;
}

/** Lists a file's tests without running them (a pattern that matches nothing skips every test). */
async function listTests(file: string): Promise<Listed[]> {
  const run = await runNode(testArgs(file, '^(?!)'));
  if (run.results.length === 0) throw new Error(`${file}: no tests listed\n${run.stderr}`);
  // Suites finish after their children: a finished suite adopts the children waiting one level below.
  const waiting: { nesting: number; listed: Listed[] }[] = [];
  for (const result of run.results) {
    const children = waiting.filter((w) => w.nesting === result.nesting + 1).flatMap((w) => w.listed);
    for (let i = waiting.length - 1; i >= 0; i--) {
      if (waiting[i]!.nesting === result.nesting + 1) waiting.splice(i, 1);
    }
    const listed = result.suite
      ? children.map((child) => ({ ...child, path: `${result.name} > ${child.path}` }))
      : [{ name: result.name, path: result.name }];
    waiting.push({ nesting: result.nesting, listed });
  }
  return waiting.flatMap((w) => w.listed);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Runs `work` over the items, `jobs` at a time. */
async function pool<T>(items: T[], jobs: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(jobs, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

async function checkAlone(files: string[], jobs: number): Promise<number> {
  const listed: { file: string; tests: Listed[] }[] = [];
  await pool(files, jobs, async (file) => void listed.push({ file, tests: await listTests(file) }));
  listed.sort((a, b) => (a.file < b.file ? -1 : 1));

  const problems: string[] = [];
  const notes: string[] = [];
  const work: { file: string; name: string; paths: string[] }[] = [];
  for (const { file, tests } of listed) {
    const byName = new Map<string, string[]>();
    for (const test of tests) byName.set(test.name, [...(byName.get(test.name) ?? []), test.path]);
    for (const [name, paths] of byName) {
      if (paths.length > 1) notes.push(`SHARED NAME ${file}: ${paths.join(' | ')} (they run together)`);
      work.push({ file, name, paths });
    }
  }
  const total = work.length;
  print(`${total} test names in ${files.length} files; running each alone, ${jobs} at a time`);

  let done = 0;
  const started = performance.now();
  await pool(work, jobs, async ({ file, name, paths }) => {
    const run = await runNode(testArgs(file, `^${escapeRegExp(name)}$`));
    const ran = run.results.filter((r) => !r.suite && !r.skipped);
    const failed = run.results.filter((r) => !r.passed);
    done++;
    if (run.code === 0 && ran.length === paths.length && failed.length === 0) return;
    const why =
      failed.map((r) => `    ${r.suite ? 'suite ' : ''}${r.name}: ${r.error ?? 'failed'}`).join('\n') ||
      `    exit code ${run.code}, ${ran.length} of ${paths.length} ran\n${run.stderr.slice(-2000)}`;
    const line = `FAIL ALONE ${file}: ${paths.join(' | ')}\n${why}`;
    problems.push(line);
    print(`[${done}/${total}] ${line}`);
  });

  print(
    `\n${total} test names checked in ${((performance.now() - started) / 1000).toFixed(0)} s; ` +
      `${problems.length} fail alone, ${notes.length} names shared by several tests`,
  );
  for (const problem of problems) print(problem);
  for (const note of notes) print(note);
  return problems.length === 0 ? 0 : 1;
}

/** Each file run whole, one at a time, with its process tree's CPU time (user + system) and wall time. */
async function measureTimes(files: string[]): Promise<number> {
  const directory = mkdtempSync(join(tmpdir(), 'test-times-'));
  const rows: { file: string; cpu: number; wall: number; ok: boolean }[] = [];
  try {
    for (const file of files) {
      const timeFile = join(directory, 'time');
      const run = await runNode(testArgs(file), timeFile);
      const [user = NaN, system = NaN, wall = NaN] = readFileSync(timeFile, 'utf8')
        .trim()
        .split('\n')
        .at(-1)!
        .split(' ')
        .map(Number);
      rows.push({ file, cpu: user + system, wall, ok: run.code === 0 });
      print(`${(user + system).toFixed(2).padStart(7)} s CPU ${wall.toFixed(2).padStart(7)} s wall  ${file}`);
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  const cpu = rows.reduce((sum, row) => sum + row.cpu, 0);
  const wall = rows.reduce((sum, row) => sum + row.wall, 0);
  print(`\nslowest files by CPU:`);
  for (const row of [...rows].sort((a, b) => b.cpu - a.cpu).slice(0, 15)) {
    print(`${row.cpu.toFixed(2).padStart(7)} s CPU ${row.wall.toFixed(2).padStart(7)} s wall  ${row.file}`);
  }
  print(
    `\n${rows.length} files: ${cpu.toFixed(1)} s CPU in all (${(cpu / 2).toFixed(1)} s on two quiet cores), ` +
      `${wall.toFixed(1)} s wall one file at a time`,
  );
  const failed = rows.filter((row) => !row.ok);
  for (const row of failed) print(`FAILED ${row.file}`);
  return failed.length === 0 ? 0 : 1;
}

const args = process.argv.slice(2);
const times = args.includes('--times');
const jobsAt = args.indexOf('--jobs');
const jobs = jobsAt >= 0 ? Number(args[jobsAt + 1]) : 2;
const paths = args.filter((arg, i) => !arg.startsWith('--') && !(jobsAt >= 0 && i === jobsAt + 1));
const files = testFiles(paths);
const build = args.includes('--tsx') ? undefined : await buildTests();
if (build) load = (file) => ['--enable-source-maps', build.compiled(file)];
try {
  process.exitCode = times ? await measureTimes(files) : await checkAlone(files, jobs);
} finally {
  build?.dispose();
}
