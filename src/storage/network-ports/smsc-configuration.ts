import type { SecretBox } from '../../crypto/secret-box.ts';
import type { SmscConfigurationPort } from '../../network/ports/smsc-configuration.ts';
import type { Db } from '../database.ts';

/** The SMSC link's configuration (migration 0020) for the network side, its password opened. */
export function createSmscConfiguration(deps: { db: Db; secretBox: SecretBox }): SmscConfigurationPort {
  return {
    async read() {
      const row = await deps.db.selectFrom('smsc_link').selectAll().where('id', '=', 1).executeTakeFirst();
      if (row === undefined) return undefined;
      return {
        host: row.host,
        port: Number(row.port),
        systemId: row.system_id,
        password: deps.secretBox.open(row.password_sealed),
        systemType: row.system_type,
        enabled: Number(row.enabled) === 1,
      };
    },
  };
}
