import type { Timers } from '../../src/clock.ts';
import type { Cause, NGAPPDU } from '../../src/network/ngap/generated/types.ts';
import { decodeNgapPdu, encodeNgapPdu, ngapMessageType } from '../../src/network/ngap/ngap-codec.ts';
import { bits, plmnIdentity } from '../../src/network/ngap/ngap-values.ts';
import type {
  AssociationEvent,
  N2Association,
  N2Listener,
  N2Transport,
} from '../../src/network/transport/n2-transport.ts';
import { NGAP_PPID } from '../../src/network/transport/n2-transport.ts';

/**
 * A stand-in AMF for the simulator's own tests: it answers NG Setup, RAN Configuration Update and NG
 * Reset as told, and lets a test send anything to a radio. Not the real AMF (`src/network/amf/`): the
 * end-to-end tests in test/e2e drive that one.
 */

export interface AmfReceived {
  association: number;
  bytes: Uint8Array;
  messageType: string;
  pdu: NGAPPDU | undefined;
}

const plmn = plmnIdentity('001', '01');

export const AMF_NAME = 'amf.scripted';

export function ngSetupResponse(): NGAPPDU {
  return {
    choice: 'successfulOutcome',
    value: {
      procedureCode: 21,
      name: 'NGSetup',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 1, name: 'AMFName', criticality: 'reject', value: AMF_NAME },
          {
            id: 96,
            name: 'ServedGUAMIList',
            criticality: 'reject',
            value: [
              {
                gUAMI: {
                  pLMNIdentity: plmn,
                  aMFRegionID: bits(0xca, 8),
                  aMFSetID: bits(0x3f5, 10),
                  aMFPointer: bits(1, 6),
                },
              },
            ],
          },
          { id: 86, name: 'RelativeAMFCapacity', criticality: 'ignore', value: 200 },
          {
            id: 80,
            name: 'PLMNSupportList',
            criticality: 'reject',
            value: [
              {
                pLMNIdentity: plmn,
                sliceSupportList: [
                  { sNSSAI: { sST: Uint8Array.of(1), sD: Uint8Array.of(0x01, 0x02, 0x03) } },
                ],
              },
            ],
          },
        ],
      },
    },
  };
}

export function failure(procedure: 'NGSetup' | 'RANConfigurationUpdate', cause: Cause): NGAPPDU {
  const ies = [
    { id: 15, name: 'Cause', criticality: 'ignore', value: cause },
    { id: 107, name: 'TimeToWait', criticality: 'ignore', value: 'v10s' },
  ] as const;
  return procedure === 'NGSetup'
    ? {
        choice: 'unsuccessfulOutcome',
        value: {
          procedureCode: 21,
          name: 'NGSetup',
          criticality: 'reject',
          value: { protocolIEs: [...ies] },
        },
      }
    : {
        choice: 'unsuccessfulOutcome',
        value: {
          procedureCode: 35,
          name: 'RANConfigurationUpdate',
          criticality: 'reject',
          value: { protocolIEs: [...ies] },
        },
      };
}

/**
 * Timers a test fires by moving time (`advance`), for the simulator's response timeouts. The app's
 * `manualClock` (test/helpers/test-app.ts) does the same but its module loads the whole core.
 */
export function steppedTimers(): Timers & { advance(ms: number): void } {
  let now = 0;
  const due = new Set<{ at: number; callback: () => void }>();
  return {
    after(ms, callback) {
      const timer = { at: now + ms, callback };
      due.add(timer);
      return () => void due.delete(timer);
    },
    advance(ms) {
      now += ms;
      for (const timer of [...due].sort((a, b) => a.at - b.at)) {
        if (timer.at > now) break;
        due.delete(timer);
        timer.callback();
      }
    },
  };
}

export class ScriptedAmf {
  readonly received: AmfReceived[] = [];
  readonly associations = new Map<number, N2Association>();
  readonly ends = new Map<number, AssociationEvent>();
  /** The answer to the next NG Setup Requests; `undefined` leaves them unanswered. */
  ngSetupAnswer: (() => NGAPPDU) | undefined = ngSetupResponse;
  ranConfigurationUpdateAnswer: (() => NGAPPDU) | undefined = () => ({
    choice: 'successfulOutcome',
    value: {
      procedureCode: 35,
      name: 'RANConfigurationUpdate',
      criticality: 'reject',
      value: { protocolIEs: [] },
    },
  });
  readonly #waiters: ((received: AmfReceived) => void)[] = [];
  /** Called with every PDU received, after the waiters (e.g. a stand-in for the AMF's UE procedures). */
  readonly listeners = new Set<(received: AmfReceived) => void>();
  listener: N2Listener | undefined;

  static async listen(transport: N2Transport, address = '127.0.0.1', port = 38412): Promise<ScriptedAmf> {
    const amf = new ScriptedAmf();
    amf.listener = await transport.listen({ addresses: [address], port }, (association) => {
      amf.associations.set(association.id, association);
      return {
        message: (message) => amf.#receive(association, message.payload),
        event: (event) => {
          if (event.type === 'communication-lost' || event.type === 'shutdown-complete') {
            amf.ends.set(association.id, event);
          }
        },
      };
    });
    return amf;
  }

  /** Resolves with the next PDU received of this type (whichever association). */
  next(messageType: string): Promise<AmfReceived> {
    return new Promise((resolve) => {
      const waiter = (received: AmfReceived) => {
        if (received.messageType !== messageType) return;
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        resolve(received);
      };
      this.#waiters.push(waiter);
    });
  }

  send(association: number, pdu: NGAPPDU | Uint8Array): void {
    const bytes = pdu instanceof Uint8Array ? pdu : encodeNgapPdu(pdu);
    this.associations.get(association)?.send(0, NGAP_PPID, bytes);
  }

  #receive(association: N2Association, bytes: Uint8Array): void {
    const decoded = decodeNgapPdu(bytes);
    const pdu = decoded.ok ? decoded.value : undefined;
    const received = {
      association: association.id,
      bytes,
      messageType: pdu === undefined ? 'Unknown' : ngapMessageType(pdu),
      pdu,
    };
    this.received.push(received);
    for (const waiter of [...this.#waiters]) waiter(received);
    for (const listener of [...this.listeners]) listener(received);
    const answer: NGAPPDU | undefined =
      received.messageType === 'NGSetupRequest'
        ? this.ngSetupAnswer?.()
        : received.messageType === 'RANConfigurationUpdate'
          ? this.ranConfigurationUpdateAnswer?.()
          : received.messageType === 'NGReset'
            ? ({
                choice: 'successfulOutcome',
                value: {
                  procedureCode: 20,
                  name: 'NGReset',
                  criticality: 'reject',
                  value: { protocolIEs: [] },
                },
              } as const)
            : undefined;
    if (answer !== undefined) this.send(association.id, answer);
  }
}
