// The members of an AMF set in one process for tests (amf-set-takeover.test.ts, amf-set-adoption.test.ts):
// each its own AMF, SMF and fake UPF on one shared UE context store.
import { randomBytes } from 'node:crypto';
import { systemClock } from '../../../src/clock.ts';
import { createSecretBox } from '../../../src/crypto/secret-box.ts';
import { withCipheredContainer } from '../../../src/network/nas/initial-message-container.ts';
import { encodeNasMessage, type NasMessage } from '../../../src/network/nas/index.ts';
import type { NGAPPDU } from '../../../src/network/ngap/generated/types.ts';
import type { AddressLeases } from '../../../src/network/ports/address-leases.ts';
import type { UeContextStore } from '../../../src/network/ports/ue-contexts.ts';
import { createMemoryUeContextStore } from '../../../src/network/working-state/memory-ue-contexts.ts';
import { createAddressLeasesStore } from '../../../src/storage/network-ports/address-leases-store.ts';
import { createUeContextStore } from '../../../src/storage/network-ports/ue-context-store.ts';
import type { Db } from '../../../src/storage/database.ts';
import { openStorage, type Storage } from '../../../src/storage/storage.ts';
import { freshPostgresDatabase, onPostgres } from '../../helpers/postgres-test-database.ts';
import { until } from '../../helpers/until.ts';
import { answered, settle, step, type Ids, type StepRadio } from './amf-steps.ts';
import { countingUserPlane, encodeTransfer, setupResponse, TRANSFERS } from './session-fuzz-messages.ts';
import type { TestUe } from './test-ue.ts';
import { createAmfHarness, uplinkNasTransport, type AmfHarness } from './test-ue.ts';

/**
 * The store the members share: in memory, or the database store on the run's database (SQLite in memory,
 * or PostgreSQL with PMN_TEST_DB=postgres), whose storage is pushed on `storages` for the caller to close.
 */
export async function openSharedStore(
  shared: 'memory' | 'SQLite' | 'PostgreSQL',
  storages: Storage[],
): Promise<UeContextStore> {
  if (shared === 'memory') return createMemoryUeContextStore();
  const storage = await openStorage({ path: onPostgres ? await freshPostgresDatabase() : ':memory:' });
  storages.push(storage);
  const store = createUeContextStore({ db: storage.db, secretBox: createSecretBox(randomBytes(32)) });
  databaseOf.set(store, storage.db);
  return store;
}

/**
 * A user plane that remembers the UE addresses its sessions were installed with, and the sessions whose
 * downlink was set to a gNB's tunnel (the real UPF then sends what it buffered, docs/upf.md).
 */
export function addressedUserPlane(): ReturnType<typeof countingUserPlane> & {
  addresses: string[];
  downlinks: number[];
} {
  const plane = countingUserPlane();
  const addresses: string[] = [];
  const downlinks: number[] = [];
  const establish = plane.establishSession.bind(plane);
  plane.establishSession = (request) => {
    if (request.ueIpv4 !== undefined) addresses.push(request.ueIpv4);
    return establish(request);
  };
  const update = plane.updateDownlink.bind(plane);
  plane.updateDownlink = (id, downlink) => {
    downlinks.push(id);
    return update(id, downlink);
  };
  return Object.assign(plane, { addresses, downlinks });
}

/** The database a shared store is in: its members lease addresses there (docs/amf-set.md, "Address leases"). */
export const databaseOf = new WeakMap<UeContextStore, Db>();

/**
 * One member of the AMF set: its own AMF, SMF and (fake) UPF, writing to the shared store. `deaf`: it
 * never hears of another's take-over (a process paused while the notice went, or whose notices were
 * lost), so only the fencing of its writes and its ownership check stop its stale copy. `leases`
 * wraps its address leases in the database.
 */
export async function member(
  store: UeContextStore,
  name: string,
  pointer: number,
  options: { deaf?: boolean; leases?: (leases: AddressLeases) => AddressLeases } = {},
) {
  const { deaf = false, leases = (l: AddressLeases) => l } = options;
  const userPlane = addressedUserPlane();
  const db = databaseOf.get(store);
  const addressLeases =
    db === undefined ? undefined : leases(createAddressLeasesStore({ db, owner: name, clock: systemClock }));
  const ueContexts: UeContextStore = deaf ? { ...store, onTaken: () => () => undefined } : store;
  const h = await createAmfHarness(
    {},
    {},
    { ueContexts, addressLeases, userPlane, identity: { name, pointer } },
  );
  return { h, userPlane, radio: await h.radio() };
}

export async function establishSession(
  h: AmfHarness,
  radio: StepRadio & { received: unknown[] },
  ue: TestUe,
  ids: Ids,
) {
  const establishment = encodeNasMessage({
    messageType: 'pduSessionEstablishmentRequest',
    pduSessionId: 1,
    pti: 1,
    integrityProtectionMaximumDataRate: { uplink: 255, downlink: 255 },
    pduSessionType: 1,
  });
  const nas = ue.protect({
    messageType: 'ulNasTransport',
    payloadContainerType: 1,
    payloadContainer: establishment,
    pduSessionId: 1,
    requestType: 1,
    dnn: 'internet',
    sNssai: { sst: 1, sd: 0x010203 },
  });
  // On SQL the SMF leases the address in the database (round trips): its answer is waited for.
  await initialStep(h, radio, ue, uplinkNasTransport(ids, nas));
  await step(
    h,
    radio,
    ue,
    setupResponse(ids, [{ psi: 1, transfer: encodeTransfer(TRANSFERS.setupResponse) }]),
  );
}

/** The UE's Service Request for its session 1's uplink data, the whole message in the ciphered container. */
export function serviceRequestWithData(
  ue: TestUe,
  guti: { amfSetId: number; amfPointer: number; tmsi: number },
  /** 1 data; 2 mobile terminated services, the answer to paging (TS 24.501 9.11.3.50). */
  serviceType = 1,
) {
  const security = ue.security!;
  const message = withCipheredContainer(security, security.nextSendCount, {
    messageType: 'serviceRequest' as const,
    ngKsi: security.ngKsi,
    serviceType,
    fiveGSTmsi: {
      type: '5g-s-tmsi' as const,
      amfSetId: guti.amfSetId,
      amfPointer: guti.amfPointer,
      tmsi: guti.tmsi,
    },
    uplinkDataStatus: [1],
    pduSessionStatus: [1],
  });
  return ue.protect(message, 1);
}

export const types = (nas: NasMessage[]) => nas.map((m) => m.messageType);

/**
 * `step` for an initial NAS message a takeover answers: the store's reads and take-over are round trips
 * to a database (PostgreSQL's take several turns of the event loop), so the answer is waited for.
 */
export async function initialStep(
  h: AmfHarness,
  radio: StepRadio & { received: unknown[] },
  ue: TestUe,
  pdu: NGAPPDU,
) {
  const from = radio.received.length;
  const first = await step(h, radio, ue, pdu);
  await until('an answer to the initial NAS message', async () => {
    await settle(h);
    return radio.received.length > from;
  });
  return first.pdus.length > 0 ? first : answered(radio, ue, from);
}
