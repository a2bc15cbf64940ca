import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import type { TestApp } from './test-app.ts';

/** 3GPP TS 35.208 test set 1: a key, an OP and the OPc derived from them. */
export const TEST_SET_1 = {
  key: '465b5ce8b199b49faa5f0a2ee238a6bc',
  op: 'cdc202d5123e20f62b6d676ac72cb318',
  opc: 'cd63cb71954a9f4e48a5994e37a02baf',
};

/** An IMSI of the default operator (MCC 001, MNC 01). */
export const imsi = (n: number): string => `00101${String(n).padStart(10, '0')}`;

export function newSubscriber(n: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    imsi: imsi(n),
    key: TEST_SET_1.key,
    sequenceNumber: '000000000001',
    profile_name: 'default',
    ...overrides,
  };
}

export const newSlice = (name: string, overrides: Record<string, unknown> = {}) => ({
  name,
  sst: 1,
  sd: '010203',
  ...overrides,
});

export const newProfile = (name: string, overrides: Record<string, unknown> = {}) => ({
  name,
  'ue-ip-pool': '10.46.0.0/16',
  dns: '1.1.1.1',
  mtu: 1500,
  'bitrate-uplink': '100 Mbps',
  'bitrate-downlink': '200 Mbps',
  var5qi: 8,
  'priority-level': 20,
  ...overrides,
});

export const newPolicy = (name: string, overrides: Record<string, unknown> = {}) => ({
  name,
  bitrate_uplink: '50 Mbps',
  bitrate_downlink: '100 Mbps',
  var5qi: 7,
  arp: 2,
  data_network_name: 'internet',
  ...overrides,
});

/** Sends a create and insists it answered 201, so a test's setup fails loudly where it breaks. */
export async function created(t: TestApp, token: string, url: string, payload: unknown): Promise<void> {
  const response = await t.request({
    method: 'POST',
    url,
    token,
    payload: payload as InjectOptions['payload'],
  });
  assert.equal(response.statusCode, 201, `POST ${url}: ${response.body}`);
}

/** The error message of a response with the expected status. */
export function errorOf(response: { statusCode: number; body: string }, status: number): string {
  assert.equal(response.statusCode, status, response.body);
  return (JSON.parse(response.body) as { error: string }).error;
}

/** A copy of a payload without some fields: for missing-field cases and update bodies (no name). */
export function omit(payload: Record<string, unknown>, ...fields: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(payload).filter(([field]) => !fields.includes(field)));
}
