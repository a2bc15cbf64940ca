import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { multipartFile } from './multipart.ts';
import type { TestApp } from './test-app.ts';

/** `POST /api/v1/backup`, which must answer 200: the database file's bytes. */
export async function takeBackup(t: TestApp, token: string): Promise<Buffer> {
  const response = await t.request({ method: 'POST', url: '/api/v1/backup', token });
  assert.equal(response.statusCode, 200, response.body);
  return response.rawPayload;
}

/** `POST /api/v1/restore` with `bytes` uploaded as `curl -F file=@...` would; any answer. */
export function requestRestore(t: TestApp, token: string, bytes: Buffer): Promise<LightMyRequestResponse> {
  return t.request({ method: 'POST', url: '/api/v1/restore', token, ...multipartFile(bytes) });
}

/** A restore that must answer 200. */
export async function restoreBackup(t: TestApp, token: string, bytes: Buffer): Promise<void> {
  const response = await requestRestore(t, token, bytes);
  assert.equal(response.statusCode, 200, response.body);
}
