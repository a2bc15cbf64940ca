import type { Executor } from '../../storage/transaction.ts';

export interface OperatorRow {
  mcc: string;
  mnc: string;
  supportedTacs: string[];
  /** The Operator Code (OP), sealed by the secret box. */
  opSealed: string;
}

const OPERATOR_ID = 1;

export function createOperatorRepository(db: Executor) {
  return {
    async find(executor: Executor = db): Promise<OperatorRow | undefined> {
      const row = await executor
        .selectFrom('operator')
        .select(['mcc', 'mnc', 'supported_tacs', 'op_sealed'])
        .where('id', '=', OPERATOR_ID)
        .executeTakeFirst();
      return (
        row && {
          mcc: row.mcc,
          mnc: row.mnc,
          supportedTacs: JSON.parse(row.supported_tacs) as string[],
          opSealed: row.op_sealed,
        }
      );
    },

    /** The ordered NAS algorithm preferences (network.md section 9). */
    async nasSecurity(executor: Executor = db): Promise<{ ciphering: string[]; integrity: string[] }> {
      const row = await executor
        .selectFrom('operator')
        .select(['nas_ciphering', 'nas_integrity'])
        .where('id', '=', OPERATOR_ID)
        .executeTakeFirstOrThrow();
      return {
        ciphering: JSON.parse(row.nas_ciphering) as string[],
        integrity: JSON.parse(row.nas_integrity) as string[],
      };
    },

    async updateNasSecurity(
      preferences: { ciphering: string[]; integrity: string[] },
      executor: Executor = db,
    ): Promise<void> {
      await executor
        .updateTable('operator')
        .set({
          nas_ciphering: JSON.stringify(preferences.ciphering),
          nas_integrity: JSON.stringify(preferences.integrity),
        })
        .where('id', '=', OPERATOR_ID)
        .execute();
    },

    /** The N2 allowlist set through the API (docs/n2.md): addresses and CIDR networks, empty admits all. */
    async n2AllowedPeers(executor: Executor = db): Promise<string[]> {
      const row = await executor
        .selectFrom('operator')
        .select('n2_allowed_peers')
        .where('id', '=', OPERATOR_ID)
        .executeTakeFirstOrThrow();
      return JSON.parse(row.n2_allowed_peers) as string[];
    },

    async updateN2AllowedPeers(peers: string[], executor: Executor = db): Promise<void> {
      await executor
        .updateTable('operator')
        .set({ n2_allowed_peers: JSON.stringify(peers) })
        .where('id', '=', OPERATOR_ID)
        .execute();
    },

    /** Inserts the operator unless it exists; returns whether this call inserted it. */
    async insertIfAbsent(operator: OperatorRow, executor: Executor = db): Promise<boolean> {
      const result = await executor
        .insertInto('operator')
        .values({
          id: OPERATOR_ID,
          mcc: operator.mcc,
          mnc: operator.mnc,
          supported_tacs: JSON.stringify(operator.supportedTacs),
          op_sealed: operator.opSealed,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
    },

    async updateId(mcc: string, mnc: string, executor: Executor = db): Promise<void> {
      await executor.updateTable('operator').set({ mcc, mnc }).where('id', '=', OPERATOR_ID).execute();
    },

    async updateSupportedTacs(tacs: string[], executor: Executor = db): Promise<void> {
      await executor
        .updateTable('operator')
        .set({ supported_tacs: JSON.stringify(tacs) })
        .where('id', '=', OPERATOR_ID)
        .execute();
    },

    async updateOpSealed(opSealed: string, executor: Executor = db): Promise<void> {
      await executor
        .updateTable('operator')
        .set({ op_sealed: opSealed })
        .where('id', '=', OPERATOR_ID)
        .execute();
    },
  };
}

export type OperatorRepository = ReturnType<typeof createOperatorRepository>;
