import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { packageRoot } from '../package-root.ts';

/** Where `npm run build:ui` writes the web application. */
export const WEB_UI_DIRECTORY = join(packageRoot(), 'dist', 'ui');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** Vite names everything under assets/ by content hash: a new build is a new name, so they never change. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html names the current assets: the browser asks again each time (a 304 when unchanged). */
const REVALIDATE = 'no-cache';

/**
 * The API's policy forbids everything; the application needs its own scripts, styles (the component
 * library sets CSS variables in style attributes), images and calls to the same origin.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

interface StaticFile {
  body: Buffer;
  compressible: boolean;
  /** Compressed on the first request that accepts gzip, then kept: most builds of the app serve none. */
  gzipped?: Buffer;
  type: string;
  cacheControl: string;
  etag: string;
}

function listFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    return entry.isDirectory() ? listFiles(path) : [path];
  });
}

/** Every file of the build, read once: the paths a request may name are exactly these keys. */
function loadBuild(directory: string): Map<string, StaticFile> | undefined {
  try {
    if (!statSync(join(directory, 'index.html')).isFile()) return undefined;
  } catch {
    return undefined;
  }
  const files = new Map<string, StaticFile>();
  for (const path of listFiles(directory)) {
    const urlPath = '/' + relative(directory, path).split(sep).join('/');
    const body = readFileSync(path);
    const type = CONTENT_TYPES[extname(path)] ?? 'application/octet-stream';
    const compressible = /^(text\/|application\/json|image\/svg)/.test(type) && body.length > 1024;
    files.set(urlPath, {
      body,
      compressible,
      type,
      cacheControl: urlPath.startsWith('/assets/') ? IMMUTABLE : REVALIDATE,
      etag: `"${body.length.toString(16)}-${statSync(path).mtimeMs.toString(16)}"`,
    });
  }
  return files;
}

function send(reply: FastifyReply, file: StaticFile, acceptEncoding: string, notModified: boolean) {
  reply
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('cache-control', file.cacheControl)
    .header('etag', file.etag)
    .header('vary', 'accept-encoding')
    .type(file.type);
  if (notModified) return reply.code(304).send();
  if (file.compressible && /\bgzip\b/.test(acceptEncoding)) {
    file.gzipped ??= gzipSync(file.body, { level: 9 });
    return reply.header('content-encoding', 'gzip').send(file.gzipped);
  }
  return reply.send(file.body);
}

/**
 * Serves the web application (`dist/ui`) at `/`: its files, and index.html for any other GET that no route
 * answers and that is not under `/api/` (client-side routes such as `/subscribers/001010000000001`), so a
 * reload or a shared link opens the page. It runs where a request found no route, so API routes, their
 * 404 and 405 answers and the security headers stay as they are. Without a build, `/` says how to make one.
 */
export function installWebUi(app: FastifyInstance, directory: string = WEB_UI_DIRECTORY): void {
  const files = loadBuild(directory);
  app.addHook('onRequest', (request, reply, done) => {
    // Every API request passes here: the route test comes first, before the URL is cut.
    if (!request.is404 || (request.method !== 'GET' && request.method !== 'HEAD')) return done();
    const path = request.url.split('?')[0] ?? '/';
    if (path === '/api' || path.startsWith('/api/')) return done();
    if (!files) {
      void reply
        .code(404)
        .type('text/plain; charset=utf-8')
        .send(
          'The web UI is not built: run `npm run build` (or `npm run build:ui`) and restart the service.\n',
        );
      return;
    }
    const file = files.get(path) ?? (path.startsWith('/assets/') ? undefined : files.get('/index.html'));
    if (!file) return done();
    void send(
      reply,
      file,
      String(request.headers['accept-encoding'] ?? ''),
      request.headers['if-none-match'] === file.etag,
    );
  });
}
