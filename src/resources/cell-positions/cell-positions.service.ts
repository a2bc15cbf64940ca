import { ConflictError, InvalidError, NotFoundError } from '../../errors.ts';
import type { UuidV7Generator } from '../../ids/uuid-v7.ts';
import type { Db } from '../../storage/database.ts';
import type { Executor } from '../../storage/transaction.ts';
import type { Actor } from '../../identity/actor.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import { withConstraintConflicts } from '../references.ts';
import type { CellKey, CellPosition, CellPositionsRepository, CellRat } from './cell-positions.repository.ts';

/** What a create or an update carries (the API's fields, before normalisation). */
interface CellPositionInput {
  rat: CellRat;
  mcc: string;
  mnc: string;
  cell_identity: string;
  gnb_id?: string;
  latitude: number;
  longitude: number;
  altitude?: number;
  uncertainty_semi_major?: number;
  uncertainty_semi_minor?: number;
  orientation_major?: number;
  confidence?: number;
}

/** Every record made through the API; other sources (measured, imported) may come later. */
const PROVISIONED = 'provisioned';

/** Hex digits of the cell identity: NCI 36 bits (TS 38.413), ECI 28 bits (TS 36.413). */
const CELL_IDENTITY_DIGITS: Record<CellRat, number> = { nr: 9, eutra: 7 };

/** How a cell is named in messages and audit details: `nr 001-01 cell 00000001f`. */
export const describeCell = (cell: CellKey): string =>
  `${cell.rat} ${cell.mcc}-${cell.mnc} cell ${cell.cellIdentity}`;

/** Checks what the schema cannot (rules between fields) and normalises hex to lower case. */
function toPosition(id: string, input: CellPositionInput): CellPosition {
  const digits = CELL_IDENTITY_DIGITS[input.rat];
  if (input.cell_identity.length !== digits) {
    throw new InvalidError(`cell_identity must be ${digits} hexadecimal digits for rat ${input.rat}`);
  }
  const major = input.uncertainty_semi_major;
  const minor = input.uncertainty_semi_minor;
  if (minor !== undefined && major !== undefined && minor > major) {
    throw new InvalidError('uncertainty_semi_minor must not exceed uncertainty_semi_major');
  }
  return {
    id,
    rat: input.rat,
    mcc: input.mcc,
    mnc: input.mnc,
    cellIdentity: input.cell_identity.toLowerCase(),
    gnbId: input.gnb_id?.toLowerCase(),
    latitude: input.latitude,
    longitude: input.longitude,
    altitude: input.altitude,
    uncertaintySemiMajor: major,
    uncertaintySemiMinor: minor,
    orientationMajor: input.orientation_major,
    confidence: input.confidence,
    source: PROVISIONED,
  };
}

const duplicateOf = (cell: CellKey) => `a cell position for ${describeCell(cell)} already exists`;

export function createCellPositionsService(deps: {
  db: Db;
  cellPositions: CellPositionsRepository;
  audit: AuditLogService;
  newId: UuidV7Generator;
}) {
  const { db, cellPositions, audit, newId } = deps;

  async function getIn(executor: Executor, id: string): Promise<CellPosition> {
    const found = await cellPositions.findById(id, executor);
    if (!found) throw new NotFoundError(`cell position ${id} not found`);
    return found;
  }

  /** 409 when another record already holds the cell. */
  async function refuseDuplicate(executor: Executor, position: CellPosition): Promise<void> {
    const holder = await cellPositions.findByCell(position, executor);
    if (holder && holder.id !== position.id) throw new ConflictError(duplicateOf(position));
  }

  return {
    list: (): Promise<CellPosition[]> => cellPositions.list(),

    get: (id: string): Promise<CellPosition> => getIn(db, id),

    /** Returns the new record's id. */
    async create(input: CellPositionInput, actor: Actor): Promise<string> {
      const position = toPosition(newId(), input);
      await withConstraintConflicts({ duplicate: duplicateOf(position) }, () =>
        db.transaction().execute(async (trx) => {
          await refuseDuplicate(trx, position);
          await cellPositions.insert(position, trx);
          await audit.record(
            actor,
            {
              action: 'create_cell_position',
              details: `Cell position ${position.id} created for ${describeCell(position)}`,
            },
            trx,
          );
        }),
      );
      return position.id;
    },

    async update(id: string, input: CellPositionInput, actor: Actor): Promise<void> {
      const position = toPosition(id, input);
      await withConstraintConflicts({ duplicate: duplicateOf(position) }, () =>
        db.transaction().execute(async (trx) => {
          await getIn(trx, id);
          await refuseDuplicate(trx, position);
          await cellPositions.update(position, trx);
          await audit.record(
            actor,
            {
              action: 'update_cell_position',
              details: `Cell position ${id} updated (${describeCell(position)})`,
            },
            trx,
          );
        }),
      );
    },

    async delete(id: string, actor: Actor): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const found = await getIn(trx, id);
        await cellPositions.delete(id, trx);
        await audit.record(
          actor,
          { action: 'delete_cell_position', details: `Cell position ${id} deleted (${describeCell(found)})` },
          trx,
        );
      });
    },
  };
}

export type CellPositionsService = ReturnType<typeof createCellPositionsService>;
