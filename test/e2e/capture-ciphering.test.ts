import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tsharkFileFields } from '../helpers/tshark.ts';
import { imsiOf, startRegistrationService, type RegistrationService } from './registration-service.ts';

/**
 * The radio events of real registrations as a capture (issue 32 item 4): the AMF's own NAS, ciphered
 * with the algorithm its operator prefers, read back by tshark from the export. Under NEA0 the ciphered
 * messages decode with no Wireshark preference; under NEA2 they are marked, not decoded.
 */
describe('a registration exported to pcapng, read by tshark', () => {
  let s: RegistrationService;
  let dir: string;
  before(async () => {
    s = await startRegistrationService();
    dir = await mkdtemp(join(tmpdir(), 'pmn-capture-'));
  });
  after(async () => {
    await s.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Security header type, 5GMM message type and comment of every frame carrying the IMSI's NAS. */
  async function captured(imsi: string): Promise<string[][]> {
    // The export reads what the records writer has stored: wait for the Registration Complete's carrier.
    await s.until(async () => {
      const page = await s.get<{ items: { message_type: string }[] }>(
        `/api/v1/ran/events?imsi=${imsi}&message_type=UplinkNASTransport&per_page=100`,
      );
      return page.items.length >= 3 ? true : undefined;
    }, 'the registration recorded');
    const response = await s.t.request({
      method: 'GET',
      url: `/api/v1/ran/events/export.pcapng?imsi=${imsi}`,
      token: s.token,
    });
    assert.equal(response.statusCode, 200, response.body);
    const path = join(dir, `${imsi}.pcapng`);
    await writeFile(path, response.rawPayload);
    return tsharkFileFields(
      path,
      [
        'ngap.procedureCode',
        'nas_5gs.security_header_type',
        'nas_5gs.mm.message_type',
        'frame.comment',
        '_ws.malformed',
      ],
      { args: ['-E', 'occurrence=f'] },
    );
  }

  async function register(n: number, ciphering: string[]): Promise<string> {
    const status = await s.request('PUT', '/api/v1/operator/nas-security', {
      ciphering,
      integrity: ['NIA2'],
    });
    assert.equal(status, 200);
    const imsi = imsiOf(n);
    await s.provision(imsi);
    const ue = s.ue({ imsi });
    assert.equal((await ue.register()).outcome, 'accepted');
    return imsi;
  }

  it('under NEA0, the ciphered messages decode (security header type written without ciphering), each said so', async () => {
    const rows = await captured(await register(1, ['NEA0']));
    assert.deepEqual(
      rows.filter((row) => row[4] !== ''),
      [],
      'no malformed frame',
    );
    const message = (type: string) => rows.find((row) => row[2] === type);
    // Security Mode Command: integrity protected with the new context, never ciphered (TS 24.501 5.4.2.2).
    assert.deepEqual(message('0x5d')?.slice(1, 4), ['3', '0x5d', '']);
    // Security Mode Complete (type 4 as sent) and Registration Accept (type 2), both under NEA0.
    assert.match(
      message('0x5e')?.[3] ?? '',
      /^NAS-PDU ciphered with NEA0 \(null ciphering\): written with security header type 3 in place of 4/,
    );
    assert.match(message('0x42')?.[3] ?? '', /^NAS-PDU ciphered with NEA0 .* type 1 in place of 2/);
    assert.equal(message('0x42')?.[1], '1');
  });

  it('under NEA2, the ciphered messages stay as sent, marked with their algorithm', async () => {
    const rows = await captured(await register(2, ['NEA2']));
    assert.deepEqual(
      rows.filter((row) => row[4] !== ''),
      [],
      'no malformed frame',
    );
    assert.equal(
      rows.find((row) => row[2] === '0x42'),
      undefined,
      'the Registration Accept is not readable',
    );
    const ciphered = rows.filter((row) => row[1] === '2' || row[1] === '4');
    assert.ok(ciphered.length >= 2, JSON.stringify(rows));
    for (const row of ciphered) assert.equal(row[3], 'NAS-PDU ciphered with NEA2: not decrypted');
  });
});
