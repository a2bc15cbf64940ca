import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { generateApiSchema, SCHEMA_PATH } from '../../ui/scripts/api-schema.ts';

describe('the web UI API client types', () => {
  it('match the OpenAPI document the service serves (regenerate: node --import tsx ui/scripts/api-schema.ts)', async () => {
    assert.equal(readFileSync(SCHEMA_PATH, 'utf8'), await generateApiSchema());
  });
});
