import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, DEFAULT_CONFIG, loadConfig } from '../../src/config/config.ts';

describe('N2 and AMF settings (docs/n2.md)', () => {
  it('defaults: transport auto on 127.0.0.1, SCTP port 38412, UDP port 9899, AMF pmn-amf 1/1/0, capacity 255', () => {
    assert.deepEqual(loadConfig([], {}).n2, {
      transport: 'auto',
      addresses: ['127.0.0.1'],
      port: 38412,
      udpPort: 9899,
      amf: { name: 'pmn-amf', regionId: 1, setId: 1, pointer: 0, relativeCapacity: 255 },
    });
    assert.deepEqual(loadConfig([], {}).n2, DEFAULT_CONFIG.n2);
  });

  it('reads the file, then PMN_* variables, then flags, each overriding the one before', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pmn-config-'));
    try {
      const path = join(dir, 'config.yaml');
      writeFileSync(
        path,
        [
          'n2_transport: udp',
          'n2_addresses: [10.0.0.1, "::1"]',
          'n2_port: 38413',
          'n2_udp_port: 9900',
          'amf_name: amf.example',
          'amf_region_id: 2',
          'amf_set_id: 1023',
          'amf_pointer: 63',
          'amf_relative_capacity: 10',
        ].join('\n'),
      );
      assert.deepEqual(loadConfig(['--config', path], {}).n2, {
        transport: 'udp',
        addresses: ['10.0.0.1', '::1'],
        port: 38413,
        udpPort: 9900,
        amf: { name: 'amf.example', regionId: 2, setId: 1023, pointer: 63, relativeCapacity: 10 },
      });
      const env = {
        PMN_N2_TRANSPORT: 'raw',
        PMN_N2_ADDRESSES: '192.0.2.1, 192.0.2.2',
        PMN_AMF_NAME: 'from env',
      };
      const fromEnv = loadConfig(['--config', path], env).n2;
      assert.deepEqual(
        [fromEnv.transport, fromEnv.addresses, fromEnv.amf.name, fromEnv.port],
        ['raw', ['192.0.2.1', '192.0.2.2'], 'from env', 38413],
      );
      const fromFlags = loadConfig(
        ['--config', path, '--n2-transport', 'kernel', '--amf-pointer', '5', '--n2-port', '0'],
        env,
      ).n2;
      assert.deepEqual([fromFlags.transport, fromFlags.amf.pointer, fromFlags.port], ['kernel', 5, 0]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses values NGAP cannot carry, naming the setting', () => {
    const refused: [Record<string, string>, RegExp][] = [
      [{ PMN_N2_TRANSPORT: 'sctp' }, /n2_transport must be one of auto, kernel, raw, udp, off/],
      [{ PMN_N2_ADDRESSES: 'localhost' }, /n2_addresses must be one or more IP addresses/],
      [{ PMN_N2_PORT: '65536' }, /n2_port must be an integer in 0\.\.65535/],
      [{ PMN_AMF_REGION_ID: '256' }, /amf_region_id must be an integer in 0\.\.255/],
      [{ PMN_AMF_SET_ID: '1024' }, /amf_set_id must be an integer in 0\.\.1023/],
      [{ PMN_AMF_POINTER: '-1' }, /amf_pointer must be an integer in 0\.\.63/],
      [{ PMN_AMF_RELATIVE_CAPACITY: '1.5' }, /amf_relative_capacity must be an integer in 0\.\.255/],
      [{ PMN_AMF_NAME: 'amf_1' }, /AMF name must be 1 to 150 characters/],
    ];
    for (const [env, message] of refused) {
      assert.throws(
        () => loadConfig([], env),
        (error: unknown) => error instanceof ConfigError && message.test(error.message),
      );
    }
  });

  it('n2_allowed_peers: a YAML list, or comma-separated from the environment or a flag; checked like the API', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pmn-n2-peers-'));
    try {
      const path = join(dir, 'config.yaml');
      writeFileSync(path, 'n2_allowed_peers:\n  - 10.1.0.0/16\n  - 2001:db8::/32\n');
      assert.deepEqual(loadConfig(['--config', path], {}).n2.allowedPeers, ['10.1.0.0/16', '2001:db8::/32']);
      assert.deepEqual(loadConfig([], { PMN_N2_ALLOWED_PEERS: '192.0.2.7, 10.0.0.0/8' }).n2.allowedPeers, [
        '192.0.2.7',
        '10.0.0.0/8',
      ]);
      assert.deepEqual(loadConfig(['--n2-allowed-peers', '192.0.2.8'], {}).n2.allowedPeers, ['192.0.2.8']);
      assert.deepEqual(loadConfig(['--n2-allowed-peers', ''], {}).n2.allowedPeers, []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    for (const [value, error] of [
      ['gnb.example.com', /n2_allowed_peers: "gnb\.example\.com" is neither/],
      ['10.1.2.0/16', /without host bits/],
      ['192.0.2.7,192.0.2.7', /listed twice/],
    ] as const) {
      assert.throws(
        () => loadConfig([], { PMN_N2_ALLOWED_PEERS: value }),
        (e: unknown) => e instanceof ConfigError && error.test(e.message),
      );
    }
  });

  it('n2_further_endpoints: address and port, then usage and weight factor; a YAML list or comma-separated', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pmn-n2-further-'));
    try {
      const path = join(dir, 'config.yaml');
      writeFileSync(path, 'n2_further_endpoints:\n  - 10.0.0.2:38412\n  - "[2001:db8::2]:38413/ue/20"\n');
      assert.deepEqual(loadConfig(['--config', path], {}).n2.furtherEndpoints, [
        { address: '10.0.0.2', port: 38412, usage: 'both', weight: 1 },
        { address: '2001:db8::2', port: 38413, usage: 'ue', weight: 20 },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.deepEqual(
      loadConfig([], { PMN_N2_FURTHER_ENDPOINTS: '127.0.0.1:38413/non-ue/0, 127.0.0.1:38414' }).n2
        .furtherEndpoints,
      [
        { address: '127.0.0.1', port: 38413, usage: 'non-ue', weight: 0 },
        { address: '127.0.0.1', port: 38414, usage: 'both', weight: 1 },
      ],
    );
    assert.deepEqual(loadConfig(['--n2-further-endpoints', ''], {}).n2.furtherEndpoints, []);
    for (const [value, error] of [
      ['gnb.example.com:38412', /is not <address>:<port>/],
      ['2001:db8::2:38412', /is not <address>:<port>/],
      ['127.0.0.1:0', /is not <address>:<port>/],
      ['127.0.0.1:38413/all', /usage must be ue, non-ue or both/],
      ['127.0.0.1:38413/ue/256', /weight factor must be an integer in 0\.\.255/],
      ['127.0.0.1:38413,127.0.0.1:38413/ue', /127\.0\.0\.1:38413 is listed twice/],
    ] as const) {
      assert.throws(
        () => loadConfig([], { PMN_N2_FURTHER_ENDPOINTS: value }),
        (e: unknown) => e instanceof ConfigError && error.test(e.message),
      );
    }
  });

  it('amf_set_heartbeat_seconds and amf_set_lease_seconds: the lease must outlast a heartbeat', () => {
    assert.equal(loadConfig([], {}).n2.amfSet, undefined);
    assert.deepEqual(
      loadConfig(['--amf-set-heartbeat-seconds', '2'], { PMN_AMF_SET_LEASE_SECONDS: '7' }).n2.amfSet,
      { heartbeatMs: 2_000, leaseMs: 7_000 },
    );
    // Against the other's default (5 s heartbeat, 15 s lease).
    assert.throws(
      () => loadConfig(['--amf-set-heartbeat-seconds', '15'], {}),
      (e: unknown) =>
        e instanceof ConfigError && /must be longer than amf_set_heartbeat_seconds/.test(e.message),
    );
    assert.throws(
      () => loadConfig([], { PMN_AMF_SET_LEASE_SECONDS: '5' }),
      (e: unknown) => e instanceof ConfigError && /amf_set_lease_seconds \(5\)/.test(e.message),
    );
    assert.throws(
      () => loadConfig(['--amf-set-heartbeat-seconds', '0'], {}),
      (e: unknown) => e instanceof ConfigError && /amf_set_heartbeat_seconds/.test(e.message),
    );
  });

  it('amf_drain_timeout_seconds: how long a drain waits for its last connected UE', () => {
    assert.equal(loadConfig([], {}).n2.amfDrainTimeoutMs, undefined);
    assert.equal(loadConfig(['--amf-drain-timeout-seconds', '90'], {}).n2.amfDrainTimeoutMs, 90_000);
    assert.equal(loadConfig([], { PMN_AMF_DRAIN_TIMEOUT_SECONDS: '5' }).n2.amfDrainTimeoutMs, 5_000);
    assert.throws(
      () => loadConfig([], { PMN_AMF_DRAIN_TIMEOUT_SECONDS: '0' }),
      (e: unknown) => e instanceof ConfigError && /amf_drain_timeout_seconds/.test(e.message),
    );
  });
});
