/** API tokens read `core_<id>_<secret>`: a public id to find the row and a secret checked against its hash. */
const API_TOKEN = /^core_([0-9a-f]{16})_([0-9a-f]{64})$/;

export const API_TOKEN_PREFIX = 'core_';

export function formatApiToken(publicId: string, secret: string): string {
  return `${API_TOKEN_PREFIX}${publicId}_${secret}`;
}

export function parseApiToken(token: string): { publicId: string; secret: string } | undefined {
  const match = API_TOKEN.exec(token);
  return match ? { publicId: match[1] ?? '', secret: match[2] ?? '' } : undefined;
}
