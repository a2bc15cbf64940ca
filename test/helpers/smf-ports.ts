import pino from 'pino';
import type { Timers } from '../../src/clock.ts';
import { encodeComplete } from '../../src/network/asn1/complete.ts';
import { encodeNasMessage, type FiveGsmMessage } from '../../src/network/nas/index.ts';
import { encodePDUSessionResourceSetupResponseTransfer } from '../../src/network/ngap/generated/codec.ts';
import type { ConfigurationListener } from '../../src/network/ports/configuration-events.ts';
import type { SubscriptionData } from '../../src/network/ports/subscription-data.ts';
import type { N2SmItem, SmfOptions } from '../../src/network/smf/smf.ts';
import type { NetworkEventMap } from '../../src/network/events/network-events.ts';

/**
 * In-memory ports for `createSmf` (the SMF's unit tests and bench/sessions.ts): subscription data, the
 * configuration events, the network state, a UPF and an AMF that record what they are asked. The AMF
 * encodes each 5GSM message as the real one would; `ue` says whether it has an N2 connection (N1/N2
 * messages go) and can be paged.
 */

/** A subscriber of the `default` profile with one policy (`internet`, on SST 1 unless `slice` says otherwise). */
export function defaultSubscription(
  imsi: string,
  options: {
    var5qi?: number;
    ambr?: string;
    pool?: string;
    slice?: SubscriptionData['authorisedSessions'][number]['slice'];
  } = {},
): SubscriptionData {
  const { var5qi = 9, ambr = '1 Gbps', pool = '10.0.0.0/24' } = options;
  const slice = 'slice' in options ? options.slice : { sst: 1 };
  return {
    imsi,
    profile: {
      name: 'default',
      ueIpPool: pool,
      dns: '8.8.8.8',
      mtu: 1400,
      ambrUplink: '1 Gbps',
      ambrDownlink: '1 Gbps',
      var5qi: 9,
      priorityLevel: 90,
    },
    authorisedSessions: [
      {
        policy: 'default',
        dataNetwork: 'internet',
        slice,
        ambrUplink: ambr,
        ambrDownlink: ambr,
        var5qi,
        arp: 1,
      },
    ],
  };
}

/** PDU Session Resource Setup Response Transfer (TS 38.413 9.3.4.2): the gNB's tunnel 127.0.0.2/`teid`. */
export const setupResponseTransfer = (teid: number): Uint8Array =>
  encodeComplete(
    {
      dLQosFlowPerTNLInformation: {
        uPTransportLayerInformation: {
          choice: 'gTPTunnel' as const,
          value: {
            transportLayerAddress: { bytes: Uint8Array.of(127, 0, 0, 2), length: 32 },
            gTPTEID: Uint8Array.of(teid >>> 24, (teid >>> 16) & 0xff, (teid >>> 8) & 0xff, teid & 0xff),
          },
        },
        associatedQosFlowList: [{ qosFlowIdentifier: 1 }],
      },
    },
    true,
    encodePDUSessionResourceSetupResponseTransfer,
  );

export function inMemorySmfPorts(
  timers: Timers,
  subscription: (imsi: string) => SubscriptionData | undefined,
) {
  const ue = { connected: true, pageable: true };
  const n1: FiveGsmMessage[] = [];
  const n2: { kind: 'setup' | 'modify' | 'release'; supi: string; item: N2SmItem }[] = [];
  const upf: string[] = [];
  /** The UPF's forwarding tunnels: TEID by UPF session. */
  const forwarding = new Map<number, number>();
  const pages: string[] = [];
  const released: number[] = [];
  const listeners: ConfigurationListener[] = [];
  let upfId = 0;
  const n2Sent = (kind: 'setup' | 'modify' | 'release', supi: string, item: N2SmItem): boolean => {
    if (!ue.connected) return false;
    if (item.n1 !== undefined) encodeNasMessage(item.n1);
    n2.push({ kind, supi, item });
    return true;
  };
  const options: SmfOptions = {
    subscriptionData: { getSubscriptionData: (imsi) => Promise.resolve(subscription(imsi)) },
    configurationEvents: {
      subscribe: (listener) => {
        listeners.push(listener);
        return () => undefined;
      },
    },
    events: {
      emit: (name, event) => {
        if (name === 'session.released')
          released.push((event as NetworkEventMap['session.released']).pduSessionId);
      },
    },
    userPlane: {
      n3Address: '127.0.0.1',
      establishSession: (r) => {
        upf.push(`add ${upfId + 1}`);
        return {
          ok: true,
          value: {
            id: ++upfId,
            imsi: r.imsi,
            uplinkTeid: r.uplinkTeid,
            ambr: r.ambr,
            userPlane: { state: 'inactive' },
          },
        };
      },
      updateDownlink: (id) => (upf.push(`downlink ${id}`), { ok: true, value: undefined }),
      deactivate: (id) => (upf.push(`deactivate ${id}`), { ok: true, value: undefined }),
      // Indirect forwarding: TEIDs 0x7000 + n; one tunnel per session, a new one replaces it.
      createForwarding: (id, target) => {
        const teid = 0x7000 + upf.length;
        forwarding.set(id, teid);
        upf.push(`forward ${id} ${teid} ${target.gnbAddress} ${target.remoteTeid} ${target.qfi ?? 'none'}`);
        return { ok: true, value: teid };
      },
      removeForwarding: (id) => {
        upf.push(`unforward ${id}`);
        return forwarding.delete(id)
          ? { ok: true, value: undefined }
          : { ok: false, error: 'unknown-session' };
      },
      modifyAmbr: (id) => (upf.push(`ambr ${id}`), { ok: true, value: undefined }),
      release: (id) => (upf.push(`release ${id}`), { ok: true, value: undefined }),
    },
    amf: {
      sendN1: (_supi, message) =>
        ue.connected && encodeNasMessage(message).length > 0 && n1.push(message) > 0,
      setupResources: (supi, item) => n2Sent('setup', supi, item),
      modifyResources: (supi, item) => n2Sent('modify', supi, item),
      releaseResources: (supi, item) => n2Sent('release', supi, item),
      pageForDownlinkData: (supi) => ue.pageable && !ue.connected && pages.push(supi) > 0,
    },
    logger: pino({ level: 'silent' }),
    timers,
  };
  /** A configuration change of `resource` named `default`, told to the SMF's listeners. */
  const changed = (resource: 'policy' | 'profile'): void => {
    for (const listener of listeners) listener({ resource, change: 'changed', name: 'default' });
  };
  return { options, ue, n1, n2, upf, forwarding, pages, released, changed };
}
