// Reading V8 CPU profiles (`node --cpu-prof`) of the service's bundle: each sample's function named by
// its source through the bundle's linked source maps, and the samples within an interval tallied per
// operation by function (self and inclusive, counted once per sample however often it is on the stack)
// and by source file. `(idle)` samples are the thread waiting, not CPU, and are left out. A sample is
// wall time: on a loaded machine a thread runnable but not running is sampled too.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
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
export function where(frame: CallFrame): string {
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

export interface Tally {
  /** Sampled microseconds by function (self), by function (inclusive) and by source file (self). */
  self: Map<string, number>;
  inclusive: Map<string, number>;
  files: Map<string, number>;
  /** With --focus: the chains of callers of a matching function. */
  callers: Map<string, number>;
  total: number;
}
export const tally = (): Tally => ({
  self: new Map(),
  inclusive: new Map(),
  files: new Map(),
  callers: new Map(),
  total: 0,
});
const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);

/**
 * Adds the samples of `profile` within `window` (µs, the profile's clock), each weighted by `weight` (1 /
 * operations served); with `focus`, the callers of the functions whose name and source match it.
 */
export function addProfile(
  into: Tally,
  profile: CpuProfile,
  window: [number, number],
  weight: number,
  focus?: RegExp,
): void {
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
      if (chain === undefined && focus?.test(key)) chain = [];
      if (chain !== undefined && chain.length < 9) chain.push(key);
      if (seen.has(key)) continue;
      seen.add(key);
      add(into.inclusive, key, us);
    }
    if (chain !== undefined) add(into.callers, chain.join('\n      <- '), us);
  });
}
