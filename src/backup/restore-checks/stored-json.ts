import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { N2Allowlist } from '../../resources/operator/n2-allowlist.schema.ts';
import { NasSecurity } from '../../resources/operator/network-security.schema.ts';
import { OperatorTrackingBody } from '../../resources/operator/operator.schema.ts';
import { LocationResultSchema } from '../../resources/positioning/positioning.schema.ts';
import { at, inStep, overRowids, type Candidate } from './candidate.ts';

/**
 * The JSON columns and the schema of what the service stored there: the API's own schema for the value,
 * since each was accepted through it (or built by the service in its shape).
 */
const JSON_COLUMNS: { table: string; column: string; schema: TSchema }[] = [
  { table: 'operator', column: 'supported_tacs', schema: OperatorTrackingBody.properties.supportedTacs },
  { table: 'operator', column: 'nas_ciphering', schema: NasSecurity.properties.ciphering },
  { table: 'operator', column: 'nas_integrity', schema: NasSecurity.properties.integrity },
  { table: 'operator', column: 'n2_allowed_peers', schema: N2Allowlist.properties.peers },
  { table: 'positioning_sessions', column: 'last_result', schema: LocationResultSchema },
];

function parsed(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Every stored JSON value parses and has the shape the service reads it as. */
export async function checkStoredJson(candidate: Candidate): Promise<string | undefined> {
  for (const { table, column, schema } of JSON_COLUMNS) {
    const rows = candidate.prepare(
      `SELECT CAST(rowid AS TEXT) AS row, ${column} AS value FROM ${table} WHERE ${inStep} AND ${column} IS NOT NULL`,
    );
    const problem = await overRowids(candidate, table, (from, to) => {
      for (const { row, value } of rows.all(from, to) as { row: string; value: string }[]) {
        const json = parsed(value);
        if (!json.ok) return at(table, row, column, 'is not valid JSON');
        if (!Value.Check(schema, json.value))
          return at(table, row, column, 'does not have the shape the service stores');
      }
      return undefined;
    });
    if (problem) return problem;
  }
  return undefined;
}
