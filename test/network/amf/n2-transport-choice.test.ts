import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseN2Transport, type HostSupport } from '../../../src/network/amf/n2/n2-transport-choice.ts';
import type { NativeAddon } from '../../../src/network/transport/native/native-addon.ts';

const addon = {} as NativeAddon;
const yes = { available: true } as const;
const no = (code: string) => ({ available: false, code, reason: `${code} here` }) as const;

function host(kernel: boolean, raw: boolean, loads = true): HostSupport {
  return {
    addon: () =>
      loads ? { ok: true, addon } : { ok: false, error: new Error('cannot load the native addon') },
    kernel: () => (kernel ? yes : no('EPROTONOSUPPORT')),
    raw: () => (raw ? yes : no('EPERM')),
  };
}

describe('N2 transport choice (network.md section 1)', () => {
  it('auto: the kernel where it has SCTP, else raw sockets, else no N2 with the reason', () => {
    assert.equal(chooseN2Transport('auto', host(true, true)).use, 'kernel');
    assert.equal(chooseN2Transport('auto', host(false, true)).use, 'raw');
    const none = chooseN2Transport('auto', host(false, false));
    assert.equal(none.use, 'none');
    assert.match(none.why, /CAP_NET_RAW.*udp/);
    assert.equal(chooseN2Transport('auto', host(true, true, false)).use, 'none');
  });

  it('an explicit transport the host lacks is a start error; udp and off need nothing', () => {
    assert.throws(() => chooseN2Transport('kernel', host(false, true)), /host kernel has no SCTP/);
    assert.throws(() => chooseN2Transport('raw', host(true, false)), /CAP_NET_RAW/);
    assert.equal(chooseN2Transport('raw', host(true, true)).use, 'raw');
    assert.equal(chooseN2Transport('udp', host(false, false, false)).use, 'udp');
    assert.equal(chooseN2Transport('off', host(true, true)).use, 'none');
  });
});
