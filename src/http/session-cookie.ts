import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_TTL_MS } from '../identity/credential-lifetimes.ts';

const SESSION_COOKIE = 'pmn_session';

/** The session cookie value sent with a request, if any. */
export function readSessionCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === SESSION_COOKIE) {
      const value = part.slice(index + 1).trim();
      return /^[0-9a-f]{1,128}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** httpOnly, SameSite=Strict, valid 30 days; Secure when the service runs under TLS. */
export function setSessionCookie(reply: FastifyReply, value: string, secure: boolean): void {
  const maxAge = Math.floor(SESSION_TTL_MS / 1000);
  reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`,
  );
}

export function clearSessionCookie(reply: FastifyReply, secure: boolean): void {
  reply.header(
    'set-cookie',
    `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`,
  );
}
