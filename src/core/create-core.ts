import type { Logger } from 'pino';
import { createBackupService, type FileHold, type RestoredListener } from '../backup/backup.service.ts';
import { systemClock, systemTimers, type Clock, type Timers } from '../clock.ts';
import { DEFAULT_SCRYPT_COST, type ScryptCost } from '../crypto/password-hash.ts';
import { createSecretBox } from '../crypto/secret-box.ts';
import { createScheduler } from '../jobs/scheduler.ts';
import { createMetrics } from '../metrics/metrics.ts';
import { createDiagnostics } from '../profiling/diagnostics.ts';
import { createProfiler } from '../profiling/profiler.ts';
import { createRetentionMetrics } from '../retention/retention-metrics.ts';
import { createRetentionPoliciesRepository } from '../retention/retention-policies.repository.ts';
import { createRetentionService } from '../retention/retention.service.ts';
import { registerDatabaseMetrics } from '../storage/database-metrics.ts';
import { createSubscriberViewsStore } from '../storage/network-ports/subscriber-views-store.ts';
import { openStorage, type StorageOptions } from '../storage/storage.ts';
import { VERSION } from '../version.ts';
import { wireAmfSet } from './amf-set.wiring.ts';
import { registerAuditRetention, wireAudit } from './audit.wiring.ts';
import { createConfigurationEvents } from './configuration-events.ts';
import type { ConfigurationEvents } from '../network/ports/configuration-events.ts';
import { wireIdentity } from './identity.wiring.ts';
import { createLifecycle, type Component } from './lifecycle.ts';
import { wireLocation } from './location.wiring.ts';
import { wireNetworkConfiguration } from './network-configuration.wiring.ts';
import { wireNetworkState } from './network-state.wiring.ts';
import { wireRecords } from './records.wiring.ts';
import type { BackgroundJob, CoreWiring } from './wiring.ts';

const HOUR_MS = 3_600_000;

interface CoreOptions {
  storage: StorageOptions;
  logger: Logger;
  /** The 32-byte key that seals secrets at rest (subscriber keys, OP, private keys); kept outside the database. */
  secretKey: Buffer;
  clock?: Clock;
  /**
   * Timers of per-item background work (positioning sessions) and of the length of CPU profiles and
   * traces; tests pass a manual clock.
   */
  timers?: Timers;
  scryptCost?: ScryptCost;
  loginRateLimit?: number;
  /** Run retention and the other periodic jobs (default true); tests that drive them by hand say false. */
  backgroundJobs?: boolean;
}

/**
 * The core of PMN Core without HTTP: storage, identity, audit, retention, network state, records,
 * network configuration, location and operations, each wired by its own file, with one lifecycle.
 * The HTTP app (`buildHttpApp`) and the network functions are peers built on it; `main.ts` adds them
 * to the lifecycle, so they stop first.
 */
export async function createCore(options: CoreOptions) {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  const lifecycle = createLifecycle({ logger });
  const storage = await openStorage({ ...options.storage, logger });
  try {
    const { db } = storage;
    lifecycle.add({ name: 'database', stop: () => storage.close() });
    const metrics = createMetrics();
    const audit = wireAudit({ db, clock });
    const retention = createRetentionService({
      db,
      policies: createRetentionPoliciesRepository(db),
      audit: audit.service,
      clock,
      logger,
    });
    registerAuditRetention(retention, audit.repository);

    const restoredListeners: RestoredListener[] = [];
    const fileHolds: FileHold[] = [];
    const jobs: BackgroundJob[] = [];
    const components: Component[] = [];
    const wiring: CoreWiring = {
      retention,
      metrics,
      notices: storage.notices,
      onRestored: (listener) => void restoredListeners.push(listener),
      onFileHold: (hold) => void fileHolds.push(hold),
      job: (job) => void jobs.push(job),
      component: (component) => void components.push(component),
    };

    const configuration = createConfigurationEvents({ logger, notices: storage.notices });
    const secretBox = createSecretBox(options.secretKey);
    const identity = await wireIdentity(wiring, {
      db,
      audit: audit.service,
      clock,
      scryptCost: options.scryptCost ?? DEFAULT_SCRYPT_COST,
      loginRateLimit: options.loginRateLimit ?? 10,
      secretBox,
    });
    const amfSet = wireAmfSet(wiring, { db, clock });
    const {
      events: networkEvents,
      state: networkState,
      radios,
      viewWriter,
      peerViews,
    } = wireNetworkState(wiring, {
      clock,
      logger,
      configuration,
      amfSet,
      // The AMF set's read model lives in the database only where several processes share it.
      views: storage.sharedByProcesses ? createSubscriberViewsStore({ db, clock }) : undefined,
      timers: options.timers ?? systemTimers,
    });
    const records = wireRecords(wiring, { db, audit: audit.service, clock, logger, events: networkEvents });
    const networkConfiguration = await wireNetworkConfiguration(wiring, {
      db,
      sharedByProcesses: storage.sharedByProcesses,
      peerViews,
      audit: audit.service,
      clock,
      secretBox,
      state: networkState,
      changes: configuration,
      changesFromOthers: configuration.fromOthers,
    });
    const location = wireLocation(wiring, {
      db,
      audit: audit.service,
      clock,
      timers: options.timers ?? systemTimers,
      logger,
      state: networkState,
      events: networkEvents,
      subscribers: networkConfiguration.subscribersRepository,
      configuration,
    });

    // Operations: metrics, profiling, backup and restore.
    registerDatabaseMetrics(metrics, storage);
    const retentionMetrics = createRetentionMetrics(metrics);
    const profiler = createProfiler(options.timers ?? systemTimers);
    const diagnostics = createDiagnostics();
    const backup = createBackupService({
      db,
      file: storage.file,
      audit: audit.service,
      clock,
      logger,
      version: VERSION,
      secretBox,
    });
    for (const hold of fileHolds) backup.onFileHold(hold);
    for (const listener of restoredListeners) backup.onRestored(listener);
    jobs.unshift({
      name: 'retention',
      intervalMs: HOUR_MS,
      job: async (signal) => retentionMetrics.record(await retention.enforce(signal)),
    });

    // Start order: database, records, positioning, then the periodic jobs; stop in reverse.
    for (const component of components) lifecycle.add(component);
    lifecycle.add({ name: 'diagnostics', stop: () => diagnostics.close() });
    if (options.backgroundJobs ?? true) {
      const scheduler = createScheduler(logger);
      lifecycle.add({
        name: 'background jobs',
        start: () => {
          for (const { name, intervalMs, job } of jobs) void scheduler.every(name, intervalMs, job);
        },
        stop: () => scheduler.stop(),
      });
    }

    return {
      db,
      logger,
      clock,
      metrics,
      version: VERSION,
      migrationsApplied: storage.migrationsApplied,
      /** Components start in order and stop in reverse; HTTP and the network side are added after. */
      lifecycle,
      start: () => lifecycle.start(),
      stop: () => lifecycle.stop(),
      audit: audit.service,
      retention,
      identity,
      /** What happens in the network: the network functions emit, network state and the metrics listen. */
      networkEvents,
      networkState,
      /**
       * The AMF set's read model (PostgreSQL): this member's writer of its view, and what the other
       * live members show; undefined on SQLite (docs/amf-set.md, "One view of the network").
       */
      subscriberViews: viewWriter && peerViews && { writer: viewWriter, peers: peerViews },
      radios,
      /** Configuration changes, published after commit. */
      configuration,
      /** What the network functions read through (network/ports/): defined by them, served by the core. */
      ports: { ...networkConfiguration.ports, configurationEvents: configuration as ConfigurationEvents },
      records,
      networkConfiguration,
      location,
      /** The AMF set's members (docs/decisions.md, 15); the N2 side runs this process's membership. */
      amfSet,
      operations: { backup, profiler, diagnostics },
      /** Periodic work, run by the core's scheduler (listed for the docs and tests). */
      backgroundJobs: jobs,
    };
  } catch (error) {
    await storage.close();
    throw error;
  }
}

export type Core = Awaited<ReturnType<typeof createCore>>;
