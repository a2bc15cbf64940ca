import type { AmfSetTables } from './tables/amf-set.ts';
import type { FoundationTables } from './tables/foundation.ts';
import type { LocationTables } from './tables/location.ts';
import type { NetworkTables } from './tables/network.ts';
import type { RecordsTables } from './tables/records.ts';
import type { SmsTables } from './tables/sms.ts';
import type { WorkingStateTables } from './tables/working-state.ts';

/**
 * Every table Kysely knows, one interface per area (src/storage/tables/). The single source of truth for
 * row types; a migration that adds a table adds its type there, and this type joins the areas with `&`.
 */
export type Database = FoundationTables &
  NetworkTables &
  RecordsTables &
  LocationTables &
  SmsTables &
  WorkingStateTables &
  AmfSetTables;
