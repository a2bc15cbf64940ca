import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { GuestResult } from '../../../scripts/qemu-sctp/qemu-guest.ts';
import { systemTimers } from '../../../src/clock.ts';
import { DEFAULT_UPF_SETTINGS } from '../../../src/network/upf/upf-settings.ts';
import type { RegistrationService } from '../../e2e/registration-service.ts';
import {
  imsiOf,
  K,
  makeImsReachable,
  OPC,
  startRegistrationService,
  statusOf,
} from '../../e2e/registration-service.ts';
import { DEFAULT_PROFILE, recordingAddon, type ForwarderRules } from '../../e2e/session-service.ts';
import { tshark } from '../../helpers/tshark.ts';
import { MOVED_CELL } from './handover-scenario.ts';
import { peerUnavailable, runPeer, stepOf, type PeerTransport } from './peer-link.ts';

/**
 * N2 handover and the procedures of issue 34 item 2 over the `kernel` and `raw` transports (issue 34,
 * "over each SCTP transport"; the e2e tests run them on `udp`): handover-scenario.ts's two strict
 * simulated gNBs in a qemu guest (the Linux kernel's SCTP) or in a network namespace (our SCTP on a raw
 * socket) speak NGAP to the service on the host, whose AMF listens on our `raw` stack and whose UPF
 * records its rules. The AMF holds at most two UE contexts (the scenario's overload), and the service's
 * clock can be moved on (the UE's cell made older than 300 s, so that locating it takes Location
 * Reporting Control). While the UE is at the second gNB the host checks the API and the UPF show it
 * there, changes its UE-AMBR (UE Context Modification) and locates it. tshark reads every NGAP PDU the
 * service sent and every one the radios sent but the one undecodable on purpose. With
 * PMN_INTEROP_CAPTURE_DIR set, the radio events' pcapng export is written there as
 * n2-handover-<transport>.pcapng (docs/interop.md's capture).
 */

interface Page<T> {
  items: T[];
  total_count: number;
}
interface Event {
  message_type: string;
  direction: string;
  raw: string;
}

const hex = (cell: number) => cell.toString(16).padStart(9, '0');

/** The file's suite for `transport`; `index` and `imsis` keep files that run at once apart. */
export function handoverSuite(
  transport: PeerTransport,
  index: number,
  imsis: [number, number, number],
): void {
  const [IMSI, ...OTHERS] = imsis.map(imsiOf) as [string, string, string];
  const name = transport === 'kernel' ? 'kernel-ho' : 'raw-ho';
  const why = peerUnavailable(transport);
  describe(
    `N2 handover and the radio procedures between simulated gNBs over ${transport} SCTP, the service on raw`,
    { skip: why ?? false, timeout: 240_000 },
    () => {
      /** Every indirect forwarding tunnel the UPF was given (the map keeps a tunnel only 3 s). */
      const forwardedTo: string[] = [];
      const rules: ForwarderRules = {
        sessions: new Map(),
        calls: [],
        downlinkData: [],
        traffic: new Map(),
        forwarding: new (class extends Map<number, string> {
          override set(id: number, tunnel: string): this {
            forwardedTo.push(tunnel);
            return super.set(id, tunnel);
          }
        })(),
      };
      /** The service's clock runs this far ahead of the system's once the host moves it. */
      let ahead = 0;
      const time = {
        now: () => Date.now() + ahead,
        after: (ms: number, callback: () => void) => systemTimers.after(ms, callback),
      };
      let service: RegistrationService | undefined;
      /** The host's address on the link: the service's N2 and N3. */
      let host: string | undefined;
      let result: GuestResult | undefined;
      /** At the target, as the API and the UPF showed it while the program held. */
      let atTarget: { radio: string; downlinks: (string | undefined)[] } | undefined;
      let located: { status: number; cell: string | undefined } | undefined;
      const events: Event[] = [];

      before(async () => {
        result = await runPeer(transport, index, {
          entry: {
            kernel: new URL('guest-handover.ts', import.meta.url),
            raw: new URL('netns-handover.ts', import.meta.url),
          },
          args: { port: 38412, firstGnbId: 0x50, imsi: IMSI, others: OTHERS, key: K, opc: OPC },
          controlPort: 7879,
          beforeStart: async (link) => {
            host = link.host;
            service = await startRegistrationService({
              raw: { address: link.host },
              time,
              amf: { maxUeContexts: 2 },
              upf: {
                settings: { ...DEFAULT_UPF_SETTINGS, n3Address: link.host },
                addon: recordingAddon(rules),
              },
            });
            for (const imsi of [IMSI, ...OTHERS]) await service.provision(imsi);
            await makeImsReachable(service);
            const cell = {
              rat: 'nr',
              mcc: '001',
              mnc: '01',
              cell_identity: hex(MOVED_CELL),
              latitude: 53.5,
              longitude: 10,
              uncertainty_semi_major: 100,
            };
            assert.equal(await service.request('POST', '/api/beta/cell-positions', cell), 201);
          },
          hold: {
            step: 'at-target',
            meanwhile: async () => {
              const s = service;
              assert.ok(s);
              // The downlink moves at Handover Notify; the status is written in a batch: both waited for.
              atTarget = await s
                .until(async () => {
                  const downlinks = [...rules.sessions.values()].map((r) => r.downlink);
                  const radio = (await statusOf(s, IMSI)).last_seen_radio;
                  return radio === `${name}-2` && downlinks.some((d) => d?.startsWith('10.99.0.2:'))
                    ? { radio, downlinks }
                    : undefined;
                }, `the UE shown at ${name}-2, its downlink there`)
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
                payload: { request_type: 'immediate', supi: `imsi-${IMSI}` },
              });
              located = {
                status: response.statusCode,
                cell: response.json<{ result?: { ncgi?: { nrCellId: string } } }>().result?.ncgi?.nrCellId,
              };
            },
          },
        });
        const s = service;
        if (s === undefined) return;
        await s.t.records.flush();
        const page = (n: number) =>
          s.get<Page<Event>>(`/api/v1/ran/events?protocol=NGAP&per_page=100&page=${n}`);
        for (let n = 1, got = await page(1); got.items.length > 0; got = await page(++n))
          events.push(...got.items);
        const captures = process.env.PMN_INTEROP_CAPTURE_DIR;
        if (captures !== undefined) {
          const response = await s.t.request({
            method: 'GET',
            url: '/api/v1/ran/events/export.pcapng?protocol=NGAP',
            token: s.token,
          });
          await mkdir(captures, { recursive: true });
          await writeFile(join(captures, `n2-handover-${transport}.pcapng`), response.rawPayload);
        }
      });

      after(async () => {
        await service?.close();
      });

      const step = (stepName: string) => stepOf(result, stepName);
      const count = (type: string, direction: string) =>
        events.filter((e) => e.message_type === type && e.direction === direction).length;

      it('both gNBs set up; the UE registers, its radio capability checked, with a PDU session', () => {
        assert.equal(result?.exitCode, 0, result?.lines.join('\n'));
        assert.deepEqual(step('ng-setup').outcomes, ['accepted', 'accepted']);
        assert.deepEqual(step('ue'), {
          step: 'ue',
          registration: 'accepted',
          session: 'accepted',
          capabilityChecks: 1,
        });
        assert.equal(count('UERadioCapabilityCheckRequest', 'outbound'), 1);
        assert.equal(count('UERadioCapabilityCheckResponse', 'inbound'), 1);
      });

      it('handed over to the second gNB, keys agreeing, forwarding through the UPF: the API and the UPF show it there', () => {
        assert.deepEqual(step('handover'), {
          step: 'handover',
          outcome: 'handed-over',
          keysAgree: true,
          forwardingVia: [host],
        });
        // The UPF forwards to the second gNB's DL forwarding tunnel (10.99.0.2, its N3 address).
        assert.ok(
          forwardedTo.some((tunnel) => tunnel.includes(' to 10.99.0.2:2152 ')),
          JSON.stringify(forwardedTo),
        );
        assert.ok(atTarget, `the UE was never shown at ${name}-2 with its downlink there`);
      });

      it('a new UE-AMBR reaches the UE at the target by UE Context Modification, answered', () => {
        assert.deepEqual(step('context-modification').received, [{ downlink: 150_000_000, refused: null }]);
        assert.equal(count('UEContextModificationRequest', 'outbound'), 1);
        assert.equal(count('UEContextModificationResponse', 'inbound'), 1);
      });

      it('located at the target: its cell too old, Location Reporting Control finds the cell it moved to', () => {
        assert.deepEqual(step('moved'), { step: 'moved', moved: true });
        assert.deepEqual(located, { status: 200, cell: hex(MOVED_CELL) });
        assert.equal(count('LocationReportingControl', 'outbound'), 1);
        assert.equal(count('LocationReport', 'inbound'), 1);
      });

      it('back with direct forwarding, there without forwarding, cancelled after the Command, refused by the target', () => {
        assert.deepEqual(step('back'), { step: 'back', outcome: 'handed-over', keysAgree: true });
        assert.deepEqual(step('no-forwarding'), {
          step: 'no-forwarding',
          outcome: 'handed-over',
          keysAgree: true,
          forwarding: 0,
        });
        assert.deepEqual(step('back-again'), { step: 'back-again', outcome: 'handed-over', keysAgree: true });
        assert.deepEqual(step('cancel'), { step: 'cancel', outcome: 'cancelled' });
        assert.deepEqual(step('failure'), {
          step: 'failure',
          outcome: 'failed',
          cause: { choice: 'radioNetwork', value: 'no-radio-resources-available-in-target-cell' },
        });
      });

      it('every handover PDU crossed both ways; no stream id violation; the radios shut down', () => {
        // Six preparations (there, back, there, back, cancelled, refused), four completed.
        assert.equal(count('HandoverRequired', 'inbound'), 6);
        assert.equal(count('HandoverRequest', 'outbound'), 6);
        assert.equal(count('HandoverRequestAcknowledge', 'inbound'), 5);
        assert.equal(count('HandoverCommand', 'outbound'), 5);
        assert.equal(count('HandoverFailure', 'inbound'), 1);
        assert.equal(count('HandoverPreparationFailure', 'outbound'), 1);
        assert.equal(count('HandoverNotify', 'inbound'), 4);
        assert.equal(count('HandoverCancel', 'inbound'), 1);
        assert.equal(count('HandoverCancelAcknowledge', 'outbound'), 1);
        assert.deepEqual(step('streams').violations, [0, 0]);
        assert.deepEqual(step('shutdown').ends, [{ reason: 'shutdown' }, { reason: 'shutdown' }]);
      });

      it('the radio-initiated procedures: each recorded, the Modify Indication confirmed, garbage answered', () => {
        assert.deepEqual(step('radio-initiated'), {
          step: 'radio-initiated',
          capability: true,
          indicated: true,
          confirmed: [1],
          notified: true,
          usage: true,
          error: true,
          answered: 'protocol/transfer-syntax-error',
        });
        assert.equal(count('UERadioCapabilityInfoIndication', 'inbound'), 1);
        assert.equal(count('PDUSessionResourceModifyIndication', 'inbound'), 1);
        assert.equal(count('PDUSessionResourceModifyConfirm', 'outbound'), 1);
        assert.equal(count('PDUSessionResourceNotify', 'inbound'), 1);
        assert.equal(count('SecondaryRATDataUsageReport', 'inbound'), 1);
        assert.equal(count('ErrorIndication', 'inbound'), 1);
        assert.equal(count('ErrorIndication', 'outbound'), 1);
      });

      it('NAS Non Delivery Indication: the Authentication Request retransmitted, the UE registered', () => {
        assert.deepEqual(step('non-delivery'), {
          step: 'non-delivery',
          registration: 'accepted',
          causes: [{ choice: 'radioNetwork', value: 'interaction-with-other-procedure' }],
        });
        assert.equal(count('NASNonDeliveryIndication', 'inbound'), 1);
      });

      it('at the UE context limit both radios hear Overload Start, and Overload Stop once a UE left', () => {
        assert.deepEqual(step('overload'), {
          step: 'overload',
          refused: 22,
          started: ['reject-rrc-cr-signalling', 'reject-rrc-cr-signalling'],
          deregistered: 'accepted',
          stopped: ['stopped', 'stopped'],
        });
        assert.equal(count('OverloadStart', 'outbound'), 2);
        assert.equal(count('OverloadStop', 'outbound'), 2);
      });

      it('tshark reads every NGAP PDU the service sent, and the radios but the garbage, as recorded', async () => {
        const decodable = events.filter((e) => e.message_type !== 'Unknown');
        assert.equal(events.length - decodable.length, 1, 'only the garbage is unknown');
        assert.ok(decodable.some((e) => e.direction === 'outbound'));
        const verdicts = await tshark(
          'ngap',
          decodable.map((e) => Buffer.from(e.raw, 'base64')),
        );
        verdicts.forEach((verdict, i) => {
          const type = decodable[i]!.message_type;
          assert.equal(verdict.malformed, false, `${type} malformed`);
          assert.equal(verdict.expert, '', `${type}: ${verdict.expert}`);
          assert.ok(verdict.info.includes(type), `tshark says ${verdict.info}, the record ${type}`);
        });
      });
    },
  );
}
