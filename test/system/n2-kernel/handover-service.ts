/**
 * The service side of the N2 handover system test (handover-suite.ts), wherever it runs: on the host with
 * its AMF on our `raw` stack, or in the qemu guest with its AMF on the kernel's SCTP. The UPF records its
 * rules, the AMF holds at most two UE contexts (the scenario's overload), and the service's clock can be
 * moved on (the UE's cell made older than 300 s, so that locating it takes Location Reporting Control).
 * `atTarget` checks that the API and the UPF show the UE at the second gNB, changes its UE-AMBR (UE
 * Context Modification) and locates it; `finish` reads the NGAP radio events. What it saw (`view`) is
 * plain JSON, so that a guest can report it to the host.
 */
import assert from 'node:assert/strict';

import { systemTimers } from '../../../src/clock.ts';
import { DEFAULT_UPF_SETTINGS } from '../../../src/network/upf/upf-settings.ts';
import type { RegistrationService } from '../../e2e/registration-service.ts';
import { makeImsReachable, startRegistrationService, statusOf } from '../../e2e/registration-service.ts';
import { DEFAULT_PROFILE, recordingAddon, type ForwarderRules } from '../../e2e/session-service.ts';
import { MOVED_CELL } from './handover-scenario.ts';

interface Page<T> {
  items: T[];
  total_count: number;
}

export interface RanEvent {
  message_type: string;
  direction: string;
  raw: string;
}

/** What the service showed: every indirect forwarding tunnel, the UE at the target, located, the events. */
export interface ServiceView {
  /** Every indirect forwarding tunnel the UPF was given (the UPF keeps a tunnel only 3 s). */
  forwardedTo: string[];
  /** At the target, as the API and the UPF showed it while the scenario held. */
  atTarget?: { radio: string; downlinks: (string | undefined)[] };
  located?: { status: number; cell: string | undefined };
  events: RanEvent[];
}

export const hexCell = (cell: number): string => cell.toString(16).padStart(9, '0');

export interface HandoverService {
  readonly service: RegistrationService;
  readonly view: ServiceView;
  /** While the UE is at `gnb` (the second gNB's name): the checks, the new UE-AMBR, the location. */
  atTarget(gnb: string): Promise<void>;
  /** Reads the NGAP radio events into the view. */
  finish(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The service with its AMF on `transport` at `address` (its N2 and N3), the subscriptions `imsis`
 * provisioned (the first is the UE handed over), the cell the UE moves to positioned.
 */
export async function startHandoverService(options: {
  transport: 'raw' | 'kernel';
  address: string;
  imsis: readonly string[];
}): Promise<HandoverService> {
  const view: ServiceView = { forwardedTo: [], events: [] };
  const rules: ForwarderRules = {
    sessions: new Map(),
    calls: [],
    downlinkData: [],
    traffic: new Map(),
    forwarding: new (class extends Map<number, string> {
      override set(id: number, tunnel: string): this {
        view.forwardedTo.push(tunnel);
        return super.set(id, tunnel);
      }
    })(),
  };
  /** The service's clock runs this far ahead of the system's once `atTarget` moves it. */
  let ahead = 0;
  const time = {
    now: () => Date.now() + ahead,
    after: (ms: number, callback: () => void) => systemTimers.after(ms, callback),
  };
  const s = await startRegistrationService({
    raw: { address: options.address, transport: options.transport },
    time,
    amf: { maxUeContexts: 2 },
    upf: {
      settings: { ...DEFAULT_UPF_SETTINGS, n3Address: options.address },
      addon: recordingAddon(rules),
    },
  });
  try {
    for (const imsi of options.imsis) await s.provision(imsi);
    await makeImsReachable(s);
    const cell = {
      rat: 'nr',
      mcc: '001',
      mnc: '01',
      cell_identity: hexCell(MOVED_CELL),
      latitude: 53.5,
      longitude: 10,
      uncertainty_semi_major: 100,
    };
    assert.equal(await s.request('POST', '/api/beta/cell-positions', cell), 201);
  } catch (error) {
    await s.close();
    throw error;
  }
  const imsi = options.imsis[0];
  return {
    service: s,
    view,
    async atTarget(gnb) {
      // The downlink moves at Handover Notify; the status is written in a batch: both waited for.
      view.atTarget = await s
        .until(async () => {
          const downlinks = [...rules.sessions.values()].map((r) => r.downlink);
          const radio = (await statusOf(s, imsi ?? '')).last_seen_radio;
          return radio === gnb && downlinks.some((d) => d?.startsWith('10.99.0.2:'))
            ? { radio, downlinks }
            : undefined;
        }, `the UE shown at ${gnb}, its downlink there`)
        .catch(() => undefined);
      // A new UE-AMBR while the UE is at the target: UE Context Modification goes there (8.3.4).
      const profile = { ...DEFAULT_PROFILE, 'bitrate-downlink': '150 Mbps' };
      assert.equal(await s.request('PUT', '/api/v1/profiles/default', profile), 200);
      await s
        .until(async () => {
          await s.t.records.flush();
          const answered = await s.get<Page<unknown>>(
            '/api/v1/ran/events?message_type=UEContextModificationResponse',
          );
          return answered.total_count > 0 ? true : undefined;
        }, 'the UE Context Modification answered')
        .catch(() => undefined);
      // Its cell older than 300 s (docs/location.md): the AMF asks the radio (8.12.1) first.
      ahead = 301_000;
      const response = await s.t.request({
        method: 'POST',
        url: '/api/beta/location',
        token: s.token,
        payload: { request_type: 'immediate', supi: `imsi-${imsi}` },
      });
      view.located = {
        status: response.statusCode,
        cell: response.json<{ result?: { ncgi?: { nrCellId: string } } }>().result?.ncgi?.nrCellId,
      };
    },
    async finish() {
      await s.t.records.flush();
      const page = (n: number) =>
        s.get<Page<RanEvent>>(`/api/v1/ran/events?protocol=NGAP&per_page=100&page=${n}`);
      for (let n = 1, got = await page(1); got.items.length > 0; got = await page(++n))
        view.events.push(
          ...got.items.map(({ message_type, direction, raw }) => ({ message_type, direction, raw })),
        );
    },
    close: () => s.close(),
  };
}
