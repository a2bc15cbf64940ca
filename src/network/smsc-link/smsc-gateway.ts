// The SMSC link as the core runs it (docs/sms.md, "SMSC link"): one SmscLink built from the stored
// configuration when it is enabled, built again when the configuration changes (a new bind, no restart),
// none when it is deleted or disabled. deliver_sm goes to our subscribers (mt-from-smsc.ts), devices'
// messages for numbers outside the network go out as submit_sm (mo-to-smsc.ts) once bound.

import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Clock, Timers } from '../../clock.ts';
import type { ConfigurationEvents } from '../ports/configuration-events.ts';
import type { SmscConfiguration, SmscConfigurationPort } from '../ports/smsc-configuration.ts';
import type { SmscOutbox, SmsStore, SmsSubscribers, StoredSms } from '../ports/sms-store.ts';
import { createMoToSmsc, type SettledOutcome } from './mo-to-smsc.ts';
import { mtFromSmsc } from './mt-from-smsc.ts';
import { SmscLink, type SmscLinkSettings, type SmscLinkState } from './smsc-link.ts';

interface SmscLinkStatus {
  state: SmscLinkState;
  lastError?: string;
}

export interface SmscGatewayOptions {
  configuration: SmscConfigurationPort;
  /** Changes of resource `smsc-link`, here or through another process: the configuration is read again. */
  changes: ConfigurationEvents;
  store: SmsStore;
  outbox: SmscOutbox;
  subscribers: SmsSubscribers;
  /** How long a message from the SMSC waits for its recipient (the SMSF's default validity). */
  validityMs: number;
  /** A message from the SMSC was stored for `imsi`: the SMSF delivers it now or at its return. */
  queuedFor: (imsi: string) => void;
  /** A message for outside the network settled: the SMSF reports to its sender if asked. */
  settled: (message: StoredSms, outcome: SettledOutcome) => void;
  /** Each PDU sent or received (the metrics). */
  onPdu?: (direction: 'sent' | 'received', kind: string) => void;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  settings?: Partial<SmscLinkSettings>;
  connect?: (host: string, port: number) => Socket;
}

const sameConfiguration = (a: SmscConfiguration | undefined, b: SmscConfiguration | undefined): boolean =>
  a === b ||
  (a !== undefined &&
    b !== undefined &&
    a.host === b.host &&
    a.port === b.port &&
    a.systemId === b.systemId &&
    a.password === b.password &&
    a.systemType === b.systemType &&
    a.enabled === b.enabled);

export function createSmscGateway(options: SmscGatewayOptions) {
  const { logger } = options;
  let configuration: SmscConfiguration | undefined;
  let link: SmscLink | undefined;
  let stopped = true;
  let stopListening: (() => void) | undefined;
  /** Reconfigurations run one after the other. */
  let applying: Promise<void> = Promise.resolve();

  const deliver = mtFromSmsc({
    store: options.store,
    subscribers: options.subscribers,
    clock: options.clock,
    validityMs: options.validityMs,
    queued: options.queuedFor,
    logger,
  });
  const out = createMoToSmsc({
    outbox: options.outbox,
    store: options.store,
    submit: (message) =>
      link === undefined ? Promise.resolve({ ok: false, error: 'no SMSC link' }) : link.submit(message),
    settled: options.settled,
    clock: options.clock,
    timers: options.timers,
    logger,
  });

  async function apply(): Promise<void> {
    let next: SmscConfiguration | undefined;
    try {
      next = await options.configuration.read();
    } catch (error) {
      logger.error({ err: error }, 'SMSC link: its configuration could not be read');
      return;
    }
    if (stopped || sameConfiguration(configuration, next)) return;
    configuration = next;
    const previous = link;
    link = undefined;
    await previous?.stop();
    if (stopped || next === undefined || !next.enabled) return;
    const created = new SmscLink({
      config: next,
      handlers: { deliver, receipt: (receipt) => out.receipt(receipt) },
      timers: options.timers,
      logger,
      ...(options.settings === undefined ? {} : { settings: options.settings }),
      ...(options.connect === undefined ? {} : { connect: options.connect }),
      ...(options.onPdu === undefined ? {} : { onPdu: options.onPdu }),
    });
    created.onState((state) => {
      if (state === 'bound') void out.flush();
    });
    link = created;
    created.start();
  }

  const reconfigure = (): Promise<void> => (applying = applying.then(apply));

  return {
    /** Reads the configuration and binds when it is enabled; follows its changes until stopped. */
    async start(): Promise<void> {
      if (!stopped) return;
      stopped = false;
      stopListening = options.changes.subscribe((change) => {
        if (change.resource === 'smsc-link') void reconfigure();
      });
      await reconfigure();
    },
    /** Unbinds and closes the link; no timer or socket is left. */
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      stopListening?.();
      stopListening = undefined;
      await applying;
      await out.stop();
      const current = link;
      link = undefined;
      configuration = undefined;
      await current?.stop();
    },
    /** The SMSF's port (smsf/ports/smsc.ts): a configured, enabled link takes numbers outside the network. */
    accepts: (): boolean => configuration?.enabled === true,
    queued(): void {
      if (link?.state === 'bound') void out.flush();
    },
    status(): SmscLinkStatus {
      if (link === undefined) return { state: 'disabled' };
      const lastError = link.lastError;
      return { state: link.state, ...(lastError === undefined ? {} : { lastError }) };
    },
    /** Resolves once every configuration change heard so far has been applied (tests). */
    settled: (): Promise<void> => applying,
  };
}

export type SmscGateway = ReturnType<typeof createSmscGateway>;
