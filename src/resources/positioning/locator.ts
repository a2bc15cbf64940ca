import type { NetworkState, ServingCell } from '../../network/network-state.ts';
import type { Executor } from '../../storage/transaction.ts';
import type { CellPositionsRepository } from '../cell-positions/cell-positions.repository.ts';
import type { SubscribersRepository } from '../subscribers/subscribers.repository.ts';
import { cellIdResult, type LocationResult } from './location-result.ts';

/** What a Cell ID lookup found: an estimate, or why there is none. */
export type LocateOutcome =
  | { kind: 'located'; result: LocationResult; cell: ServingCell }
  | { kind: 'unknown-subscriber' }
  | { kind: 'not-connected' }
  | { kind: 'no-serving-cell' }
  | { kind: 'no-position'; cell: ServingCell };

/**
 * Cell ID positioning: the subscriber's serving cell, from the network state, resolved to its provisioned
 * position. Immediate requests and every session evaluation go through here.
 */
export function createLocator(deps: {
  subscribers: SubscribersRepository;
  cellPositions: CellPositionsRepository;
  state: NetworkState;
}) {
  const { subscribers, cellPositions, state } = deps;

  return {
    async locate(imsi: string, executor: Executor): Promise<LocateOutcome> {
      const known = await subscribers.existingImsis([imsi], executor);
      if (known.length === 0) return { kind: 'unknown-subscriber' };
      const live = state.subscriber(imsi);
      if (!live.registered) return { kind: 'not-connected' };
      const cell = live.servingCell;
      if (!cell) return { kind: 'no-serving-cell' };
      const position = await cellPositions.findByCell(cell, executor);
      if (!position) return { kind: 'no-position', cell };
      return { kind: 'located', result: cellIdResult(cell, position, live.radioMeasurements), cell };
    },
  };
}

export type Locator = ReturnType<typeof createLocator>;
