import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyUpfSettings, DEFAULT_UPF_SETTINGS } from '../../../src/network/upf/upf-settings.ts';

describe('UPF settings: the datapath', () => {
  it("defaults to auto with no N6 interface (the forwarder takes the default route's at start)", () => {
    assert.equal(DEFAULT_UPF_SETTINGS.datapath, 'auto');
    assert.equal(DEFAULT_UPF_SETTINGS.n6Interface, undefined);
  });

  it('takes auto, xdp or tun and an interface name', () => {
    for (const choice of ['auto', 'xdp', 'tun'] as const) {
      const applied = applyUpfSettings(
        DEFAULT_UPF_SETTINGS,
        { upf_datapath: choice, n6_interface: 'eth1' },
        'flags',
      );
      assert.ok(applied.ok);
      assert.equal(applied.settings.datapath, choice);
      assert.equal(applied.settings.n6Interface, 'eth1');
    }
  });

  it('refuses anything else, naming the setting and the source', () => {
    for (const value of ['XDP', '', 'fast', 1, null])
      assert.deepEqual(applyUpfSettings(DEFAULT_UPF_SETTINGS, { upf_datapath: value }, 'config.yaml'), {
        ok: false,
        error: 'config.yaml: upf_datapath must be auto, xdp or tun',
      });
    for (const value of ['', 'a/b', 'has space', 'sixteen-chars-xx', 7])
      assert.deepEqual(applyUpfSettings(DEFAULT_UPF_SETTINGS, { n6_interface: value }, 'env'), {
        ok: false,
        error: 'env: n6_interface must be an interface name of 1..15 characters',
      });
  });
});
