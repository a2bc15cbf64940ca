/** How many failing tests a lane's summary names; the rest are counted. */
const MOST_NAMED = 50;

/**
 * The failing tests a log of Node's spec reporter names in its closing "failing tests" blocks (one per
 * test process that failed): for each, where it is, its name and the first line of its error. From a
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
      const error = (lines[index + 2] ?? '').trim();
      named.push(`${line}\n${name}${error ? `\n  ${error}` : ''}`);
    }
  }
  const found = named.length > 0 ? named : lines.filter((line) => /^\s*not ok \d/.test(line));
  return found.length > MOST_NAMED
    ? [...found.slice(0, MOST_NAMED), `… and ${found.length - MOST_NAMED} more, in the lane's output above`]
    : found;
}
