// Where a member's main thread spends its CPU per registration, one member against two: reads the V8
// profiles `bench/amf-set-scale.ts --cpu-prof DIR` leaves (one per member and phase, the member's whole
// life) and keeps the samples inside each phase's measured interval (DIR/r<round>-<members>m.json), so
// start-up and warm-up are left out. Each function's self time and inclusive time (counted once per
// sample however often it is on the stack) in ms per registration the member served; the bundle's
// positions are mapped to their sources through its linked source maps, so functions group by source
// file. `(idle)` samples are the thread waiting, not CPU, and are left out. A sample is wall time: on a
// loaded machine a thread runnable but not running is sampled too, so compare the shares (the
// percentages of each phase's sampled total) more than the milliseconds.
// Run: npx tsx bench/cpu-profile-compare.ts DIR [--top N (30)] [--round N (every round, summed)]
//      [--focus REGEX]: the callers (8 frames up) of the functions whose name and source match REGEX instead.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '30' }, round: { type: 'string' }, focus: { type: 'string' } },
});
const dir = positionals[0];
if (dir === undefined) {
  process.stderr.write('usage: npx tsx bench/cpu-profile-compare.ts DIR [--top N] [--round N]\n');
  process.exit(2);
}
const TOP = Number(values.top);
const FOCUS = values.focus === undefined ? undefined : new RegExp(values.focus);

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}
interface PhaseFile {
  members: number;
  round: number;
  window: [number, number];
  served: number[];
}

// A source map's mappings, decoded per generated line: [generated column, source index, source line].
type Segments = [number, number, number][][];
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function decodeMappings(mappings: string): Segments {
  const lines: Segments = [];
  let source = 0;
  let sourceLine = 0;
  for (const line of mappings.split(';')) {
    const segments: [number, number, number][] = [];
    let column = 0;
    for (const segment of line.split(',')) {
      if (segment === '') continue;
      const fields: number[] = [];
      let value = 0;
      let shift = 0;
      for (const char of segment) {
        const digit = B64.indexOf(char);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += fields[0] ?? 0;
      if (fields.length >= 4) {
        source += fields[1]!;
        sourceLine += fields[2]!;
        segments.push([column, source, sourceLine]);
      }
    }
    lines.push(segments);
  }
  return lines;
}

const maps = new Map<string, { sources: string[]; lines: Segments } | undefined>();
/** `file:line` of the source a bundle position came from, or the bundle's own position. */
function where(frame: CallFrame): string {
  if (!frame.url.startsWith('file://')) return frame.url === '' ? '' : frame.url;
  const path = fileURLToPath(frame.url);
  if (!maps.has(path)) {
    const mapPath = `${path}.map`;
    if (!existsSync(mapPath)) maps.set(path, undefined);
    else {
      const map = JSON.parse(readFileSync(mapPath, 'utf8')) as { sources: string[]; mappings: string };
      maps.set(path, { sources: map.sources, lines: decodeMappings(map.mappings) });
    }
  }
  const map = maps.get(path);
  const own = `${path.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}`;
  const segments = map?.lines[frame.lineNumber];
  if (map === undefined || segments === undefined || segments.length === 0) return own;
  let found = segments[0]!;
  for (const segment of segments) if (segment[0] <= frame.columnNumber) found = segment;
  const source = map.sources[found[1]]!.replace(/^(\.\.\/)+/, '');
  return `${source}:${found[2] + 1}`;
}

interface Tally {
  /** Sampled microseconds by function (self), by function (inclusive) and by source file (self). */
  self: Map<string, number>;
  inclusive: Map<string, number>;
  files: Map<string, number>;
  /** With --focus: the chains of callers of a matching function. */
  callers: Map<string, number>;
  total: number;
}
const tally = (): Tally => ({
  self: new Map(),
  inclusive: new Map(),
  files: new Map(),
  callers: new Map(),
  total: 0,
});
const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);

/** Adds the samples of `profile` within `window`, each weighted by `weight` (1 / registrations served). */
function addProfile(into: Tally, profile: CpuProfile, window: [number, number], weight: number): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = new Map<number, string>();
  const name = (id: number): string => {
    let text = label.get(id);
    if (text === undefined) {
      const frame = byId.get(id)!.callFrame;
      text = `${frame.functionName || '(anonymous)'} ${where(frame)}`.trim();
      label.set(id, text);
    }
    return text;
  };
  let time = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    time += delta;
    if (time < window[0] || time > window[1]) return;
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') return;
    const us = delta * weight;
    into.total += us;
    add(into.self, name(id), us);
    add(into.files, where(frame).replace(/:\d+$/, '') || frame.functionName, us);
    const seen = new Set<string>();
    let chain: string[] | undefined;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const key = name(at);
      if (chain === undefined && FOCUS?.test(key)) chain = [];
      if (chain !== undefined && chain.length < 9) chain.push(key);
      if (seen.has(key)) continue;
      seen.add(key);
      add(into.inclusive, key, us);
    }
    if (chain !== undefined) add(into.callers, chain.join('\n      <- '), us);
  });
}

const phases = readdirSync(dir)
  .filter((f) => /^r\d+-\d+m\.json$/.test(f))
  .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as PhaseFile)
  .filter((p) => values.round === undefined || p.round === Number(values.round));
/** Per registration: every member's samples over the registrations it served, averaged over members and rounds. */
const byMembers = new Map<number, Tally>();
for (const phase of phases) {
  const into = byMembers.get(phase.members) ?? tally();
  byMembers.set(phase.members, into);
  const rounds = phases.filter((p) => p.members === phase.members).length;
  phase.served.forEach((served, index) => {
    const memberDir = join(dir, `r${phase.round}-${phase.members}m-${index}`);
    const file = readdirSync(memberDir).find((f) => f.endsWith('.cpuprofile'));
    if (file === undefined) throw new Error(`no profile in ${memberDir} (did the member exit cleanly?)`);
    const profile = JSON.parse(readFileSync(join(memberDir, file), 'utf8')) as CpuProfile;
    addProfile(into, profile, phase.window, 1 / served / phase.served.length / rounds);
  });
}

const one = byMembers.get(1);
const two = byMembers.get(2);
if (one === undefined || two === undefined) throw new Error('needs a one-member and a two-member phase');
const ms = (us: number | undefined): string => ((us ?? 0) / 1000).toFixed(3).padStart(7);
const say = (line: string): void => void process.stdout.write(`${line}\n`);
const share = (us: number, total: number): string => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
function table(title: string, a: Map<string, number>, b: Map<string, number>): void {
  say(`\n${title}: ms per registration and share, one member | two members (each) | difference`);
  const keys = new Set([...a.keys(), ...b.keys()]);
  const rows = [...keys]
    .map((k): [string, number, number] => [k, a.get(k) ?? 0, b.get(k) ?? 0])
    .sort((x, y) => Math.abs(y[2] - y[1]) - Math.abs(x[2] - x[1]))
    .slice(0, TOP);
  for (const [k, x, y] of rows)
    say(`${ms(x)} ${share(x, one!.total)} ${ms(y)} ${share(y, two!.total)} ${ms(y - x)}  ${k.slice(0, 150)}`);
}
if (FOCUS !== undefined) {
  for (const [members, t] of [
    [1, one],
    [2, two],
  ] as const) {
    say(`\n${members} member(s): callers of /${values.focus}/, ms per registration`);
    for (const [chain, us] of [...t.callers].sort((a, b) => b[1] - a[1]).slice(0, TOP))
      say(`${ms(us)}  ${chain}`);
  }
  process.exit(0);
}
say(
  `main thread, sampled (idle left out): one member ${ms(one.total)} ms/reg, two members ${ms(two.total)} ms/reg`,
);
table('by source file (self)', one.files, two.files);
table('by function (self)', one.self, two.self);
table('by function (inclusive)', one.inclusive, two.inclusive);
