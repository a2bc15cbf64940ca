import { UsageError, amfAddress, integer, planOrUsage } from '../cli-arguments.ts';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { causeLabel } from '../../network/nas/causes.ts';
import type { TransportAddress } from '../../network/transport/n2-transport.ts';
import { DEFAULT_PARAMETERS, type SctpParameters } from '../../network/transport/sctp/sctp-config.ts';
import type { ClientTransportKind } from '../client-transport.ts';
import { openClientTransport } from '../client-transport.ts';
import type { GnbConfig, Slice } from '../gnb-config.ts';
import { MultiAmfGnb } from '../gnb-amfs.ts';
import { bringUp, createFleet, fleetConfigs } from '../gnb-fleet.ts';
import { GnbLocation, type GnbPositioning } from '../gnb-location.ts';
import { createGnbUserPlane } from '../user-plane/gnb-user-plane.ts';
import { carrySessions, type SessionTunnels } from '../user-plane/session-tunnels.ts';
import { GnbUes } from './gnb-ues.ts';
import type { ServingCell } from './ran-ue-messages.ts';
import { NasTally } from './set-failover.ts';
import type { RegistrationOutcome, SimulatedUe } from './simulated-ue.ts';
import { runFailover } from './ue-cli-failover.ts';
import type { SuciProtection } from './ue-config.ts';
import { ALL_ALGORITHMS } from './ue-config.ts';
import { createUes, withConcurrency } from './ue-fleet.ts';
import { validateUePositioning, type NrCellMeasurement, type UePositioning } from './ue-positioning.ts';
import { UeSessions, type EstablishmentOutcome, type UeIpType } from './ue-sessions.ts';
import type { SmsSendOutcome } from './ue-sms.ts';

/**
 * `npm run sim -- ue [options]` (scripts/sim.ts): simulated gNBs with simulated UEs behind them. The gNBs
 * complete NG Setup, then every UE registers (at most `--concurrency` at a time), optionally goes idle and
 * comes back with a service request, optionally establishes a PDU session (its user plane on a TUN device
 * in the UE's namespace with --tun-netns), then holds, deregisters or switches off. One line per NAS message
 * and per outcome, or outcomes only with --quiet; a summary with the registration rate. See
 * docs/simulator.md.
 */

const USAGE = `usage: npm run sim -- ue [options]
  --transport udp|raw|kernel   N2 transport (default udp)
  --amf <addr:port>            the AMF's SCTP address (default 127.0.0.1:38412; [v6 addr]:port); repeated:
                               each gNB has an association to every AMF (an AMF set), picks each new UE's
                               AMF by relative capacity and routes a UE's NAS by its GUAMI, to the backup
                               AMF when its own is lost (docs/simulator.md)
  --udp-port <n>               the AMFs' UDP encapsulation port, udp only (default 9899)
  --local <addr>               local address (default 127.0.0.1, :: for an IPv6 AMF)
  --gnbs <n>                   gNBs (default 1): ids from --gnb-id, names <--name>-1, ...
  --gnb-id <n> --name <prefix> the first gNB id (default 1) and the name prefix (default gnb)
  --mcc <ddd> --mnc <dd[d]>    the PLMN (default 001 01)
  --tac <n>                    the gNBs' TAC (default 1)
  --ues <n>                    UEs (default 1), spread over the gNBs
  --imsi <15 digits>           the first UE's IMSI (default 001010000000001); UE i gets IMSI + i
  --key <hex> --opc <hex>      K and OPc of every UE (128 bits each)
  --sqn <hex>                  SQN_MS the cards start with (48 bits, default 0)
  --suci null|A|B              SUCI protection scheme (default null)
  --hn-key <hex> --hn-key-id <n>  the home network public key and its id, for A and B
  --imeisv <16 digits>         the first UE's IMEISV (default 3569380356438091); serial + i
  --slice <sst[:sd]>           requested S-NSSAI, repeatable (default 1)
  --concurrency <n>            registrations in flight at once (default 100)
  --idle                       after registering, the gNB asks for the UE's release (user inactivity)
  --service-request            after --idle, come back with a service request
  --session IPv4|IPv6|IPv4v6   then establish PDU session 1 of this type
  --dnn <name>                 the session's DNN (default: the network's choice)
  --n3 <addr>                  the gNB's N3 (GTP-U) address (default 127.0.0.1)
  --tun-netns <prefix>         carry each session on a TUN device in namespace <prefix><i> (UE i from 1;
                               made beforehand with ip netns add; root; one gNB; IPv4 addresses only)
  --scenario failover          after that (several --amf): wait until an association is lost (kill -9 the
                               AMF serving the UEs), then each UE's next NAS message; one line per UE: which
                               AMF continued it, same 5G-GUTI, no Registration or authentication, sessions
  --sctp-heartbeat <ms>        SCTP HB.interval towards the AMFs (udp, raw; default 30000), with
  --sctp-rto-max <ms>          RTO.Max (default 60000; RTO.Min and RTO.Initial no higher) and
  --sctp-max-retrans <n>       Association.Max.Retrans and Path.Max.Retrans (default 10 and 5): how soon
                               a gNB finds a dead AMF (RFC 9260 8.1, 8.3; docs/simulator.md)
  --resume-after <ms>          wait this long after the loss before the UEs' next NAS messages (default 0)
  --ping <addr>                with --tun-netns: each UE pings this address before and after the failover
  --then hold|deregister|switch-off   after that: stay until Ctrl-C (default), deregister, or switch off
  --fail-ics                   the gNB answers Initial Context Setup with a failure
  --strict                     the gNBs act as strict commercial gNBs (docs/interop.md): stream ids checked,
                               a standalone PDU Session Resource Setup before the UE's context refused
  --silent-after <message>     the UEs stop answering after this NAS message (e.g. authenticationRequest)
  --timeout <ms>               NG Setup answer wait (default 5000)
  --quiet                      outcomes only, not every NAS message
 SMS over NAS (docs/sms.md):
  --sms                        the UEs ask for SMS over NAS and print every message they receive
  --sms-to <msisdn>            after the steps above each UE sends --text to this MSISDN (implies --sms)
  --text <text>                what --sms-to sends (default "hello"); split into parts when long
  --status-report              ask for a status report of each message sent
 location (what the devices answer over LPP, what the gNBs measure over NRPPa; docs/simulator.md):
  --positioning <file.json>    every UE's positioning configuration (UePositioning as JSON)
  --gnss <lat>,<lon>[,<m>]     a GNSS fix (WGS-84 degrees, uncertainty in metres, default 10)
  --nr-cell <pci>:<ssb-arfcn>:<rsrp dBm>:<rsrq dB>[:<nci hex>]
                               a cell the UE measures for NR E-CID, serving first; repeatable
  --radio <m>[:<bearing deg>]  the UE's distance from the antenna (and bearing) as its gNB measures it
  --antenna <lat>,<lon>        the gNBs' antenna position, sent with their E-CID measurements
`;

interface Plan {
  transport: ClientTransportKind;
  /** One, or several: each gNB is then a MultiAmfGnb. */
  amfs: TransportAddress[];
  udpPort: number;
  local: string;
  gnbs: number;
  gnbId: number;
  name: string;
  plmn: { mcc: string; mnc: string };
  tac: number;
  ues: number;
  imsi: string;
  key: Buffer;
  opc: Buffer;
  sqn: Buffer;
  suci: SuciProtection;
  imeisv: string;
  slices: Slice[];
  concurrency: number;
  idle: boolean;
  serviceRequest: boolean;
  session: UeIpType | undefined;
  dnn: string | undefined;
  n3: string;
  tunNetns: string | undefined;
  then: 'hold' | 'deregister' | 'switch-off';
  scenario: 'failover' | undefined;
  resumeAfterMs: number;
  /** The userland SCTP's parameters given on the command line. */
  sctp: Partial<SctpParameters>;
  ping: string | undefined;
  failIcs: boolean;
  strict: boolean;
  silentAfter: string | undefined;
  timeoutMs: number;
  quiet: boolean;
  /** SMS over NAS asked for; what each UE sends, to whom, and whether it asks for a status report. */
  sms: boolean;
  smsTo: string | undefined;
  text: string;
  statusReport: boolean;
  /** Every UE's positioning configuration; undefined: devices without positioning. */
  positioning: UePositioning | undefined;
  /** The gNBs' location side (every gNB answers Location Reporting Control and E-CID). */
  gnbPositioning: GnbPositioning;
}

function hexBytes(text: string, what: string, bytes: number): Buffer {
  if (!new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(text))
    throw new UsageError(`${what} must be ${bytes * 2} hex digits, got ${text}`);
  return Buffer.from(text, 'hex');
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
      gnbs: { type: 'string', default: '1' },
      'gnb-id': { type: 'string', default: '1' },
      name: { type: 'string', default: 'gnb' },
      mcc: { type: 'string', default: '001' },
      mnc: { type: 'string', default: '01' },
      tac: { type: 'string', default: '1' },
      ues: { type: 'string', default: '1' },
      imsi: { type: 'string', default: '001010000000001' },
      key: { type: 'string' },
      opc: { type: 'string' },
      sqn: { type: 'string', default: '000000000000' },
      suci: { type: 'string', default: 'null' },
      'hn-key': { type: 'string' },
      'hn-key-id': { type: 'string', default: '1' },
      imeisv: { type: 'string', default: '3569380356438091' },
      slice: { type: 'string', multiple: true, default: ['1'] },
      concurrency: { type: 'string', default: '100' },
      idle: { type: 'boolean', default: false },
      'service-request': { type: 'boolean', default: false },
      session: { type: 'string' },
      dnn: { type: 'string' },
      n3: { type: 'string', default: '127.0.0.1' },
      'tun-netns': { type: 'string' },
      then: { type: 'string', default: 'hold' },
      scenario: { type: 'string' },
      'resume-after': { type: 'string', default: '0' },
      'sctp-heartbeat': { type: 'string' },
      'sctp-rto-max': { type: 'string' },
      'sctp-max-retrans': { type: 'string' },
      ping: { type: 'string' },
      'fail-ics': { type: 'boolean', default: false },
      strict: { type: 'boolean', default: false },
      'silent-after': { type: 'string' },
      timeout: { type: 'string', default: '5000' },
      quiet: { type: 'boolean', default: false },
      sms: { type: 'boolean', default: false },
      'sms-to': { type: 'string' },
      text: { type: 'string', default: 'hello' },
      'status-report': { type: 'boolean', default: false },
      positioning: { type: 'string' },
      gnss: { type: 'string' },
      'nr-cell': { type: 'string', multiple: true },
      radio: { type: 'string' },
      antenna: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) throw new UsageError('');
  if (positionals.length !== 0) throw new UsageError(`unexpected ${positionals.join(' ')}`);
  const transport = values.transport;
  if (transport !== 'udp' && transport !== 'raw' && transport !== 'kernel')
    throw new UsageError(`--transport must be udp, raw or kernel, got ${transport}`);
  const then = values.then;
  if (then !== 'hold' && then !== 'deregister' && then !== 'switch-off')
    throw new UsageError(`--then must be hold, deregister or switch-off, got ${then}`);
  if (!/^\d{3}$/.test(values.mcc) || !/^\d{2,3}$/.test(values.mnc))
    throw new UsageError(`bad PLMN ${values.mcc}-${values.mnc}`);
  if (!/^\d{15}$/.test(values.imsi) || !values.imsi.startsWith(values.mcc + values.mnc))
    throw new UsageError(`--imsi must be 15 digits of PLMN ${values.mcc}-${values.mnc}, got ${values.imsi}`);
  if (!/^\d{16}$/.test(values.imeisv))
    throw new UsageError(`--imeisv must be 16 digits, got ${values.imeisv}`);
  if (values.key === undefined || values.opc === undefined)
    throw new UsageError('--key and --opc are required');
  const scheme = values.suci;
  let suci: SuciProtection;
  if (scheme === 'null') suci = { scheme: 'null' };
  else if (scheme === 'A' || scheme === 'B') {
    if (values['hn-key'] === undefined) throw new UsageError(`--suci ${scheme} needs --hn-key`);
    suci = {
      scheme,
      homeNetworkPublicKey: hexBytes(values['hn-key'], '--hn-key', scheme === 'A' ? 32 : 33),
      homeNetworkPublicKeyId: integer(values['hn-key-id'], '--hn-key-id', 0, 255),
    };
  } else throw new UsageError(`--suci must be null, A or B, got ${scheme}`);
  const session = values.session;
  if (session !== undefined && session !== 'IPv4' && session !== 'IPv6' && session !== 'IPv4v6')
    throw new UsageError(`--session must be IPv4, IPv6 or IPv4v6, got ${session}`);
  if (!isIP(values.n3)) throw new UsageError(`--n3 must be an IP address, got ${values.n3}`);
  const tunNetns = values['tun-netns'];
  if (tunNetns !== undefined) {
    if (session === undefined) throw new UsageError('--tun-netns needs --session');
    // One user plane (N3 socket) for one gNB: each gNB allocates its downlink TEIDs on its own.
    if (integer(values.gnbs, '--gnbs', 1, 10_000) !== 1)
      throw new UsageError('--tun-netns takes one gNB (--gnbs 1)');
    if (!/^[A-Za-z0-9_.-]{1,24}$/.test(tunNetns))
      throw new UsageError(`--tun-netns must be 1 to 24 letters, digits, "_", "." or "-", got ${tunNetns}`);
  }
  const smsTo = values['sms-to'];
  // An MSISDN as decisions 23 stores it: E.164 digits, a leading "+" dropped.
  const to = smsTo?.replace(/^\+/, '');
  if (to !== undefined && !/^[1-9]\d{0,14}$/.test(to))
    throw new UsageError(`--sms-to must be an MSISDN (E.164 digits, at most 15), got ${smsTo}`);
  const amfs = values.amf.map(amfAddress);
  const amf = amfs[0]!;
  const positioning = positioningOf(values);
  const scenario = values.scenario;
  if (scenario !== undefined && scenario !== 'failover')
    throw new UsageError(`--scenario must be failover, got ${scenario}`);
  if (scenario === 'failover' && amfs.length < 2)
    throw new UsageError('--scenario failover needs several --amf');
  if (values.ping !== undefined && (tunNetns === undefined || !isIP(values.ping)))
    throw new UsageError('--ping needs an IP address and --tun-netns');
  // The location side and the strict checks are per association: one AMF.
  if (amfs.length > 1 && (values.strict || positioning !== undefined))
    throw new UsageError('--strict and the location options take one --amf');
  const serving = positioning?.nrCells?.[0];
  const antenna = values.antenna === undefined ? undefined : coordinates(values.antenna, '--antenna', 2);
  return {
    transport,
    amfs,
    udpPort: integer(values['udp-port'], '--udp-port', 1, 65535),
    local: values.local ?? (amf.address.includes(':') ? '::' : '127.0.0.1'),
    gnbs: integer(values.gnbs, '--gnbs', 1, 10_000),
    gnbId: integer(values['gnb-id'], '--gnb-id', 0, 2 ** 22 - 1),
    name: values.name,
    plmn: { mcc: values.mcc, mnc: values.mnc },
    tac: integer(values.tac, '--tac', 0, 0xffffff),
    ues: integer(values.ues, '--ues', 1, 1_000_000),
    imsi: values.imsi,
    key: hexBytes(values.key, '--key', 16),
    opc: hexBytes(values.opc, '--opc', 16),
    sqn: hexBytes(values.sqn, '--sqn', 6),
    suci,
    imeisv: values.imeisv,
    slices: values.slice.map((text) => {
      const [sst = '', sd] = text.split(':');
      return {
        sst: integer(sst, 'SST', 0, 255),
        ...(sd === undefined ? {} : { sd: integer(`0x${sd}`, 'SD', 0, 0xffffff) }),
      };
    }),
    concurrency: integer(values.concurrency, '--concurrency', 1, 100_000),
    idle: values.idle,
    serviceRequest: values['service-request'],
    session,
    dnn: values.dnn,
    n3: values.n3,
    tunNetns,
    then,
    scenario,
    resumeAfterMs: integer(values['resume-after'], '--resume-after', 0, 3_600_000),
    sctp: sctpParameters(values),
    ping: values.ping,
    failIcs: values['fail-ics'],
    strict: values.strict,
    silentAfter: values['silent-after'],
    timeoutMs: integer(values.timeout, '--timeout', 1, 600_000),
    quiet: values.quiet,
    sms: values.sms || to !== undefined,
    smsTo: to,
    text: values.text,
    statusReport: values['status-report'],
    positioning,
    // The serving cell's PCI and ARFCN name the gNB's own measurements; any will do without --nr-cell.
    gnbPositioning: {
      pci: serving?.pci ?? 1,
      arfcn: serving?.ssbArfcn ?? 632628,
      ...(antenna === undefined ? {} : { accessPoint: { latitude: antenna[0]!, longitude: antenna[1]! } }),
    },
  };
}

/** --sctp-heartbeat, --sctp-rto-max, --sctp-max-retrans as the userland SCTP's parameters. */
function sctpParameters(values: {
  'sctp-heartbeat'?: string;
  'sctp-rto-max'?: string;
  'sctp-max-retrans'?: string;
}): Partial<SctpParameters> {
  const heartbeat = values['sctp-heartbeat'];
  const rtoMax = values['sctp-rto-max'];
  const retrans = values['sctp-max-retrans'];
  const max = rtoMax === undefined ? undefined : integer(rtoMax, '--sctp-rto-max', 10, 600_000);
  const times = retrans === undefined ? undefined : integer(retrans, '--sctp-max-retrans', 1, 20);
  return {
    ...(heartbeat === undefined
      ? {}
      : { heartbeatInterval: integer(heartbeat, '--sctp-heartbeat', 10, 600_000) }),
    ...(max === undefined
      ? {}
      : {
          rtoMax: max,
          rtoMin: Math.min(DEFAULT_PARAMETERS.rtoMin, max),
          rtoInitial: Math.min(DEFAULT_PARAMETERS.rtoInitial, max),
        }),
    ...(times === undefined ? {} : { associationMaxRetrans: times, pathMaxRetrans: times }),
  };
}

/** A decimal number, or a UsageError naming `what`. */
function decimal(text: string, what: string): number {
  const value = /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(value)) throw new UsageError(`${what} must be a number, got ${text}`);
  return value;
}

/** `a,b[,c]`: two or three numbers (at least `least`). */
function coordinates(text: string, what: string, least: 2 | 3): number[] {
  const parts = text.split(',');
  if (parts.length < least || parts.length > 3)
    throw new UsageError(`${what} must be <lat>,<lon>, got ${text}`);
  return parts.map((part) => decimal(part, what));
}

/**
 * The UEs' positioning configuration: the --positioning file, then --gnss, --nr-cell and --radio on top
 * (each turns its capability on). Undefined when none is given.
 */
function positioningOf(values: {
  positioning?: string;
  gnss?: string;
  'nr-cell'?: string[];
  radio?: string;
}): UePositioning | undefined {
  const cells = values['nr-cell'];
  if (
    values.positioning === undefined &&
    values.gnss === undefined &&
    cells === undefined &&
    values.radio === undefined
  )
    return undefined;
  let positioning: UePositioning = { capabilities: { nrEcid: false, ecid: false, agnss: false } };
  if (values.positioning !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(values.positioning, 'utf8'));
    } catch (error) {
      throw new UsageError(`--positioning ${values.positioning}: ${(error as Error).message}`);
    }
    const capabilities = (parsed as { capabilities?: Record<string, unknown> } | null)?.capabilities;
    if (
      typeof capabilities !== 'object' ||
      capabilities === null ||
      !['nrEcid', 'ecid', 'agnss'].every((name) => typeof capabilities[name] === 'boolean')
    )
      throw new UsageError('--positioning needs capabilities {nrEcid, ecid, agnss} (booleans)');
    positioning = parsed as UePositioning;
  }
  if (values.gnss !== undefined) {
    const [latitude, longitude, uncertaintyMetres = 10] = coordinates(values.gnss, '--gnss', 2);
    positioning = {
      ...positioning,
      capabilities: { ...positioning.capabilities, agnss: true },
      gnss: { kind: 'fix', latitude: latitude!, longitude: longitude!, uncertaintyMetres },
    };
  }
  if (cells !== undefined) {
    positioning = {
      ...positioning,
      capabilities: { ...positioning.capabilities, nrEcid: true },
      nrCells: cells.map(nrCell),
    };
  }
  if (values.radio !== undefined) {
    const [distance = '', bearing] = values.radio.split(':');
    positioning = {
      ...positioning,
      radio: {
        distanceMetres: decimal(distance, '--radio distance'),
        ...(bearing === undefined ? {} : { bearingDegrees: decimal(bearing, '--radio bearing') }),
      },
    };
  }
  try {
    validateUePositioning(positioning);
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(`positioning: ${error.message}`);
    throw error;
  }
  return positioning;
}

/** `<pci>:<ssb-arfcn>:<rsrp dBm>:<rsrq dB>[:<nci hex>]` (--nr-cell). */
function nrCell(text: string): NrCellMeasurement {
  const parts = text.split(':');
  if (parts.length !== 4 && parts.length !== 5)
    throw new UsageError(`--nr-cell must be <pci>:<ssb-arfcn>:<rsrp>:<rsrq>[:<nci hex>], got ${text}`);
  const [pci = '', arfcn = '', rsrp = '', rsrq = '', nci] = parts;
  return {
    pci: integer(pci, '--nr-cell PCI', 0, 1007),
    ssbArfcn: integer(arfcn, '--nr-cell SSB ARFCN', 0, 3_279_165),
    ssRsrpDbm: decimal(rsrp, '--nr-cell SS-RSRP'),
    ssRsrqDb: decimal(rsrq, '--nr-cell SS-RSRQ'),
    ...(nci === undefined ? {} : { nrCellIdentity: integer(`0x${nci}`, '--nr-cell NCI', 0, 2 ** 36 - 1) }),
  };
}

function sessionLine(ue: SimulatedUe, outcome: EstablishmentOutcome): string {
  const who = `imsi-${ue.imsi}: PDU session 1`;
  switch (outcome.outcome) {
    case 'accepted': {
      const { session } = outcome;
      const ipv6 = session.ipv6InterfaceIdentifier === undefined ? [] : ['IPv6'];
      const addresses = [...(session.ipv4 === undefined ? [] : [session.ipv4]), ...ipv6].join(' ');
      const cause = session.cause === undefined ? '' : ` (${causeLabel('5gsm', session.cause)})`;
      return `${who} ${session.ipType} ${addresses}, DNN ${session.dnn ?? '-'}${cause}`;
    }
    case 'rejected':
      return `${who} rejected: ${causeLabel('5gsm', outcome.cause)}`;
    case 'not-forwarded':
      return `${who} not forwarded by the AMF${outcome.fiveGmmCause === undefined ? '' : ` (${causeLabel('5gmm', outcome.fiveGmmCause)})`}`;
    case 'failed':
      return `${who} failed: ${outcome.reason}`;
  }
}

const ALGORITHM = (kind: 'NEA' | 'NIA', n: number): string => `${kind}${n}`;

function smsLine(to: string, outcome: SmsSendOutcome): string {
  switch (outcome.outcome) {
    case 'sent':
      return `SMS to ${to} sent (${outcome.parts} part${outcome.parts === 1 ? '' : 's'}, TP-MR ${outcome.messageReferences.join(' ')})`;
    case 'refused':
      return `SMS to ${to} refused: ${outcome.cause}`;
    case 'no-answer':
      return `SMS to ${to}: no answer from the network`;
  }
}

function registrationLine(ue: SimulatedUe, outcome: RegistrationOutcome): string {
  const who = `imsi-${ue.imsi}`;
  switch (outcome.outcome) {
    case 'accepted': {
      const g = outcome.guti;
      const guti =
        g === undefined
          ? 'no 5G-GUTI'
          : `5G-GUTI ${g.mcc}-${g.mnc} region ${g.amfRegionId.toString(16)} set ${g.amfSetId.toString(16)} pointer ${g.amfPointer} tmsi ${g.tmsi.toString(16).padStart(8, '0')}`;
      const nssai = outcome.allowedNssai.map((s) =>
        s.sd === undefined ? `${s.sst}` : `${s.sst}:${s.sd.toString(16).padStart(6, '0')}`,
      );
      const algorithms = ue.algorithms;
      return `${who}: registered via ${ue.radio.name}, ${guti}, allowed NSSAI [${nssai.join(' ')}], T3512 ${outcome.t3512Seconds ?? 'off'} s${algorithms === undefined ? '' : `, ${ALGORITHM('NEA', algorithms.ciphering)}/${ALGORITHM('NIA', algorithms.integrity)}`}`;
    }
    case 'rejected':
      return `${who}: registration rejected: ${outcome.causeName}`;
    case 'authentication-rejected':
      return `${who}: authentication rejected`;
    case 'failed':
      return `${who}: registration failed: ${outcome.reason}`;
  }
}

/** Runs `npm run sim -- ue ...`; resolves with the exit status (0 when every step of every UE succeeded). */
export async function runUeSimulator(
  argv: readonly string[],
  say: (line: string) => void,
  stopSignal: Promise<void>,
): Promise<number> {
  const planned = planOrUsage(plan, argv, USAGE, say);
  if ('status' in planned) return planned.status;
  const p = planned.plan;
  /** The user plane of --tun-netns: the sessions' tunnels and the gNB's N3 socket. */
  let tunnels: { carried: SessionTunnels; close(): void } | undefined;
  /** Shuts the MultiAmfGnb nodes' associations down (several --amf). */
  let stopNodes: () => Promise<unknown> = () => Promise.resolve();
  const transport = await openClientTransport(p.transport, {
    localAddress: p.local,
    peerUdpPort: p.udpPort,
    params: { maxInitRetransmits: 3, ...p.sctp },
  });
  try {
    const template: GnbConfig = {
      plmn: p.plmn,
      node: { kind: 'gNB', value: p.gnbId, bitLength: 22 },
      name: p.name,
      supportedTas: [{ tac: p.tac, plmns: [{ plmn: p.plmn, slices: p.slices }] }],
    };
    // TS 38.300 8.2: the NR cell identity is the gNB id (its 22 leftmost bits here) and a local cell id.
    const cellOf = (config: GnbConfig): ServingCell => ({
      plmn: p.plmn,
      nrCellIdentity: config.node.value * 2 ** 14 + 1,
      tac: p.tac,
    });
    /** Several AMFs: each gNB a MultiAmfGnb, associated with every one of them. */
    const nodes =
      p.amfs.length > 1
        ? fleetConfigs(template, p.gnbs, p.name).map(
            (config) =>
              new MultiAmfGnb({
                config,
                transport,
                amfs: p.amfs.map((amf) => [amf]),
                cell: cellOf(config),
                local: { addresses: [p.local] },
                n3Address: p.n3,
                responseTimeoutMs: p.timeoutMs,
                keepLog: false,
              }),
          )
        : [];
    const gnbs =
      nodes.length > 0
        ? []
        : createFleet({
            template,
            count: p.gnbs,
            transport,
            amf: p.amfs,
            namePrefix: p.name,
            local: { addresses: [p.local] },
            responseTimeoutMs: p.timeoutMs,
            // Thousands of UEs: the PDUs are not kept (each UE's NAS messages are printed as they go).
            keepLog: false,
            strict: p.strict,
          });
    const gnbUes = gnbs.map((gnb) => new GnbUes(gnb, cellOf(gnb.config), { n3Address: p.n3 }));
    const radios: (GnbUes | MultiAmfGnb)[] = nodes.length > 0 ? nodes : gnbUes;
    for (const radio of gnbUes) new GnbLocation(radio, p.gnbPositioning);
    if (p.strict)
      for (const gnb of gnbs)
        gnb.on((event) => {
          if (event.type !== 'stream-violation') return;
          const { rule, messageType, streamId } = event.violation;
          say(`${gnb.config.name ?? 'gnb'}: ${messageType} on stream ${streamId}: ${rule} (TS 38.412 7)`);
        });
    stopNodes = () => Promise.all(nodes.map((node) => node.stop()));
    if (nodes.length > 0) {
      for (const node of nodes)
        node.on((event) => {
          if (event.type === 'amf-up')
            say(`${node.name}: AMF ${event.index + 1} ${event.amf.name ?? '?'} up`);
          else if (event.type === 'amf-down')
            say(`${node.name}: AMF ${event.index + 1}: ${event.why}; next try in ${event.delayMs} ms`);
        });
      await Promise.all(nodes.map((node) => node.start()));
      const total = nodes.length * p.amfs.length;
      const ready = nodes.reduce(
        (n, node) => n + node.associations.filter((g) => g.state.kind === 'ready').length,
        0,
      );
      if (ready < total) {
        say(`${total - ready} of ${total} associations did not complete NG Setup`);
        return 1;
      }
      say(`${nodes.length} gNBs ready, each with ${p.amfs.length} AMFs`);
    } else {
      const setups = await Promise.all(gnbs.map(bringUp));
      const refused = setups.filter((s) => s.outcome !== 'accepted').length;
      if (refused > 0) {
        say(`${refused} of ${gnbs.length} gNBs did not complete NG Setup`);
        return 1;
      }
      say(`${gnbs.length} gNBs ready`);
    }
    const ues = createUes({
      template: {
        imsi: p.imsi,
        plmn: p.plmn,
        key: p.key,
        opc: p.opc,
        sqn: p.sqn,
        suci: p.suci,
        imeisv: p.imeisv,
        securityCapability: ALL_ALGORITHMS,
        requestedNssai: p.slices,
        ...(p.positioning === undefined ? {} : { positioning: p.positioning }),
        sms: p.sms,
        misbehaviour: {
          failInitialContextSetup: p.failIcs,
          ...(p.silentAfter === undefined ? {} : { silentAfter: p.silentAfter }),
        },
      },
      count: p.ues,
      radios,
      keepLog: false,
    });
    // Counted from the start: the failover scenario's lines say what each UE sent and was asked after.
    const tally = p.scenario === 'failover' ? new NasTally(ues) : undefined;
    if (!p.quiet) {
      for (const ue of ues)
        ue.on((event) => {
          if (event.type === 'nas') {
            const arrow = event.exchange.direction === 'uplink' ? '->' : '<-';
            say(`imsi-${ue.imsi} ${arrow} ${event.exchange.messageType}`);
          } else if (event.type === 'deregistered-by-network') {
            say(
              `imsi-${ue.imsi}: deregistered by the network${event.cause === undefined ? '' : ` (${causeLabel('5gmm', event.cause)})`}`,
            );
          }
        });
    }
    // What the network delivers is printed as it comes, quiet or not: it is an outcome.
    if (p.sms)
      for (const ue of ues)
        ue.sms.onReceived((entry) =>
          say(
            entry.kind === 'message'
              ? `imsi-${ue.imsi}: SMS from ${entry.from}: ${entry.text}`
              : `imsi-${ue.imsi}: status report for message ${entry.messageReference} to ${entry.recipient}: ${entry.status === 0 ? 'received' : `TP-ST ${entry.status}`}`,
          ),
        );
    let failures = 0;
    const started = performance.now();
    const outcomes = await withConcurrency(ues, p.concurrency, (ue) => ue.register('suci'));
    const seconds = (performance.now() - started) / 1000;
    outcomes.forEach((outcome, i) => {
      if (outcome.outcome !== 'accepted') failures++;
      if (!p.quiet || outcome.outcome !== 'accepted') say(registrationLine(ues[i]!, outcome));
    });
    const registered = ues.filter((_, i) => outcomes[i]?.outcome === 'accepted');
    say(
      `${registered.length} of ${ues.length} registered in ${Math.round(seconds * 1000)} ms (${Math.round(registered.length / seconds)}/s)`,
    );
    if (p.idle) {
      const idle = await withConcurrency(registered, p.concurrency, async (ue) => {
        const released = ue.next((e) => (e.type === 'released' ? true : undefined)).catch(() => false);
        const radio = radios.find((r) => r === ue.radio);
        if (radio?.requestRelease(ue) !== true) return false;
        return released;
      });
      const count = idle.filter(Boolean).length;
      failures += registered.length - count;
      say(`${count} of ${registered.length} idle after UE Context Release Request`);
      if (p.serviceRequest) {
        const back = await withConcurrency(registered, p.concurrency, (ue) =>
          ue.serviceRequest().catch((e: Error) => ({ outcome: 'failed' as const, reason: e.message })),
        );
        const accepted = back.filter((o) => o.outcome === 'accepted').length;
        failures += registered.length - accepted;
        say(`${accepted} of ${registered.length} connected again by service request`);
      }
    }
    let sessions = new Map<SimulatedUe, UeSessions>();
    if (p.session !== undefined) {
      const type = p.session;
      sessions = new Map(registered.map((ue) => [ue, new UeSessions(ue)]));
      if (p.tunNetns !== undefined) {
        // The gNB's session events name the UE as its radio knows it: the same objects as `ues`.
        const known = new Map<unknown, { ue: SimulatedUe; namespace: string }>(
          ues.map((ue, i) => [ue, { ue, namespace: `${p.tunNetns}${i + 1}` }]),
        );
        const sessionOf = (ue: unknown, id: number) => {
          const found = known.get(ue);
          return found === undefined ? undefined : sessions.get(found.ue)?.get(id);
        };
        const who = (ue: unknown): string => `imsi-${known.get(ue)?.ue.imsi ?? '?'}`;
        const userPlane = createGnbUserPlane({ n3Address: p.n3 });
        tunnels = {
          close: () => userPlane.close(),
          carried: carrySessions({
            events: radios[0]!.sessions,
            userPlane,
            ueOf: (s) => s.ue,
            // The gNB never sees the UE's address: the UE's own session has it. No Router Advertisement
            // is simulated, so the UE does not know its IPv6 prefix: IPv4 only.
            addresses: (s) => {
              const ipv4 = sessionOf(s.ue, s.pduSessionId)?.ipv4;
              return ipv4 === undefined ? undefined : { ueIpv4: ipv4 };
            },
            tun: (s) => ({
              namespace: known.get(s.ue)?.namespace ?? '',
              mtu: sessionOf(s.ue, s.pduSessionId)?.mtu ?? 1500,
            }),
            failed: (s, error, detail) => {
              failures++;
              say(`${who(s.ue)}: no TUN for PDU session ${s.pduSessionId}: ${error}: ${detail}`);
            },
            carried: (s, tunnel) =>
              say(`${who(s.ue)}: TUN ${tunnel.tunName} up in ${known.get(s.ue)?.namespace ?? ''}`),
          }),
        };
      }
      const establishing = performance.now();
      const outcomes = await withConcurrency(registered, p.concurrency, (ue) =>
        sessions
          .get(ue)!
          .establish({ pduSessionId: 1, type, ...(p.dnn === undefined ? {} : { dnn: p.dnn }) }),
      );
      const sessionSeconds = (performance.now() - establishing) / 1000;
      outcomes.forEach((outcome, i) => say(sessionLine(registered[i]!, outcome)));
      const accepted = outcomes.filter((o) => o.outcome === 'accepted').length;
      failures += registered.length - accepted;
      say(
        `${accepted} of ${registered.length} PDU sessions established in ${Math.round(sessionSeconds * 1000)} ms (${Math.round(accepted / sessionSeconds)}/s)`,
      );
      await tunnels?.carried.settled();
    }
    if (p.smsTo !== undefined) {
      const to = p.smsTo;
      const sent = await withConcurrency(registered, p.concurrency, async (ue) => {
        const outcome = await ue.sms.sendText(to, p.text, { statusReport: p.statusReport });
        say(`imsi-${ue.imsi}: ${smsLine(to, outcome)}`);
        return outcome.outcome === 'sent';
      });
      const count = sent.filter(Boolean).length;
      failures += registered.length - count;
      say(`${count} of ${registered.length} SMS sent to ${to}`);
    }
    if (p.scenario === 'failover' && tally !== undefined) {
      const carried = tunnels?.carried;
      failures += await runFailover({
        nodes,
        ues: registered,
        sessions: new Map(registered.map((ue) => [ue, sessions.get(ue) ?? new UeSessions(ue)])),
        tally,
        concurrency: p.concurrency,
        resumeAfterMs: p.resumeAfterMs,
        ping:
          p.ping === undefined || carried === undefined
            ? undefined
            : {
                address: p.ping,
                namespaceOf: (ue) => `${p.tunNetns ?? ''}${ues.indexOf(ue) + 1}`,
                settled: () => carried.settled(),
              },
        say,
        stopSignal,
      });
    }
    if (p.then === 'hold') {
      say('holding; Ctrl-C deregisters nothing and shuts the associations down');
      await stopSignal;
    } else {
      const gone = await withConcurrency(registered, p.concurrency, (ue) =>
        ue
          .deregister({ switchOff: p.then === 'switch-off' })
          .catch((e: Error) => ({ outcome: 'failed' as const, reason: e.message })),
      );
      const done = gone.filter((o) => o.outcome !== 'failed').length;
      failures += registered.length - done;
      say(`${done} of ${registered.length} deregistered${p.then === 'switch-off' ? ' (switch-off)' : ''}`);
    }
    if (p.strict) {
      // What a strict commercial gNB would have refused or flagged (docs/interop.md) fails the run.
      const violations = gnbs.reduce((n, gnb) => n + gnb.streamViolations.length, 0);
      const refusedSetups = gnbUes.reduce((n, radio) => n + radio.refusedSetups.length, 0);
      say(`strict: ${violations} stream id violations, ${refusedSetups} standalone resource setups refused`);
      failures += violations + refusedSetups;
    }
    await Promise.all(gnbs.map((gnb) => gnb.shutdown()));
    return failures === 0 ? 0 : 1;
  } finally {
    await stopNodes();
    tunnels?.carried.stop();
    tunnels?.close();
    await transport.close();
  }
}
