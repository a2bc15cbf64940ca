import type { Logger } from 'pino';
import type { Clock, Timers } from '../clock.ts';
import { createUuidV7Generator } from '../ids/uuid-v7.ts';
import type { NetworkEvents } from '../network/events/network-events.ts';
import type { NetworkState } from '../network/network-state.ts';
import type { ConfigurationEvents } from '../network/ports/configuration-events.ts';
import type { AuditLogService } from '../resources/audit-logs/audit-logs.service.ts';
import { createCellPositionsRepository } from '../resources/cell-positions/cell-positions.repository.ts';
import { createCellPositionsService } from '../resources/cell-positions/cell-positions.service.ts';
import { createLocationServicesPort } from '../resources/positioning/location-services-port.ts';
import { createLocator } from '../resources/positioning/locator.ts';
import { createPositioningSessionsRepository } from '../resources/positioning/positioning-sessions.repository.ts';
import { createPositioningService } from '../resources/positioning/positioning.service.ts';
import { createSessionRunner } from '../resources/positioning/session-runner.ts';
import type { SubscribersRepository } from '../resources/subscribers/subscribers.repository.ts';
import type { Db } from '../storage/database.ts';
import type { CoreWiring } from './wiring.ts';

/** Location (beta): cell positions, location requests and positioning sessions. */
export function wireLocation(
  core: CoreWiring,
  deps: {
    db: Db;
    audit: AuditLogService;
    clock: Clock;
    timers: Timers;
    logger: Logger;
    state: NetworkState;
    events: NetworkEvents;
    subscribers: SubscribersRepository;
    configuration: ConfigurationEvents;
  },
) {
  const { db, audit, clock, state, subscribers } = deps;
  const newId = createUuidV7Generator(clock);
  const cellPositions = createCellPositionsRepository(db);
  const sessions = createPositioningSessionsRepository(db);
  // The network offers its location services here while N2 runs (n2.wiring.ts).
  const locationServices = createLocationServicesPort();
  const locator = createLocator({ subscribers, cellPositions, state, locationServices });
  const runner = createSessionRunner({
    db,
    sessions,
    subscribers,
    locator,
    events: deps.events,
    configuration: deps.configuration,
    clock,
    timers: deps.timers,
    logger: deps.logger,
  });
  // Sessions active when the process stopped go on; every timer stops with the core.
  core.component({ name: 'positioning', start: () => runner.restore(db), stop: () => runner.stop() });
  core.onRestored((executor) => runner.restore(executor));
  core.retention.register({
    recordType: 'positioning_sessions',
    label: 'ended positioning session',
    defaultDays: 30,
    deleteOlderThan: (cutoff, limit) => sessions.deleteEndedBefore(cutoff, limit),
  });

  return {
    runner,
    locationServices,
    cellPositions: createCellPositionsService({ db, cellPositions, audit, newId }),
    positioning: createPositioningService({ db, sessions, locator, runner, audit, clock, newId }),
  };
}
