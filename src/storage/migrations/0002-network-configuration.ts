import { sql, type Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
// Network configuration: operator, data networks, slices, profiles, policies and subscribers. References
// are foreign keys with ON DELETE RESTRICT, so the database itself refuses to delete anything still in use;
// the services check first only to answer with a message that names the holder.
export async function up(db: Kysely<unknown>): Promise<void> {
  // One row (id 1). The Operator Code (OP) is stored sealed (AES-256-GCM under the key file).
  await db.schema
    .createTable('operator')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql.raw('id = 1')))
    .addColumn('mcc', 'text', (c) => c.notNull())
    .addColumn('mnc', 'text', (c) => c.notNull())
    .addColumn('supported_tacs', 'text', (c) => c.notNull())
    .addColumn('op_sealed', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('data_networks')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .execute();

  await db.schema
    .createTable('slices')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('sst', 'integer', (c) => c.notNull().check(sql.raw('sst between 0 and 255')))
    .addColumn('sd', 'text', (c) => c.check(sql.raw('sd is null or length(sd) = 6')))
    .execute();

  await db.schema
    .createTable('profiles')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('ue_ip_pool', 'text', (c) => c.notNull())
    .addColumn('dns', 'text', (c) => c.notNull())
    .addColumn('mtu', 'integer', (c) => c.notNull().check(sql.raw('mtu between 0 and 65535')))
    .addColumn('bitrate_uplink', 'text', (c) => c.notNull())
    .addColumn('bitrate_downlink', 'text', (c) => c.notNull())
    .addColumn('var5qi', 'integer', (c) => c.notNull().check(sql.raw('var5qi between 1 and 255')))
    .addColumn('priority_level', 'integer', (c) =>
      c.notNull().check(sql.raw('priority_level between 1 and 255')),
    )
    .execute();

  await db.schema
    .createTable('policies')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('bitrate_uplink', 'text', (c) => c.notNull())
    .addColumn('bitrate_downlink', 'text', (c) => c.notNull())
    .addColumn('var5qi', 'integer', (c) => c.notNull().check(sql.raw('var5qi between 1 and 255')))
    .addColumn('arp', 'integer', (c) => c.notNull().check(sql.raw('arp between 1 and 15')))
    .addColumn('data_network_id', 'integer', (c) =>
      c.notNull().references('data_networks.id').onDelete('restrict'),
    )
    .addColumn('profile_id', 'integer', (c) => c.references('profiles.id').onDelete('restrict'))
    .addColumn('slice_id', 'integer', (c) => c.references('slices.id').onDelete('restrict'))
    .execute();
  await db.schema.createIndex('policies_data_network_id').on('policies').column('data_network_id').execute();
  await db.schema.createIndex('policies_profile_id').on('policies').column('profile_id').execute();
  await db.schema.createIndex('policies_slice_id').on('policies').column('slice_id').execute();

  // The permanent key and OPc are sealed; the sequence number is not secret and the network side
  // advances it on every authentication, so it stays plain.
  await db.schema
    .createTable('subscribers')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('imsi', 'text', (c) => c.notNull().unique())
    .addColumn('profile_id', 'integer', (c) => c.notNull().references('profiles.id').onDelete('restrict'))
    .addColumn('key_sealed', 'text', (c) => c.notNull())
    .addColumn('opc_sealed', 'text', (c) => c.notNull())
    .addColumn('sequence_number', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // Pages of the subscriber list come from this index alone (IMSI order, with the profile to join).
  await db.schema
    .createIndex('subscribers_imsi_profile_id')
    .on('subscribers')
    .columns(['imsi', 'profile_id'])
    .execute();
  // Profile deletes and the data_network filter look subscribers up by profile.
  await db.schema
    .createIndex('subscribers_profile_id_imsi')
    .on('subscribers')
    .columns(['profile_id', 'imsi'])
    .execute();
}
