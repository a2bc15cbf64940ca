/** How many failing tests a lane's summary names; the rest are counted. */
const MOST_NAMED = 50;

/** The most lines of one test's error that a summary repeats. */
const ERROR_LINES = 8;

/**
 * A failing test's error from `from` on: its message (an assertion's expected and actual values) and
 * its first stack frame, which names the line of the test; blank lines dropped, at most ERROR_LINES.
 */
function errorLines(lines: string[], from: number): string[] {
  const picked: string[] = [];
  for (let index = from; index < lines.length && picked.length < ERROR_LINES; index++) {
    const line = lines[index] ?? '';
    if (line.startsWith('test at ') || /^\s*(ℹ |> npm run )/.test(line)) break;
    if (line.trim() === '') continue;
    picked.push(`  ${line.trim()}`);
    if (/^\s+at /.test(line)) break;
  }
  return picked;
}

/**
 * The failing tests a log of Node's spec reporter names in its closing "failing tests" blocks (one per
 * test process that failed): for each, where it is, its name, and its error up to its first stack frame. From a
 * reporter without that block (TAP), the "not ok" lines.
 */
export function failingTests(log: string): string[] {
  const lines = log.split('\n');
  const named: string[] = [];
  let inBlock = false;
  for (const [index, line] of lines.entries()) {
    if (/^\s*✖ failing tests:/.test(line)) inBlock = true;
    else if (inBlock && /^\s*(ℹ |> npm run )/.test(line)) inBlock = false;
    else if (inBlock && line.startsWith('test at ')) {
      const name = lines[index + 1] ?? '';
      named.push([line, name, ...errorLines(lines, index + 2)].join('\n'));
    }
  }
  const found = named.length > 0 ? named : lines.filter((line) => /^\s*not ok \d/.test(line));
  return found.length > MOST_NAMED
    ? [...found.slice(0, MOST_NAMED), `… and ${found.length - MOST_NAMED} more, in the lane's output above`]
    : found;
}
