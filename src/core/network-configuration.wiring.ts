import type { Clock } from '../clock.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { NetworkState } from '../network/network-state.ts';
import type { ConfigurationChanges, ConfigurationEvents } from '../network/ports/configuration-events.ts';
import type { AuditLogService } from '../resources/audit-logs/audit-logs.service.ts';
import { createDataNetworksRepository } from '../resources/data-networks/data-networks.repository.ts';
import { createDataNetworksService } from '../resources/data-networks/data-networks.service.ts';
import { createHomeNetworkKeysRepository } from '../resources/operator/home-network-keys.repository.ts';
import { createN2AllowlistService } from '../resources/operator/n2-allowlist.service.ts';
import { createNetworkSecurityService } from '../resources/operator/network-security.service.ts';
import { seedNetworkDefaults } from '../resources/operator/network-defaults.ts';
import { createOperatorRepository } from '../resources/operator/operator.repository.ts';
import { createOperatorService } from '../resources/operator/operator.service.ts';
import { createPoliciesRepository } from '../resources/policies/policies.repository.ts';
import { createPoliciesService } from '../resources/policies/policies.service.ts';
import { createProfilesRepository } from '../resources/profiles/profiles.repository.ts';
import { createProfilesService } from '../resources/profiles/profiles.service.ts';
import { createSlicesRepository } from '../resources/slices/slices.repository.ts';
import { createSlicesService } from '../resources/slices/slices.service.ts';
import { createSubscribersRepository } from '../resources/subscribers/subscribers.repository.ts';
import { createSubscribersService } from '../resources/subscribers/subscribers.service.ts';
import type { PeerViews } from '../resources/subscribers/peer-views.ts';
import type { Db } from '../storage/database.ts';
import { createAuthenticationData } from '../storage/network-ports/authentication-data.ts';
import { createOperatorConfiguration } from '../storage/network-ports/operator-configuration.ts';
import {
  createSmscOutbox,
  createSmsStore,
  createSmsSubscribers,
} from '../storage/network-ports/sms-store.ts';
import { createSmscConfiguration } from '../storage/network-ports/smsc-configuration.ts';
import { createSmscLinkRepository } from '../resources/sms/smsc-link.repository.ts';
import { createSmscLinkService, type SmscLinkStatus } from '../resources/sms/smsc-link.service.ts';
import { createSmsRepository } from '../resources/sms/sms.repository.ts';
import { SMS_RETENTION } from '../resources/sms/sms-retention.ts';
import { createSmsService } from '../resources/sms/sms.service.ts';
import { wireSmsQueued } from './sms-queued.wiring.ts';
import { createSubscriptionData } from '../storage/network-ports/subscription-data.ts';
import { createMemoryUeContextStore } from '../network/working-state/memory-ue-contexts.ts';
import { createUeContextStore } from '../storage/network-ports/ue-context-store.ts';
import { createAddressLeasesStore } from '../storage/network-ports/address-leases-store.ts';
import { createStrandedLeasesStore } from '../storage/network-ports/stranded-leases-store.ts';
import { createMemoryAddressLeases } from '../network/working-state/memory-address-leases.ts';
import type { AddressLeases } from '../network/ports/address-leases.ts';
import type { Executor } from '../storage/transaction.ts';
import type { CoreWiring } from './wiring.ts';

/**
 * Operator, data networks, slices, profiles, policies and subscribers; the first-start defaults; and the
 * ports through which the network functions read them (authentication data, subscription data,
 * operator configuration).
 */
export async function wireNetworkConfiguration(
  core: CoreWiring,
  deps: {
    db: Db;
    /** Other processes serve from the database too (an AMF set on PostgreSQL). */
    sharedByProcesses: boolean;
    /** What the other live members of the AMF set show of subscribers (PostgreSQL only). */
    peerViews?: PeerViews;
    audit: AuditLogService;
    clock: Clock;
    secretBox: SecretBox;
    state: NetworkState;
    changes: ConfigurationChanges;
    /** Changes made through other processes on the database. */
    changesFromOthers: ConfigurationEvents;
  },
) {
  const { db, audit, clock, secretBox, state, changes } = deps;
  const operator = createOperatorRepository(db);
  const dataNetworks = createDataNetworksRepository(db);
  const slices = createSlicesRepository(db);
  const profiles = createProfilesRepository(db);
  const policies = createPoliciesRepository(db);
  const subscribers = createSubscribersRepository(db);
  const homeNetworkKeys = createHomeNetworkKeysRepository(db);

  const seedDefaults = (executor: Executor) =>
    seedNetworkDefaults({ db: executor, secretBox, operator, dataNetworks, slices, profiles, policies });
  const firstStart = await seedDefaults(db);
  // A database from before the network configuration existed gets the first-start defaults.
  core.onRestored(async (executor) => void (await seedDefaults(executor)));

  const operatorService = createOperatorService({ db, operator, subscribers, audit, secretBox, changes });
  // UE contexts outlive their process only where other members of an AMF set may take its UEs over; a
  // single process (SQLite) keeps them in memory, and a restart costs devices their registration
  // (docs/decisions.md 15): writing each procedure's end cost it about a fifth more CPU per registration.
  const ueContexts = deps.sharedByProcesses
    ? createUeContextStore({ db, secretBox, clock, notices: core.notices })
    : createMemoryUeContextStore();
  const subscribersService = createSubscribersService({
    db,
    subscribers,
    profiles,
    operator: operatorService,
    audit,
    state,
    ueContexts,
    peers: deps.peerViews,
    secretBox,
    clock,
    changes,
  });
  core.onRestored(async () => subscribersService.forgetListPositions());
  // The list positions follow this process's writes; another's insert or delete shifts them unseen.
  deps.changesFromOthers.subscribe(({ resource, change }) => {
    if (resource === 'subscriber' && change !== 'changed') subscribersService.forgetListPositions();
  });
  core.notices.onMissed(() => subscribersService.forgetListPositions());

  const smsSubscribers = createSmsSubscribers({ db });
  const smsRepository = createSmsRepository(db);
  const sms = createSmsService({ db, sms: smsRepository, subscribers: smsSubscribers, audit, clock });
  // A message stored for a UE another member serves reaches that member's SMSF (docs/sms.md).
  const smsQueued = wireSmsQueued({
    notices: core.notices,
    store: createSmsStore({ db }),
    onApiQueued: (listener) => sms.onQueued(listener),
  });
  core.retention.register({
    ...SMS_RETENTION,
    deleteOlderThan: (cutoff, limit) => smsRepository.deleteOlderThan(cutoff, limit),
  });
  // A message whose recipient never comes back is shown expired all the same (the SMSF marks the others
  // when their recipient returns).
  core.job({
    name: 'sms-expiry',
    intervalMs: 10 * 60_000,
    job: async () => void (await smsRepository.expireQueued(clock.now())),
  });
  core.metrics.gauge({
    name: 'pmn_sms_messages',
    help: 'Short messages stored, by direction (mobile-originated, network-originated) and status',
    labelNames: ['direction', 'status'],
    collect: async () =>
      (await smsRepository.countsByDirectionAndStatus()).map(({ direction, status, count }) => ({
        labels: { direction, status },
        value: count,
      })),
  });
  // The SMSC link runs with the network side (n2.wiring.ts), which tells which one runs for its status.
  let smscLinkRunning: { status(): SmscLinkStatus } | undefined;
  const smscLink = createSmscLinkService({
    db,
    repository: createSmscLinkRepository(db),
    audit,
    secretBox,
    clock,
    changes,
    status: () => smscLinkRunning?.status() ?? { state: 'disabled' },
  });
  const SMSC_LINK_STATES = ['disabled', 'connecting', 'bound'] as const;
  core.metrics.gauge({
    name: 'pmn_smsc_link_state',
    help: 'The SMSC link now: 1 for its state (disabled, connecting, bound), 0 for the others',
    labelNames: ['state'],
    collect: () => {
      const now = smscLinkRunning?.status().state ?? 'disabled';
      return SMSC_LINK_STATES.map((state) => ({ labels: { state }, value: state === now ? 1 : 0 }));
    },
  });
  const smscPdus = core.metrics.counter({
    name: 'pmn_smsc_pdus_total',
    help: 'SMPP PDUs on the SMSC link, by direction (sent, received) and command (malformed: did not decode)',
    labelNames: ['direction', 'command'],
  });

  return {
    /** True when this start created the default operator, data network, slice, profile and policy. */
    firstStart,
    operator: operatorService,
    subscribers: subscribersService,
    networkSecurity: createNetworkSecurityService({
      db,
      keys: homeNetworkKeys,
      operator,
      audit,
      secretBox,
      clock,
      changes,
    }),
    n2Allowlist: createN2AllowlistService({ db, operator, audit, changes }),
    dataNetworks: createDataNetworksService({ db, dataNetworks, policies, audit, state, changes }),
    slices: createSlicesService({ db, slices, policies, audit, changes }),
    profiles: createProfilesService({ db, profiles, policies, subscribers, audit, changes }),
    policies: createPoliciesService({ db, policies, dataNetworks, profiles, slices, audit, changes }),
    /** Read by location, which resolves subscribers itself. */
    subscribersRepository: subscribers,
    ports: {
      authenticationData: createAuthenticationData({ db, subscribers, secretBox }),
      subscriptionData: createSubscriptionData({ db }),
      operatorConfiguration: createOperatorConfiguration({
        db,
        operator,
        slices,
        homeNetworkKeys,
        secretBox,
      }),
      /** The SMSF's message store and the subscribers' SMS data (docs/sms.md). */
      smsStore: smsQueued.store,
      smsSubscribers,
      /**
       * The AMF's UE contexts (the UDSF role): in the database where an AMF set may run (shared by its
       * members, kept across a restart), in memory for a single process (docs/amf-set.md).
       */
      ueContexts,
      /**
       * The SMF's UE address leases for the AMF named `owner`: in the database where the members of an AMF
       * set share the pools (PostgreSQL), so no two lease one address and a takeover keeps a session's;
       * in this process's memory otherwise, as its sessions are (docs/amf-set.md, "Address leases").
       */
      addressLeases: (owner: string): AddressLeases =>
        deps.sharedByProcesses ? createAddressLeasesStore({ db, owner, clock }) : createMemoryAddressLeases(),
      /**
       * The leases of gone members, for the sweep that frees those no UE context names; only where the set
       * runs: a single process's leases end with it (docs/amf-set.md, "Lease reclamation").
       */
      strandedLeases: deps.sharedByProcesses ? createStrandedLeasesStore({ db, clock }) : undefined,
      /** Tells the SMSF of each message queued for a UE (through any process's API or SMSF), by its IMSI. */
      smsQueued: (listener: (imsi: string) => void) => smsQueued.queued(listener),
      /** The SMSC link's configuration and outbox; the network side says which link runs (its status). */
      smscLink: {
        configuration: createSmscConfiguration({ db, secretBox }),
        outbox: createSmscOutbox({ db }),
        onPdu: (direction: 'sent' | 'received', command: string) => smscPdus.inc({ direction, command }),
        running: (link: { status(): SmscLinkStatus } | undefined) => void (smscLinkRunning = link),
      },
    },
    /** The SMSC link's configuration through the API (docs/sms.md, "SMSC link"). */
    smscLink,
    /** Operator-originated short messages, their list and clear (docs/sms.md, "API"). */
    sms,
  };
}
