// Where the service's main thread spends its CPU per handover against per registration: reads the V8
// profile `bench/handover.ts --cpu-prof DIR` leaves (the service's whole life) and keeps the samples of
// each phase's interval (DIR/phases.json), so start-up, sessions and the user plane are left out. Each
// function's and source file's ms per operation, the registration beside a handover round (default the
// last: the steady state), largest difference first. Samples are wall time (bench/cpu-profile-read.ts):
// compare the shares more than the milliseconds on a loaded machine.
// Run: npx tsx bench/handover-profile.ts DIR [--round N (the last)] [--top N (30)]
//      [--focus REGEX]: the callers (8 frames up) of the functions whose name and source match REGEX instead.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { addProfile, tally, type CpuProfile, type Tally } from './cpu-profile-read.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { round: { type: 'string' }, top: { type: 'string', default: '30' }, focus: { type: 'string' } },
});
const dir = positionals[0];
if (dir === undefined) {
  process.stderr.write(
    'usage: npx tsx bench/handover-profile.ts DIR [--round N] [--top N] [--focus REGEX]\n',
  );
  process.exit(2);
}
const TOP = Number(values.top);
const FOCUS = values.focus === undefined ? undefined : new RegExp(values.focus);

type Phases = Record<string, { window: [number, number]; count: number }>;
const phases = JSON.parse(readFileSync(join(dir, 'phases.json'), 'utf8')) as Phases;
const rounds = Object.keys(phases).filter((name) => /^handover\d+$/.test(name)).length;
const round = values.round === undefined ? rounds : Number(values.round);
// The main thread's profile: worker threads write theirs with a thread id above 0 (CPU.<date>.<time>.<pid>.<tid>.<seq>).
const file = readdirSync(dir).find((f) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(f));
if (file === undefined) throw new Error(`no main-thread profile in ${dir} (did the service exit cleanly?)`);
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;

function phase(name: string): Tally {
  const p = phases[name];
  if (p === undefined) throw new Error(`no phase ${name} in ${dir}/phases.json`);
  const into = tally();
  addProfile(into, profile, p.window, 1 / p.count, FOCUS);
  return into;
}
const registration = phase('registration');
const handover = phase(`handover${round}`);

const ms = (us: number | undefined): string => ((us ?? 0) / 1000).toFixed(3).padStart(7);
const say = (line: string): void => void process.stdout.write(`${line}\n`);
const share = (us: number, total: number): string => `${((100 * us) / total).toFixed(1).padStart(5)}%`;

if (FOCUS !== undefined) {
  for (const [title, t] of [
    ['registration', registration],
    [`handover round ${round}`, handover],
  ] as const) {
    say(`\n${title}: callers of /${values.focus}/, ms per operation`);
    for (const [chain, us] of [...t.callers].sort((a, b) => b[1] - a[1]).slice(0, TOP))
      say(`${ms(us)}  ${chain}`);
  }
  process.exit(0);
}
function table(title: string, a: Map<string, number>, b: Map<string, number>): void {
  say(`\n${title}: ms per operation and share, registration | handover round ${round} | difference`);
  const rows = [...new Set([...a.keys(), ...b.keys()])]
    .map((k): [string, number, number] => [k, a.get(k) ?? 0, b.get(k) ?? 0])
    .sort((x, y) => Math.abs(y[2] - y[1]) - Math.abs(x[2] - x[1]))
    .slice(0, TOP);
  for (const [k, x, y] of rows)
    say(
      `${ms(x)} ${share(x, registration.total)} ${ms(y)} ${share(y, handover.total)} ${ms(y - x)}  ${k.slice(0, 150)}`,
    );
}
say(
  `main thread, sampled (idle left out): registration ${ms(registration.total)} ms, ` +
    `handover round ${round} ${ms(handover.total)} ms`,
);
table('by source file (self)', registration.files, handover.files);
table('by function (self)', registration.self, handover.self);
table('by function (inclusive)', registration.inclusive, handover.inclusive);
