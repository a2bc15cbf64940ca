/**
 * Runs test files with Node's test runner from JavaScript compiled once (scripts/test-build.ts).
 *
 *   node --import tsx scripts/run-tests.ts [--concurrency 2] [file or directory ...]
 *
 * Without paths it runs the fast suite: every `test/**\/*.test.ts` except `test/system/` and
 * `test/process/` (those start processes, guests and peers of their own: `npm run test:system`).
 * New test files are picked up by that walk. Each file still runs in a process of its own, as
 * `node --test` does; the working directory stays the checkout. The exit code is the runner's.
 */
import { spawn } from 'node:child_process';
import { ROOT, buildTests, testFiles } from './test-build.ts';

async function main(args: string[]): Promise<number> {
  const at = args.indexOf('--concurrency');
  const concurrency = at >= 0 ? Number(args[at + 1]) : 2;
  const files = testFiles(args.filter((arg, i) => !arg.startsWith('--') && !(at >= 0 && i === at + 1)));
  const tests = await buildTests();
  try {
    const child = spawn(
      process.execPath,
      [
        '--test',
        '--test-reporter=spec',
        `--test-concurrency=${concurrency}`,
        ...files.map((file) => tests.compiled(file)),
      ],
      { cwd: ROOT, stdio: 'inherit' },
    );
    return await new Promise<number>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    });
  } finally {
    tests.dispose();
  }
}

process.exitCode = await main(process.argv.slice(2));
