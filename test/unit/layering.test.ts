import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';

// eslint.config.js is plain JavaScript, outside the type-checked program.
const configModule: string = '../../eslint.config.js';
const { LAYERS } = (await import(configModule)) as { LAYERS: Linter.Config[] };

// The layering rules of eslint.config.js, run on planted violations: `npm run lint` applies the same
// rules to the real tree, so each of these would fail the build.
const eslint = new ESLint({
  overrideConfigFile: true,
  overrideConfig: [
    { languageOptions: { parser: tseslint.parser }, plugins: { '@typescript-eslint': tseslint.plugin } },
    ...LAYERS,
  ],
});

async function violations(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((message) => message.ruleId ?? message.message);
}

const RESTRICTED = ['@typescript-eslint/no-restricted-imports'];

describe('layering', () => {
  it('refuses Fastify and http/ in services, repositories, records, network, storage and the core', async () => {
    for (const [file, code] of [
      ['src/resources/slices/slices.service.ts', "import Fastify from 'fastify';"],
      ['src/resources/slices/slices.repository.ts', "import { ok } from '../../http/schemas.ts';"],
      ['src/records/ingestion.ts', "import type { FastifyInstance } from 'fastify';"],
      ['src/network/amf/amf.ts', "import { actorOf } from '../../http/authentication.ts';"],
      ['src/storage/storage.ts', "import multipart from '@fastify/multipart';"],
      ['src/core/create-core.ts', "import { buildHttpApp } from '../http/build-http-app.ts';"],
    ]) {
      assert.deepEqual(await violations(file as string, code as string), RESTRICTED, `${file}: ${code}`);
    }
  });

  it('refuses the SQLite driver anywhere in src/ but storage/', async () => {
    const code = "import SQLite from 'better-sqlite3';";
    for (const file of [
      'src/records/record-writer.worker.ts',
      'src/backup/backup.service.ts',
      'src/main.ts',
    ]) {
      assert.deepEqual(await violations(file, code), RESTRICTED, file);
    }
    assert.deepEqual(await violations('src/storage/sqlite-file.ts', code), []);
  });

  it('refuses SQL outside storage/ and the repositories', async () => {
    for (const [file, code] of [
      ['src/network/amf/amf.ts', "db.selectFrom('subscribers').selectAll();"],
      ['src/core/create-core.ts', "db.updateTable('subscribers').set({ sequence_number: '0' });"],
      ['src/network/smf/smf.ts', "await db.deleteFrom('policies').execute();"],
      ['src/resources/slices/slices.service.ts', 'await sql`DELETE FROM slices`.execute(db);'],
      ['src/core/network-configuration.wiring.ts', "import type { Compilable } from 'kysely';"],
    ]) {
      assert.deepEqual(await violations(file as string, code as string), ['no-restricted-syntax'], file);
    }
    // Storage implements the network functions' ports, and a repository writes its tables' SQL.
    for (const file of [
      'src/storage/network-ports/subscription-data.ts',
      'src/resources/slices/slices.repository.ts',
    ]) {
      assert.deepEqual(await violations(file, "db.selectFrom('subscribers').selectAll();"), [], file);
    }
  });

  it('refuses a service or repository imported by http/', async () => {
    for (const code of [
      "import { createSlicesService } from '../resources/slices/slices.service.ts';",
      "import type { SlicesRepository } from '../resources/slices/slices.repository.ts';",
    ]) {
      assert.deepEqual(await violations('src/http/build-http-app.ts', code), RESTRICTED, code);
    }
  });

  it('lets routes use Fastify and http/, and http/ register routes', async () => {
    assert.deepEqual(
      await violations(
        'src/resources/slices/slices.routes.ts',
        "import { ok } from '../../http/schemas.ts';",
      ),
      [],
    );
    assert.deepEqual(
      await violations(
        'src/http/build-http-app.ts',
        "import { slicesRoutes } from '../resources/slices/slices.routes.ts';",
      ),
      [],
    );
  });
});
