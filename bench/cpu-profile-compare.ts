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
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { addProfile, tally, type CpuProfile, type Tally } from './cpu-profile-read.ts';

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

interface PhaseFile {
  members: number;
  round: number;
  window: [number, number];
  served: number[];
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
    addProfile(into, profile, phase.window, 1 / served / phase.served.length / rounds, FOCUS);
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
