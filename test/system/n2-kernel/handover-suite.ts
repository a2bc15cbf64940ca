import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { GuestResult } from '../../../scripts/qemu-sctp/qemu-guest.ts';
import { imsiOf, K, OPC } from '../../e2e/registration-service.ts';
import { EXPERT_WARNING, tshark, worstSeverity } from '../../helpers/tshark.ts';
import { MOVED_CELL } from './handover-scenario.ts';
import { hexCell, startHandoverService, type HandoverService, type ServiceView } from './handover-service.ts';
import { peerUnavailable, runPeer, stepOf, type PeerTransport } from './peer-link.ts';
import { runServiceInGuest, type ServiceInGuest } from './service-in-guest.ts';

/**
 * N2 handover and the procedures of issue 34 item 2 over the `kernel` and `raw` transports (issue 34,
 * "over each SCTP transport"; the e2e tests run them on `udp`): handover-scenario.ts's two strict
 * simulated gNBs against the service of handover-service.ts, set up as `setup` says:
 *   - `raw`: the gNBs in a network namespace (our SCTP on a raw socket), the service on the host, its
 *     AMF on our `raw` stack;
 *   - `kernel`: the gNBs in a qemu guest (the Linux kernel's SCTP), the service on the host on `raw`;
 *   - `kernel-service`: the service in a qemu guest, its AMF on our `kernel` transport (the Linux
 *     kernel's SCTP), the gNBs on the host on our `raw` stack over the tap (service-in-guest.ts); it
 *     reports what it saw to the host, and dumpcap captures the tap.
 * While the UE is at the second gNB the service's side checks the API and the UPF show it there, changes
 * its UE-AMBR (UE Context Modification) and locates it. tshark reads every NGAP PDU the service sent and
 * every one the radios sent but the one undecodable on purpose. With PMN_INTEROP_CAPTURE_DIR set, the
 * radio events' pcapng export of a service on the host is written there as
 * n2-handover-<setup>.pcapng (docs/interop.md's capture).
 */
export type HandoverSetup = PeerTransport | 'kernel-service';

const GNB_NAMES: Record<HandoverSetup, string> = {
  raw: 'raw-ho',
  kernel: 'kernel-ho',
  'kernel-service': 'kernel-svc',
};

/** The file's suite for `setup`; `index` and `imsis` keep files that run at once apart. */
export function handoverSuite(setup: HandoverSetup, index: number, imsis: [number, number, number]): void {
  const [IMSI, ...OTHERS] = imsis.map(imsiOf) as [string, string, string];
  const name = GNB_NAMES[setup];
  const why = peerUnavailable(setup === 'kernel-service' ? 'kernel' : setup);
  const where = setup === 'kernel-service' ? 'the service in the guest on kernel' : 'the service on raw';
  describe(
    `N2 handover and the radio procedures between simulated gNBs over ${setup === 'raw' ? 'raw' : 'kernel'} SCTP, ${where}`,
    { skip: why ?? false, timeout: 240_000 },
    () => {
      const args = { port: 38412, firstGnbId: 0x50, imsi: IMSI, others: OTHERS, key: K, opc: OPC };
      let side: HandoverService | undefined;
      /** The service's address: its N2 and N3. */
      let host: string | undefined;
      let result: GuestResult | undefined;
      let view: ServiceView | undefined;
      /** `kernel-service`: what the tap's capture showed. */
      let wire: ServiceInGuest['wire'] | undefined;

      before(async () => {
        if (setup === 'kernel-service') {
          const run = await runServiceInGuest({ index, args, name });
          ({ result, view, wire } = run);
          host = run.service;
          return;
        }
        result = await runPeer(setup, index, {
          entry: {
            kernel: new URL('guest-handover.ts', import.meta.url),
            raw: new URL('netns-handover.ts', import.meta.url),
          },
          args,
          controlPort: 7879,
          beforeStart: async (link) => {
            host = link.host;
            side = await startHandoverService({
              transport: 'raw',
              address: link.host,
              imsis: [IMSI, ...OTHERS],
            });
          },
          hold: {
            step: 'at-target',
            meanwhile: async () => {
              assert.ok(side, 'the service started');
              await side.atTarget(`${name}-2`);
            },
          },
        });
        const s = side;
        if (s === undefined) return;
        await s.finish();
        view = s.view;
        const captures = process.env.PMN_INTEROP_CAPTURE_DIR;
        if (captures !== undefined) {
          const response = await s.service.t.request({
            method: 'GET',
            url: '/api/v1/ran/events/export.pcapng?protocol=NGAP',
            token: s.service.token,
          });
          await mkdir(captures, { recursive: true });
          await writeFile(join(captures, `n2-handover-${setup}.pcapng`), response.rawPayload);
        }
      });

      after(async () => {
        await side?.close();
      });

      const events = () => view?.events ?? [];
      const step = (stepName: string) => stepOf(result, stepName);
      const count = (type: string, direction: string) =>
        events().filter((e) => e.message_type === type && e.direction === direction).length;

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
          view?.forwardedTo.some((tunnel) => tunnel.includes(' to 10.99.0.2:2152 ')),
          JSON.stringify(view?.forwardedTo),
        );
        assert.ok(view?.atTarget, `the UE was never shown at ${name}-2 with its downlink there`);
      });

      it('a new UE-AMBR reaches the UE at the target by UE Context Modification, answered', () => {
        assert.deepEqual(step('context-modification').received, [{ downlink: 150_000_000, refused: null }]);
        assert.equal(count('UEContextModificationRequest', 'outbound'), 1);
        assert.equal(count('UEContextModificationResponse', 'inbound'), 1);
      });

      it('located at the target: its cell too old, Location Reporting Control finds the cell it moved to', () => {
        assert.deepEqual(step('moved'), { step: 'moved', moved: true });
        assert.deepEqual(view?.located, { status: 200, cell: hexCell(MOVED_CELL) });
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
        // On failure: each Error Indication sent (base64) amid the four events either side of it (the API's order).
        const all = events();
        const answers = all.flatMap((e, i) =>
          e.message_type === 'ErrorIndication' && e.direction === 'outbound'
            ? [
                all
                  .slice(Math.max(0, i - 4), i + 5)
                  .map((p) => (p === e ? `[${e.raw}]` : `${p.direction} ${p.message_type}`))
                  .join(', '),
              ]
            : [],
        );
        assert.equal(answers.length, 1, `Error Indications sent:\n${answers.join('\n')}`);
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

      it(
        'on the tap: tshark reads every NGAP PDU the AMF on the kernel sent; the CRC32c of ours right',
        {
          skip: setup !== 'kernel-service',
        },
        () => {
          assert.ok(wire);
          // Each recorded outbound PDU crossed the tap (an SCTP packet may bundle several).
          const procedures = wire.fromService.flatMap((frame) => frame.procedures.split(','));
          assert.equal(procedures.length, events().filter((e) => e.direction === 'outbound').length);
          for (const frame of wire.fromService) {
            assert.equal(frame.malformed, '', `procedures ${frame.procedures} malformed`);
            assert.ok(
              worstSeverity(frame.severity) < EXPERT_WARNING,
              `procedures ${frame.procedures}: ${frame.severity}`,
            );
          }
          assert.ok(wire.checksums.length > 0);
          // 1 is "Good" (0 bad, 2 unverified).
          assert.deepEqual([...new Set(wire.checksums)], ['1']);
        },
      );

      it('tshark reads every NGAP PDU the service sent, and the radios but the garbage, as recorded', async () => {
        const decodable = events().filter((e) => e.message_type !== 'Unknown');
        assert.equal(events().length - decodable.length, 1, 'only the garbage is unknown');
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
