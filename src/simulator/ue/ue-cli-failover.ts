import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import type { MultiAmfGnb } from '../gnb-amfs.ts';
import type { Continuation, NasTally } from './set-failover.ts';
import { continuationLine, continued, continueOnPeer, noteBefore } from './set-failover.ts';
import type { SimulatedUe } from './simulated-ue.ts';
import type { UeSessions } from './ue-sessions.ts';

/**
 * `npm run sim -- ue --amf A --amf B ... --scenario failover` (docs/simulator.md, "An AMF set: the
 * failover scenario"): with the UEs registered (and their sessions up), it waits until a gNB finds an
 * association lost (the operator stops the member serving the UEs: `kill -9`), waits `resumeAfterMs`,
 * then every UE sends its next NAS message (a Service Request from idle, routed by its 5G-S-TMSI to the
 * backup AMF) and one line per UE says what happened: which AMF continued it, same 5G-GUTI or not,
 * Registration or authentication or none, each session's address kept, and traffic again with --ping.
 */

const exec = promisify(execFile);

interface FailoverRun {
  nodes: readonly MultiAmfGnb[];
  ues: readonly SimulatedUe[];
  sessions: ReadonlyMap<SimulatedUe, UeSessions>;
  tally: NasTally;
  concurrency: number;
  resumeAfterMs: number;
  /** Pings this address from each UE's namespace before and after (with --tun-netns). */
  ping: { address: string; namespaceOf(ue: SimulatedUe): string; settled(): Promise<void> } | undefined;
  say(line: string): void;
  /** Resolves when the run is stopped (Ctrl-C) before a loss. */
  stopSignal: Promise<void>;
}

/** iputils' `ping` where it is on the PATH, else busybox's. */
function pingCommand(): string[] {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir !== '');
  return dirs.some((dir) => existsSync(join(dir, 'ping'))) ? ['ping'] : ['busybox', 'ping'];
}

/** One ping from a namespace; false when unanswered within 2 s. */
async function pingFrom(namespace: string, address: string): Promise<boolean> {
  try {
    await exec('ip', ['netns', 'exec', namespace, ...pingCommand(), '-c', '1', '-W', '2', address]);
    return true;
  } catch {
    return false;
  }
}

/** Runs the scenario; resolves with the number of UEs that did not continue (or could not ping). */
export async function runFailover(run: FailoverRun): Promise<number> {
  const { nodes, ues } = run;
  const say = (line: string): void => run.say(line);
  let failures = 0;
  const traffic = async (ue: SimulatedUe): Promise<boolean> =>
    run.ping === undefined || (await pingFrom(run.ping.namespaceOf(ue), run.ping.address));
  if (run.ping !== undefined) {
    const before = await Promise.all(ues.map(traffic));
    const answered = before.filter(Boolean).length;
    failures += ues.length - answered;
    say(`failover: ${answered} of ${ues.length} UEs reach ${run.ping.address} before`);
  }
  const befores = ues.map((ue) => noteBefore(ue, run.sessions.get(ue)!, nodeOf(nodes, ue), run.tally));
  say('failover: waiting for an association to be lost (stop the AMF serving the UEs, e.g. kill -9)');
  const lost = await firstLoss(nodes, run.stopSignal);
  if (lost === undefined) {
    say('failover: stopped before any association was lost');
    return failures + 1;
  }
  say(`failover: ${lost.node}: association to AMF ${lost.index + 1} lost: ${lost.why}`);
  if (run.resumeAfterMs > 0) {
    say(`failover: the UEs' next NAS messages in ${run.resumeAfterMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, run.resumeAfterMs));
  }
  const started = performance.now();
  const continuations = await continueOnPeer(befores, (ue) => nodeOf(nodes, ue), run.tally, run.concurrency);
  await run.ping?.settled();
  const moved = continuations.filter((c) => c.before.servedBy !== c.servedBy);
  let reached = 0;
  for (const c of continuations) {
    const ue = ues.find((u) => u.imsi === c.imsi)!;
    const ok = continued(c);
    const pinged = ok && (await traffic(ue));
    if (pinged) reached++;
    say(`${continuationLine(c)}${run.ping === undefined ? '' : pinged ? ', traffic again' : ', no traffic'}`);
    if (!ok || !pinged) failures++;
  }
  const ms = Math.round(performance.now() - started);
  say(summary(continuations, moved.length, run.ping === undefined ? undefined : reached, ms));
  return failures;
}

function summary(all: Continuation[], moved: number, reached: number | undefined, ms: number): string {
  const ok = all.filter(continued).length;
  const traffic = reached === undefined ? '' : `, ${reached} with traffic`;
  return `failover: ${ok} of ${all.length} UEs continued with no new Registration or authentication (${moved} on another AMF${traffic}) in ${ms} ms`;
}

function nodeOf(nodes: readonly MultiAmfGnb[], ue: SimulatedUe): MultiAmfGnb {
  return nodes.find((node) => node === ue.radio) ?? nodes[0]!;
}

/** The first association any node finds lost; undefined when stopped first. */
function firstLoss(
  nodes: readonly MultiAmfGnb[],
  stopSignal: Promise<void>,
): Promise<{ node: string; index: number; why: string } | undefined> {
  return new Promise((resolve) => {
    const stops: (() => void)[] = [];
    const done = (value: { node: string; index: number; why: string } | undefined): void => {
      for (const stop of stops) stop();
      resolve(value);
    };
    for (const node of nodes)
      stops.push(
        node.on((event) => {
          if (event.type === 'amf-down') done({ node: node.name, index: event.index, why: event.why });
        }),
      );
    void stopSignal.then(() => done(undefined));
  });
}
