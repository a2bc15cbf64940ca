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
const LOADED = ['no-restricted-syntax'];

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

  it("refuses another network function's internals in a network function: only its ports/", async () => {
    for (const [file, code] of [
      ['src/network/amf/amf.ts', "import { createSmf } from '../smf/smf.ts';"],
      ['src/network/amf/amf.ts', "import { createAusf } from '../ausf/index.ts';"],
      ['src/network/amf/location.ts', "import { createLmf } from '../lmf/lmf.ts';"],
      ['src/network/amf/ports/session-management.ts', "import type { Smf } from '../../smf/smf.ts';"],
      ['src/network/smf/smf.ts', "import { sendNas } from '../amf/nas-link.ts';"],
      ['src/network/smf/session-resources.ts', "import type { Upf } from '../upf/upf.ts';"],
      ['src/network/lmf/nrppa-ecid.ts', "import { ranNodeOf } from '../amf/ran-node.ts';"],
      ['src/network/ausf/ausf.ts', "import type { AmfUe } from '../amf/amf-ue.ts';"],
      ['src/network/upf/upf.ts', "import type { SmfContext } from '../smf/smf-context.ts';"],
      ['src/network/amf/gmm/sms.ts', "import { createSmsf } from '../../smsf/smsf.ts';"],
      ['src/network/smsf/smsf.ts', "import { sendNas } from '../amf/gmm/nas-link.ts';"],
      ['src/network/smsf/submission.ts', "import type { Smf } from '../smf/smf.ts';"],
    ]) {
      assert.deepEqual(await violations(file as string, code as string), RESTRICTED, `${file}: ${code}`);
    }
  });

  it("lets a network function use its own files, another's ports/ and the neutral helpers; core/ wires them all", async () => {
    for (const [file, code] of [
      ['src/network/amf/amf.ts', "import type { SessionManagement } from './ports/session-management.ts';"],
      ['src/network/amf/amf.ts', "import { startRetransmissionTimer } from '../common/nas-timer.ts';"],
      ['src/network/smf/smf-context.ts', "import type { Ambr } from '../upf/ports/session-control.ts';"],
      ['src/network/amf/location.ts', "import type { LmfTransport } from '../lmf/ports/amf-transport.ts';"],
      ['src/network/amf/gmm/sms.ts', "import type { SmsfAmfPort } from '../../smsf/ports/amf.ts';"],
      ['src/network/smsf/smsf.ts', "import type { SmsStore } from '../ports/sms-store.ts';"],
      ['src/network/smf/smf.ts', "import { SessionTable } from './session-table.ts';"],
      ['src/core/network-functions.ts', "import { createSmf } from '../network/smf/smf.ts';"],
      ['src/core/network-functions.ts', "import { createAmf } from '../network/amf/amf.ts';"],
    ]) {
      assert.deepEqual(await violations(file as string, code as string), [], `${file}: ${code}`);
    }
  });

  it('refuses the simulator anywhere in src/ outside it', async () => {
    for (const [file, code] of [
      ['src/network/amf/amf.ts', "import { SimulatedGnb } from '../../simulator/gnb.ts';"],
      ['src/network/amf/amf.ts', "import { SimulatedUe } from '../../simulator/ue/simulated-ue.ts';"],
      ['src/core/n2.wiring.ts', "import type { GnbConfig } from '../simulator/gnb-config.ts';"],
      ['src/storage/storage.ts', "import { Usim } from '../simulator/ue/usim.ts';"],
      ['src/http/build-http-app.ts', "import { runSimulator } from '../simulator/cli.ts';"],
      ['src/records/ingestion.ts', "import { GnbFleet } from '../simulator/gnb-fleet.ts';"],
    ]) {
      assert.deepEqual(await violations(file as string, code as string), RESTRICTED, `${file}: ${code}`);
    }
    // Loaded lazily, as main.ts loads the network side.
    for (const [file, code] of [
      ['src/main.ts', "const { runSimulator } = await import('./simulator/cli.ts');"],
      ['src/core/n2.wiring.ts', "const gnb = await import('../simulator/gnb.ts');"],
    ]) {
      assert.deepEqual(await violations(file as string, code as string), LOADED, `${file}: ${code}`);
    }
  });

  it('refuses an IE or procedure criticality written by hand in the network functions, the simulator and the rest of src/', async () => {
    const ie = "const ie = { id: 169, name: 'EndpointIPAddressAndPort', criticality: 'reject', value };";
    for (const file of [
      'src/network/ngap/transport-layer-address.ts',
      'src/network/amf/n2/handover-messages.ts',
      'src/network/lmf/nrppa-ecid.ts',
      'src/simulator/gnb.ts',
      'src/resources/radio-events/radio-events.service.ts',
    ]) {
      assert.deepEqual(await violations(file, ie), LOADED, `${file}: ${ie}`);
    }
    // A criticality read from a message, or named in a type, is not one written by hand.
    for (const code of [
      'const copy = { id: ie.id, criticality: ie.criticality, value: ie.value };',
      "type Ie = { criticality: 'reject' | 'ignore' };",
    ]) {
      assert.deepEqual(await violations('src/network/amf/n2/handover-messages.ts', code), [], code);
    }
  });

  it('refuses network functions, their ports and state, the core, http/, resources and storage in the simulator', async () => {
    for (const [file, code] of [
      ['src/simulator/gnb.ts', "import { createAmf } from '../network/amf/amf.ts';"],
      ['src/simulator/gnb.ts', "import type { SmfContext } from '../network/smf/smf.ts';"],
      ['src/simulator/user-plane/gnb-user-plane.ts', "import { createUpf } from '../../network/upf/upf.ts';"],
      ['src/simulator/ue/usim.ts', "import { createAusf } from '../../network/ausf/index.ts';"],
      ['src/simulator/ue/ue-lpp.ts', "import { Lmf } from '../../network/lmf/lmf.ts';"],
      ['src/simulator/ue/usim.ts', "import { createSmsf } from '../../network/smsf/smsf.ts';"],
      [
        'src/simulator/gnb.ts',
        "import type { SubscriptionDataPort } from '../network/ports/subscription-data.ts';",
      ],
      ['src/simulator/gnb.ts', "import { createUeContexts } from '../network/working-state/ue-contexts.ts';"],
      ['src/simulator/gnb.ts', "import type { NetworkEvents } from '../network/events/network-events.ts';"],
      ['src/simulator/gnb.ts', "import { createNetworkState } from '../network/network-state.ts';"],
      ['src/simulator/gnb.ts', "import { RadioRegistry } from '../network/radio-registry.ts';"],
      ['src/simulator/cli.ts', "import { createCore } from '../core/create-core.ts';"],
      ['src/simulator/cli.ts', "import { ok } from '../http/schemas.ts';"],
      [
        'src/simulator/cli.ts',
        "import { createSlicesService } from '../resources/slices/slices.service.ts';",
      ],
      ['src/simulator/cli.ts', "import { openStorage } from '../storage/storage.ts';"],
    ]) {
      assert.deepEqual(await violations(file as string, code as string), RESTRICTED, `${file}: ${code}`);
    }
    for (const [file, code] of [
      ['src/simulator/gnb.ts', "const { createAmf } = await import('../network/amf/amf.ts');"],
      ['src/simulator/cli.ts', "const { createCore } = await import('../core/create-core.ts');"],
      ['src/simulator/cli.ts', "const { openStorage } = await import('../storage/storage.ts');"],
      ['src/simulator/ue/ue-cli.ts', "const state = await import('../../network/network-state.ts');"],
      ['src/simulator/gnb.ts', "const { Smf } = await import('../network/smf/smf.ts');"],
    ]) {
      assert.deepEqual(await violations(file as string, code as string), LOADED, `${file}: ${code}`);
    }
  });

  it('lets the simulator use the codecs, crypto, transports and neutral helpers', async () => {
    for (const [file, code] of [
      ['src/simulator/gnb.ts', "import { encodeNgapPdu } from '../network/ngap/ngap-codec.ts';"],
      ['src/simulator/gnb.ts', "import { aligned } from '../network/asn1/complete.ts';"],
      ['src/simulator/gnb-location.ts', "import { NRPPA_PDU } from '../network/nrppa/generated/codec.ts';"],
      ['src/simulator/ue/ue-lpp.ts', "import { LPP_Message } from '../../network/lpp/generated/codec.ts';"],
      [
        'src/simulator/ue/simulated-ue.ts',
        "import { decodeNasMessage } from '../../network/nas/message-codec.ts';",
      ],
      ['src/simulator/ue/simulated-ue.ts', "import { protect } from '../../network/nas-security/index.ts';"],
      [
        'src/simulator/client-transport.ts',
        "import type { N2Transport } from '../network/transport/n2-transport.ts';",
      ],
      ['src/simulator/ue/usim.ts', "import { milenage } from '../../crypto/milenage.ts';"],
      ['src/simulator/gnb.ts', "import { nrCellIdentity } from '../network/radio-id.ts';"],
      [
        'src/simulator/gnb-handover.ts',
        "import { deriveKgnbStar } from '../network/security/handover-keys.ts';",
      ],
      ['src/simulator/gnb.ts', "import { systemClock } from '../clock.ts';"],
      [
        'src/simulator/user-plane/gnb-user-plane-addon.ts',
        "import { packageRoot } from '../../package-root.ts';",
      ],
      ['src/simulator/ue/simulated-ue.ts', "import { Usim } from './usim.ts';"],
    ]) {
      assert.deepEqual(await violations(file as string, code as string), [], `${file}: ${code}`);
    }
    assert.deepEqual(
      await violations('src/simulator/cli.ts', "const { runUe } = await import('./ue/ue-cli.ts');"),
      [],
    );
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
