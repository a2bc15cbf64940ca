import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applyUpfSettings,
  DEFAULT_UPF_SETTINGS,
  resolveHostRoutes,
} from '../../../src/network/upf/upf-settings.ts';

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

describe('UPF settings: host routes on N6', () => {
  it('defaults to auto, table 254 (main) and protocol 200', () => {
    assert.equal(DEFAULT_UPF_SETTINGS.hostRoutes, 'auto');
    assert.equal(DEFAULT_UPF_SETTINGS.routeTable, 254);
    assert.equal(DEFAULT_UPF_SETTINGS.routeProtocol, 200);
  });

  it('auto is on where the database is shared (the AMF set) and off on a single SQLite process; on and off stay', () => {
    assert.equal(resolveHostRoutes(DEFAULT_UPF_SETTINGS, true).hostRoutes, 'on');
    assert.equal(resolveHostRoutes(DEFAULT_UPF_SETTINGS, false).hostRoutes, 'off');
    for (const choice of ['on', 'off'] as const)
      for (const shared of [true, false])
        assert.equal(
          resolveHostRoutes({ ...DEFAULT_UPF_SETTINGS, hostRoutes: choice }, shared).hostRoutes,
          choice,
        );
  });

  it('takes a choice, a table and a protocol from strings (environment, flags)', () => {
    const applied = applyUpfSettings(
      DEFAULT_UPF_SETTINGS,
      { n6_host_routes: 'on', n6_route_table: '100', n6_route_protocol: '77' },
      'env',
    );
    assert.ok(applied.ok);
    assert.deepEqual(
      [applied.settings.hostRoutes, applied.settings.routeTable, applied.settings.routeProtocol],
      ['on', 100, 77],
    );
  });

  it('refuses anything else, naming the setting and the source', () => {
    for (const value of ['yes', '', true, 1])
      assert.deepEqual(applyUpfSettings(DEFAULT_UPF_SETTINGS, { n6_host_routes: value }, 'flags'), {
        ok: false,
        error: 'flags: n6_host_routes must be auto, on or off',
      });
    for (const value of ['0', '4294967296', 'main', -1])
      assert.deepEqual(applyUpfSettings(DEFAULT_UPF_SETTINGS, { n6_route_table: value }, 'env'), {
        ok: false,
        error: 'env: n6_route_table must be an integer in 1..4294967295',
      });
    for (const value of ['0', '256', 'bird'])
      assert.deepEqual(applyUpfSettings(DEFAULT_UPF_SETTINGS, { n6_route_protocol: value }, 'env'), {
        ok: false,
        error: 'env: n6_route_protocol must be an integer in 1..255',
      });
  });
});
