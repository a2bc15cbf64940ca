import type { FileHold, RestoredListener } from '../backup/backup.service.ts';
import type { Job } from '../jobs/scheduler.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { RetentionService } from '../retention/retention.service.ts';
import type { ChangeNotices } from '../storage/change-notices.ts';
import type { Component } from './lifecycle.ts';

/** Work the core runs at start and then every `intervalMs` while it runs. */
export interface BackgroundJob {
  name: string;
  intervalMs: number;
  job: Job;
}

/**
 * What an area's wiring file registers with the core beside the code that owns it: retention types,
 * restore listeners, file holds, background jobs and lifecycle components.
 */
export interface CoreWiring {
  retention: RetentionService;
  metrics: Metrics;
  /** Changes told to and heard from the other processes on the database (what memory keeps follows them). */
  notices: ChangeNotices;
  /** Runs after a restore installed another database: reload what was cached from the old one. */
  onRestored(listener: RestoredListener): void;
  /** Asked before a backup or restore takes the database file. */
  onFileHold(hold: FileHold): void;
  job(job: BackgroundJob): void;
  component(component: Component): void;
}
