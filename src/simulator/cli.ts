import { UsageError, amfAddress, integer, planOrUsage } from './cli-arguments.ts';
import { parseArgs } from 'node:util';
import type { N2Transport, TransportAddress } from '../network/transport/n2-transport.ts';
import type { AmfDescription, Guami } from './amf-messages.ts';
import type { ClientTransportKind } from './client-transport.ts';
import { openClientTransport } from './client-transport.ts';
import type { GnbConfig, NgEnbVariant, RanNodeIdentity, Slice } from './gnb-config.ts';
import { NG_ENB_BITS, expectedRadioId } from './gnb-config.ts';
import type { BringUpResult } from './gnb-fleet.ts';
import { bringUp, createFleet, fleetConfigs } from './gnb-fleet.ts';
import { MultiAmfGnb } from './gnb-amfs.ts';
import type { GnbEvent, SimulatedGnb } from './gnb.ts';
import { runUeSimulator } from './ue/ue-cli.ts';

/**
 * `npm run sim -- gnb [options]` (scripts/sim.ts; `ue` runs ue/ue-cli.ts): simulated gNBs (or ng-eNBs) that connect to an AMF, run NG Setup and
 * say what happens, one line per PDU and per outcome. See docs/simulator.md.
 */

const USAGE = `usage: npm run sim -- gnb [options]
  --transport udp|raw|kernel   N2 transport (default udp)
  --amf <addr:port>            the AMF's SCTP address (default 127.0.0.1:38412; [v6 addr]:port); repeated:
                               an association and NG Setup with each AMF (an AMF set), each set up again
                               after a back-off when lost or refused
  --udp-port <n>               the AMFs' UDP encapsulation port, udp only (default 9899)
  --local <addr>               local address (default 127.0.0.1, :: for an IPv6 AMF)
  --count <n>                  how many nodes (default 1), all on one transport endpoint
  --mcc <ddd> --mnc <dd[d]>    PLMN of the node ids and of the tracking areas (default 001 01)
  --gnb-id <n>                 the first node id, decimal or 0x hex (default 1); node i gets id + i
  --id-bits <22..32>           gNB id length in bits (default 22)
  --ng-enb <macro|short-macro|long-macro>   simulate ng-eNBs of that id kind instead of gNBs
  --name <prefix>              names are <prefix>-1, <prefix>-2, ... (default gnb)
  --tac <n>                    a supported TAC, repeatable (default 1)
  --slice <sst[:sd]>           a supported slice, SD in hex, repeatable (default 1)
  --reset                      after NG Setup, send NG Reset (whole interface)
  --error-indication           after NG Setup, send Error Indication
  --garbage                    after NG Setup, send bytes that are not NGAP
  --further-associations       set up the further TNL associations each AMF offers
  --then <hold|shutdown|abort> after that: stay up until Ctrl-C (default), shut down or abort
  --timeout <ms>               how long to wait for each answer (default 5000)
  --quiet                      outcomes only, not every PDU
npm run sim -- ue --help: simulated UEs behind simulated gNBs
`;

interface Plan {
  transport: ClientTransportKind;
  /** One or more: several make each node a MultiAmfGnb. */
  amfs: TransportAddress[];
  udpPort: number;
  local: string;
  count: number;
  template: GnbConfig;
  namePrefix: string;
  reset: boolean;
  errorIndication: boolean;
  garbage: boolean;
  furtherAssociations: boolean;
  then: 'hold' | 'shutdown' | 'abort';
  timeoutMs: number;
  quiet: boolean;
}

function slice(text: string): Slice {
  const [sst = '', sd] = text.split(':');
  return {
    sst: integer(sst, 'SST', 0, 255),
    ...(sd === undefined ? {} : { sd: integer(`0x${sd}`, 'SD', 0, 0xffffff) }),
  };
}

function plan(argv: readonly string[]): Plan {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      transport: { type: 'string', default: 'udp' },
      amf: { type: 'string', multiple: true, default: ['127.0.0.1:38412'] },
      'udp-port': { type: 'string', default: '9899' },
      local: { type: 'string' },
      count: { type: 'string', default: '1' },
      mcc: { type: 'string', default: '001' },
      mnc: { type: 'string', default: '01' },
      'gnb-id': { type: 'string', default: '1' },
      'id-bits': { type: 'string', default: '22' },
      'ng-enb': { type: 'string' },
      name: { type: 'string', default: 'gnb' },
      tac: { type: 'string', multiple: true, default: ['1'] },
      slice: { type: 'string', multiple: true, default: ['1'] },
      reset: { type: 'boolean', default: false },
      'error-indication': { type: 'boolean', default: false },
      garbage: { type: 'boolean', default: false },
      'further-associations': { type: 'boolean', default: false },
      then: { type: 'string', default: 'hold' },
      timeout: { type: 'string', default: '5000' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) throw new UsageError('');
  if (positionals[0] !== 'gnb' || positionals.length !== 1) throw new UsageError('the command is: gnb');
  const transport = values.transport;
  if (transport !== 'udp' && transport !== 'raw' && transport !== 'kernel') {
    throw new UsageError(`--transport must be udp, raw or kernel, got ${transport}`);
  }
  const then = values.then;
  if (then !== 'hold' && then !== 'shutdown' && then !== 'abort') {
    throw new UsageError(`--then must be hold, shutdown or abort, got ${then}`);
  }
  if (!/^\d{3}$/.test(values.mcc) || !/^\d{2,3}$/.test(values.mnc)) {
    throw new UsageError(`bad PLMN ${values.mcc}-${values.mnc}`);
  }
  const plmn = { mcc: values.mcc, mnc: values.mnc };
  const variant = values['ng-enb'];
  if (variant !== undefined && !(variant in NG_ENB_BITS)) {
    throw new UsageError(`--ng-enb must be macro, short-macro or long-macro, got ${variant}`);
  }
  const count = integer(values.count, '--count', 1, 10_000);
  const first = integer(values['gnb-id'], '--gnb-id', 0, 2 ** 32 - 1);
  const node: RanNodeIdentity =
    variant === undefined
      ? { kind: 'gNB', value: first, bitLength: integer(values['id-bits'], '--id-bits', 22, 32) }
      : { kind: 'ng-eNB', variant: variant as NgEnbVariant, value: first };
  const slices = values.slice.map(slice);
  const amfs = values.amf.map(amfAddress);
  return {
    transport,
    amfs,
    udpPort: integer(values['udp-port'], '--udp-port', 1, 65535),
    local: values.local ?? (amfs[0]?.address.includes(':') === true ? '::' : '127.0.0.1'),
    count,
    template: {
      plmn,
      node,
      name: values.name,
      supportedTas: values.tac.map((tac) => ({
        tac: integer(tac, '--tac', 0, 0xffffff),
        plmns: [{ plmn, slices }],
      })),
    },
    namePrefix: values.name,
    reset: values.reset,
    errorIndication: values['error-indication'],
    garbage: values.garbage,
    furtherAssociations: values['further-associations'],
    then,
    timeoutMs: integer(values.timeout, '--timeout', 1, 600_000),
    quiet: values.quiet,
  };
}

/** A GUAMI as the command says it, with its backup AMF when named. */
function guamiText(g: Guami): string {
  const backup = g.backupAmfName === undefined ? '' : ` (backup ${g.backupAmfName})`;
  return `${g.plmn.mcc}-${g.plmn.mnc} region ${g.regionId} set ${g.setId} pointer ${g.pointer}${backup}`;
}

function describeAmf(amf: AmfDescription): string {
  const guamis = amf.servedGuamis.map(guamiText).join(', ');
  const slices = amf.plmnSupport
    .map(
      (p) =>
        `${p.plmn.mcc}-${p.plmn.mnc} [${p.slices.map((s) => (s.sd === undefined ? `${s.sst}` : `${s.sst}:${s.sd.toString(16).padStart(6, '0')}`)).join(' ')}]`,
    )
    .join(', ');
  return `AMF ${amf.name ?? '?'}, capacity ${amf.relativeCapacity ?? '?'}, GUAMI ${guamis}, slices ${slices}`;
}

function printer(gnb: SimulatedGnb, quiet: boolean, say: (line: string) => void): (event: GnbEvent) => void {
  const who = gnb.config.name ?? expectedRadioId(gnb.config);
  return (event) => {
    switch (event.type) {
      case 'up':
        if (!quiet) {
          const local = event.up.localAddresses[0];
          say(`${who}: association up${local === undefined ? '' : ` from ${local.address}:${local.port}`}`);
        }
        return;
      case 'sent':
      case 'received':
        if (!quiet) {
          const arrow = event.type === 'sent' ? '->' : '<-';
          say(
            `${who} ${arrow} ${event.exchange.messageType}${event.exchange.error === undefined ? '' : ` (${event.exchange.error})`}`,
          );
        }
        return;
      case 'ng-reset':
        say(`${who}: the AMF reset the NG interface (${event.cause ?? 'no cause'}); acknowledged`);
        return;
      case 'amf-configuration-update': {
        const further = gnb.furtherAssociations.map((f) => `${f.endpoint.address}:${f.endpoint.port}`);
        say(
          `${who}: AMF configuration update acknowledged: ${describeAmf(event.amf)}` +
            (further.length === 0 ? '' : `; further TNL associations with ${further.join(', ')}`),
        );
        return;
      }
      case 'further-association-ended':
        say(
          `${who}: further TNL association with ${event.association.endpoint.address}:${event.association.endpoint.port} ended`,
        );
        return;
      case 'error-indication':
        say(`${who}: Error Indication from the AMF: ${event.report.cause ?? 'no cause'}`);
        return;
      case 'amf-status-indication':
        say(
          `${who}: AMF Status Indication: unavailable ${event.unavailable.map((g) => `${guamiText(g)}${g.timerApproach ? ' (timer approach)' : ''}`).join(', ')}`,
        );
        return;
      case 'unreadable':
        say(
          `${who}: ${event.exchange.messageType} from the AMF not read (abstract syntax error); not acted on`,
        );
        return;
      case 'restart':
        say(`${who}: the AMF restarted the association; NG Setup is needed again`);
        return;
      case 'closed': {
        const { end } = event;
        say(
          `${who}: association ended: ${end.reason}${end.reason === 'communication-lost' ? ` (${end.lost}${end.cause === undefined ? '' : `: ${end.cause}`})` : end.reason === 'connect-failed' ? ` (${end.error})` : ''}`,
        );
        return;
      }
    }
  };
}

function outcomeLine(gnb: SimulatedGnb, result: BringUpResult): string {
  const who = `${gnb.config.name ?? ''} (${expectedRadioId(gnb.config)})`;
  switch (result.outcome) {
    case 'accepted':
      return `${who}: NG Setup accepted by ${describeAmf(result.amf)}`;
    case 'refused':
      return `${who}: NG Setup refused: ${result.failure.cause ?? 'no cause'}${result.failure.timeToWait === undefined ? '' : `, time to wait ${String(result.failure.timeToWait)}`}`;
    case 'error':
      return `${who}: ${result.error}`;
  }
}

/** What --error-indication, --garbage and --reset do on each association whose NG Setup was accepted. */
async function afterSetup(
  p: Plan,
  ready: readonly SimulatedGnb[],
  say: (line: string) => void,
): Promise<void> {
  await Promise.all(
    ready.map(async (gnb) => {
      // The AMF offers its further endpoints right after NG Setup: they are set up before anything else.
      if (p.furtherAssociations && gnb.furtherAssociations.length === 0) {
        const offered = await gnb
          .next((e) => (e.type === 'amf-configuration-update' && e.changes.tnlToAdd ? true : undefined))
          .catch(() => false);
        if (!offered) say(`${gnb.config.name ?? ''}: the AMF offered no further TNL association`);
      }
      if (p.errorIndication) gnb.errorIndication({ cause: { choice: 'misc', value: 'unspecified' } });
      if (p.garbage) gnb.sendBytes(Uint8Array.of(0xde, 0xad, 0xbe, 0xef));
      if (p.reset) {
        const reset = await gnb.ngReset({ choice: 'misc', value: 'om-intervention' }).catch((e: Error) => e);
        say(
          `${gnb.config.name ?? ''}: NG Reset ${reset instanceof Error ? `failed: ${reset.message}` : 'acknowledged'}`,
        );
      }
    }),
  );
}

/**
 * Several --amf: each node is a MultiAmfGnb with an association to every AMF, said per AMF (up, down
 * and the next try); holding, a lost association is set up again after its back-off.
 */
async function runWithAmfSet(
  p: Plan,
  transport: N2Transport,
  say: (line: string) => void,
  stopSignal: Promise<void>,
): Promise<number> {
  const amfText = (index: number): string => {
    const amf = p.amfs[index];
    return amf === undefined ? '?' : `AMF ${index + 1} (${amf.address}:${amf.port})`;
  };
  const [firstTa] = p.template.supportedTas;
  const nodes = fleetConfigs(p.template, p.count, p.namePrefix).map((config) => {
    const node = new MultiAmfGnb({
      config,
      transport,
      amfs: p.amfs.map((amf) => [amf]),
      // No UEs in this command: the cell only fills the node's UE side.
      cell: { plmn: config.plmn, nrCellIdentity: 1, tac: firstTa?.tac ?? 1 },
      local: { addresses: [p.local] },
      responseTimeoutMs: p.timeoutMs,
      furtherAssociations: p.furtherAssociations,
      onAssociation: (gnb) => gnb.on(printer(gnb, p.quiet, say)),
    });
    const who = config.name ?? expectedRadioId(config);
    node.on((event) => {
      if (event.type === 'amf-up')
        say(`${who}: ${amfText(event.index)}: NG Setup accepted by ${describeAmf(event.amf)}`);
      else if (event.type === 'amf-down')
        say(`${who}: ${amfText(event.index)}: ${event.why}; next try in ${event.delayMs} ms`);
      else if (event.type === 'guami-removed')
        say(`${who}: ${amfText(event.index)}: GUAMI ${guamiText(event.guami)} removed (timer approach)`);
    });
    return node;
  });
  const started = performance.now();
  await Promise.all(nodes.map((node) => node.start()));
  const ready = nodes.flatMap((node) => node.associations.filter((gnb) => gnb.state.kind === 'ready'));
  const total = nodes.length * p.amfs.length;
  say(`${ready.length} of ${total} associations accepted in ${Math.round(performance.now() - started)} ms`);
  await afterSetup(p, ready, say);
  if (p.then === 'hold') {
    say('holding the associations (each set up again when lost); Ctrl-C shuts them down');
    await stopSignal;
  }
  await Promise.all(nodes.map((node) => node.stop(p.then === 'abort' ? 'abort' : 'shutdown')));
  return ready.length === total ? 0 : 1;
}

/** Runs the command; resolves with the exit status. */
export async function runSimulator(
  argv: readonly string[],
  say: (line: string) => void,
  stopSignal: Promise<void>,
): Promise<number> {
  if (argv[0] === 'ue') return runUeSimulator(argv.slice(1), say, stopSignal);
  const planned = planOrUsage(plan, argv, USAGE, say);
  if ('status' in planned) return planned.status;
  const p = planned.plan;
  const transport = await openClientTransport(p.transport, {
    localAddress: p.local,
    peerUdpPort: p.udpPort,
    // An AMF that is not there is said within 1 + 2 + 4 + 8 s, not the 4 minutes of RFC 9260's 8 INITs.
    params: { maxInitRetransmits: 3 },
  });
  try {
    if (p.amfs.length > 1) return await runWithAmfSet(p, transport, say, stopSignal);
    const gnbs = createFleet({
      template: p.template,
      count: p.count,
      transport,
      amf: p.amfs,
      namePrefix: p.namePrefix,
      local: { addresses: [p.local] },
      responseTimeoutMs: p.timeoutMs,
      furtherAssociations: p.furtherAssociations,
    });
    for (const gnb of gnbs) gnb.on(printer(gnb, p.quiet, say));
    const started = performance.now();
    const results = await Promise.all(gnbs.map(bringUp));
    results.forEach((result, i) => say(outcomeLine(gnbs[i]!, result)));
    const accepted = results.filter((result) => result.outcome === 'accepted').length;
    say(`${accepted} of ${gnbs.length} accepted in ${Math.round(performance.now() - started)} ms`);
    await afterSetup(
      p,
      gnbs.filter((_, i) => results[i]?.outcome === 'accepted'),
      say,
    );
    if (p.then === 'hold') {
      say('holding the associations; Ctrl-C shuts them down');
      await Promise.race([stopSignal, Promise.all(gnbs.map((gnb) => gnb.closed))]);
    }
    await Promise.all(gnbs.map((gnb) => (p.then === 'abort' ? gnb.abort('simulator') : gnb.shutdown())));
    return accepted === gnbs.length ? 0 : 1;
  } finally {
    await transport.close();
  }
}
