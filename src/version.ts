import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './package-root.ts';

const manifest = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
  version: string;
};

export const VERSION = manifest.version;
