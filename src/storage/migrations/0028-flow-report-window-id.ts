import type { Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// A page of flow reports is the newest first, `end_time desc, id desc`. The window index led with
// end_time alone, so reports sharing an end time (a burst the UPF hands over in one millisecond) were
// all read and sorted by id before the page's first 100 came out: with every report of a batch at one
// time, each page sorted the whole batch. The window index now carries `id` right after `end_time` and
// gives the page's order as it is read; the filters it serves (direction, action, ports) still ride in
// it. On PostgreSQL the partitioned index replaces each day partition's own.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .dropIndex('flow_reports_end_time_protocol_direction_action_source_port_destination_port')
    .execute();
  await db.schema
    .createIndex('flow_reports_end_time_id_protocol_direction_action_source_port_destination_port')
    .on('flow_reports')
    .columns(['end_time', 'id', 'protocol', 'direction', 'action', 'source_port', 'destination_port'])
    .execute();
}
