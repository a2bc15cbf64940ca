import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeComplete, encodeComplete } from '../../../src/network/asn1/complete.ts';
import {
  decodePathSwitchRequestAcknowledgeTransfer,
  decodePathSwitchRequestUnsuccessfulTransfer,
  encodePathSwitchRequestTransfer,
} from '../../../src/network/ngap/generated/codec.ts';
import { pathSwitchUnsuccessfulTransfer } from '../../../src/network/ngap/path-switch-unsuccessful-transfer.ts';
import {
  pathSwitchAcknowledgeTransfer,
  readPathSwitchRequestTransfer,
} from '../../../src/network/smf/path-switch.ts';
import { prng } from '../../helpers/openapi-fuzz.ts';

/**
 * The SMF's Path Switch transfers (TS 38.413 9.3.4.8-9.3.4.10): the target's downlink tunnel read from
 * Path Switch Request Transfer (bytes from the radio: never a throw), and the containers it returns.
 */

const transfer = (tunnel: { bytes: number[]; length: number }, teid: number[]) =>
  encodeComplete(
    {
      dLNGUUPTNLInformation: {
        choice: 'gTPTunnel',
        value: {
          transportLayerAddress: { bytes: Uint8Array.from(tunnel.bytes), length: tunnel.length },
          gTPTEID: Uint8Array.from(teid),
        },
      },
      qosFlowAcceptedList: [{ qosFlowIdentifier: 1 }],
    },
    true,
    encodePathSwitchRequestTransfer,
  );

describe('Path Switch transfers', () => {
  it('reads the IPv4 and the IPv6 downlink tunnel of Path Switch Request Transfer', () => {
    assert.deepEqual(
      readPathSwitchRequestTransfer(transfer({ bytes: [10, 0, 0, 3], length: 32 }, [0, 0, 1, 2])),
      {
        ok: true,
        downlink: { address: '10.0.0.3', teid: 258 },
      },
    );
    const v6 = [0x20, 0x01, 0x0d, 0xb8, ...Array<number>(11).fill(0), 1];
    assert.deepEqual(readPathSwitchRequestTransfer(transfer({ bytes: v6, length: 128 }, [0xff, 0, 0, 1])), {
      ok: true,
      downlink: { address: '2001:db8:0:0:0:0:0:1', teid: 0xff000001 },
    });
  });

  it('refuses a tunnel address of another length', () => {
    const read = readPathSwitchRequestTransfer(transfer({ bytes: [1, 2, 3], length: 24 }, [0, 0, 0, 1]));
    assert.equal(read.ok, false);
  });

  it('the Acknowledge Transfer is empty (no UL tunnel change); the Unsuccessful Transfer carries its cause', () => {
    const ack = decodeComplete(
      pathSwitchAcknowledgeTransfer(),
      true,
      decodePathSwitchRequestAcknowledgeTransfer,
    );
    assert.ok(ack.ok);
    assert.equal(ack.value.uLNGUUPTNLInformation, undefined);
    const cause = { choice: 'radioNetwork', value: 'unknown-PDU-session-ID' } as const;
    const failed = decodeComplete(
      pathSwitchUnsuccessfulTransfer(cause),
      true,
      decodePathSwitchRequestUnsuccessfulTransfer,
    );
    assert.ok(failed.ok);
    assert.deepEqual(failed.value.cause, cause);
  });

  it('random and mutated bytes never throw (fixed seed)', () => {
    const random = prng(0x5a17c4);
    const valid = transfer({ bytes: [10, 0, 0, 3], length: 32 }, [0, 0, 1, 2]);
    let refused = 0;
    for (let i = 0; i < 3000; i += 1) {
      const bytes =
        i % 2 === 0
          ? Uint8Array.from({ length: random.int(40) }, () => random.int(256))
          : Uint8Array.from(valid, (b) => (random.chance(0.1) ? random.int(256) : b));
      const read = readPathSwitchRequestTransfer(bytes.subarray(0, random.int(bytes.length + 1)));
      if (!read.ok) refused += 1;
    }
    assert.ok(refused > 0);
  });
});
