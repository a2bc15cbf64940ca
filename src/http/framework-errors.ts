import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { securityHeaders } from './security-headers.ts';

/** Longest path parameter: an e-mail of 254 characters, each percent-encoded, fits. */
export const MAX_PARAM_LENGTH = 1024;

/**
 * Errors raised before a route runs, by the router (a malformed percent-encoding, a parameter over
 * `MAX_PARAM_LENGTH`) or by Node's HTTP parser (a head over 16 KiB, a bad Content-Length): they answer
 * like every other error, `{"error": "..."}` with the usual headers, and never echo the client's input.
 */
export function frameworkErrorHandler(options: { tls: boolean }) {
  const headers = securityHeaders(options);
  return (error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void => {
    const [status, message] =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? [414, `a path parameter is longer than ${MAX_PARAM_LENGTH} characters`]
        : error.code === 'FST_ERR_BAD_URL'
          ? [400, 'the path is not a valid URL (malformed percent-encoding)']
          : [400, 'the request is malformed'];
    void reply.code(status).headers(headers).type('application/json; charset=utf-8').send({ error: message });
  };
}

const PARSER_ERRORS: Record<string, [number, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'the request head did not arrive in time'],
  HPE_HEADER_OVERFLOW: [431, 'the request head is larger than 16 KiB'],
  HPE_UNEXPECTED_CONTENT_LENGTH: [400, 'Content-Length is not valid'],
  HPE_INVALID_CONTENT_LENGTH: [400, 'Content-Length is not valid'],
  HPE_INVALID_TRANSFER_ENCODING: [400, 'Transfer-Encoding is not valid'],
};

/**
 * The method of the request a parser error came from, when the bytes it failed in start that request
 * (they may be a later piece of a long head: then it cannot be known).
 */
function methodOf(rawPacket: unknown): string | undefined {
  if (!Buffer.isBuffer(rawPacket)) return undefined;
  return /^([A-Z]+) /.exec(rawPacket.subarray(0, 16).toString('latin1'))?.[1];
}

/** Node's HTTP parser refused the request: answer in the API's error shape, then close the connection. */
export function clientErrorHandler(options: { tls: boolean }) {
  const headers = securityHeaders(options);
  return (error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const [status, message] = PARSER_ERRORS[error.code ?? ''] ?? [400, 'the request is malformed'];
    // An answer to HEAD has no body (RFC 9110, 9.3.2): send one only to a request known not to be HEAD.
    const method = methodOf(error.rawPacket);
    const body = method === undefined || method === 'HEAD' ? '' : JSON.stringify({ error: message });
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
      ...(body === '' ? [] : ['content-type: application/json; charset=utf-8']),
      `content-length: ${Buffer.byteLength(body)}`,
      'connection: close',
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  };
}
