import type { Selectable } from 'kysely';
import type { CellPositionsTable } from '../../storage/tables/location.ts';
import type { Executor } from '../../storage/transaction.ts';

export type CellRat = 'nr' | 'eutra';

/** A provisioned cell position; optional values are undefined when not provisioned. */
export interface CellPosition {
  id: string;
  rat: CellRat;
  mcc: string;
  mnc: string;
  /** Lower-case hex. */
  cellIdentity: string;
  gnbId: string | undefined;
  latitude: number;
  longitude: number;
  altitude: number | undefined;
  uncertaintySemiMajor: number | undefined;
  uncertaintySemiMinor: number | undefined;
  orientationMajor: number | undefined;
  confidence: number | undefined;
  source: string;
}

/** The cell global identity a position is keyed by. */
export interface CellKey {
  rat: CellRat;
  mcc: string;
  mnc: string;
  cellIdentity: string;
}

const COLUMNS = [
  'id',
  'rat',
  'mcc',
  'mnc',
  'cell_identity',
  'gnb_id',
  'latitude',
  'longitude',
  'altitude',
  'uncertainty_semi_major',
  'uncertainty_semi_minor',
  'orientation_major',
  'confidence',
  'source',
] as const;

const toCellPosition = (row: Selectable<CellPositionsTable>): CellPosition => ({
  id: row.id,
  rat: row.rat as CellRat,
  mcc: row.mcc,
  mnc: row.mnc,
  cellIdentity: row.cell_identity,
  gnbId: row.gnb_id ?? undefined,
  latitude: row.latitude,
  longitude: row.longitude,
  altitude: row.altitude ?? undefined,
  uncertaintySemiMajor: row.uncertainty_semi_major ?? undefined,
  uncertaintySemiMinor: row.uncertainty_semi_minor ?? undefined,
  orientationMajor: row.orientation_major ?? undefined,
  confidence: row.confidence ?? undefined,
  source: row.source,
});

const toRow = (position: CellPosition): Selectable<CellPositionsTable> => ({
  id: position.id,
  rat: position.rat,
  mcc: position.mcc,
  mnc: position.mnc,
  cell_identity: position.cellIdentity,
  gnb_id: position.gnbId ?? null,
  latitude: position.latitude,
  longitude: position.longitude,
  altitude: position.altitude ?? null,
  uncertainty_semi_major: position.uncertaintySemiMajor ?? null,
  uncertainty_semi_minor: position.uncertaintySemiMinor ?? null,
  orientation_major: position.orientationMajor ?? null,
  confidence: position.confidence ?? null,
  source: position.source,
});

export function createCellPositionsRepository(db: Executor) {
  return {
    /** Every cell position in creation order (ids are UUIDv7). */
    async list(): Promise<CellPosition[]> {
      const rows = await db.selectFrom('cell_positions').select(COLUMNS).orderBy('id').execute();
      return rows.map(toCellPosition);
    },

    async findById(id: string, executor: Executor = db): Promise<CellPosition | undefined> {
      const row = await executor
        .selectFrom('cell_positions')
        .select(COLUMNS)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toCellPosition(row);
    },

    async findByCell(key: CellKey, executor: Executor = db): Promise<CellPosition | undefined> {
      const row = await executor
        .selectFrom('cell_positions')
        .select(COLUMNS)
        .where('rat', '=', key.rat)
        .where('mcc', '=', key.mcc)
        .where('mnc', '=', key.mnc)
        .where('cell_identity', '=', key.cellIdentity)
        .executeTakeFirst();
      return row && toCellPosition(row);
    },

    async insert(position: CellPosition, executor: Executor = db): Promise<void> {
      await executor.insertInto('cell_positions').values(toRow(position)).execute();
    },

    /** Replaces every field but the id and the source. */
    async update(position: CellPosition, executor: Executor = db): Promise<void> {
      const row = toRow(position);
      await executor
        .updateTable('cell_positions')
        .set({
          rat: row.rat,
          mcc: row.mcc,
          mnc: row.mnc,
          cell_identity: row.cell_identity,
          gnb_id: row.gnb_id,
          latitude: row.latitude,
          longitude: row.longitude,
          altitude: row.altitude,
          uncertainty_semi_major: row.uncertainty_semi_major,
          uncertainty_semi_minor: row.uncertainty_semi_minor,
          orientation_major: row.orientation_major,
          confidence: row.confidence,
        })
        .where('id', '=', position.id)
        .execute();
    },

    async delete(id: string, executor: Executor = db): Promise<void> {
      await executor.deleteFrom('cell_positions').where('id', '=', id).execute();
    },
  };
}

export type CellPositionsRepository = ReturnType<typeof createCellPositionsRepository>;
