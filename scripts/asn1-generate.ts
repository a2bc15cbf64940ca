/**
 * Regenerates the PER codecs of NGAP, NRPPa and LPP from the 3GPP ASN.1 in third-party/asn1 (or
 * $PMN_ASN1_DIR): `tsx scripts/asn1-generate.ts [ngap|nrppa|lpp ...]`. A test regenerates them in
 * memory and fails when the committed files differ.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import prettier from 'prettier';
import type { GeneratedFiles, GeneratorOptions } from '../src/network/asn1/generator.ts';
import { Generator } from '../src/network/asn1/generator.ts';
import { generateIeTables, ieTableData, singleIeSets } from '../src/network/asn1/ie-tables.ts';
import { generateMessageFunctions } from '../src/network/asn1/message-functions.ts';
import { parseModules } from '../src/network/asn1/parser.ts';
import { generateSingleIes } from '../src/network/asn1/single-ies.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The 3GPP modules in third-party/asn1, unless PMN_ASN1_DIR names another folder. */
export const ASN1_DIR = process.env.PMN_ASN1_DIR ?? join(root, 'third-party/asn1');

export interface Protocol {
  /** Folder of .asn files under ASN1_DIR. */
  asn1: string;
  /** Output folder, relative to the repository. */
  out: string;
  options: GeneratorOptions;
  /**
   * Also write `ies.ts`, the procedure and IE tables of the protocol (ie-tables.ts), `messages.ts`,
   * a typed object, builder and reader per message (message-functions.ts) over `runtime`, the module
   * that judges received PDUs of `pdu` against those tables, and `single-ies.ts`, the builders of the
   * IEs of single-IE containers (single-ies.ts).
   */
  ieTables?: { runtime: string; pdu: string; header?: string };
}

export const PROTOCOLS: Record<string, Protocol> = {
  ngap: {
    asn1: 'ngap',
    out: 'src/network/ngap/generated',
    ieTables: { runtime: '../message-functions.ts', pdu: 'NGAPPDU' },
    options: {
      aligned: true,
      runtime: '../../asn1',
      source: '3GPP TS 38.413 V17.4.0 (NGAP)',
      views: { PLMNIdentity: 'plmnIdentityView', 'NAS-PDU': 'nasPduView' },
      viewHelpers: '../view-hooks.ts',
      // KgNB and NH (TS 33.501 6.9.2): the only key material NGAP carries (network.md section 4).
      keyMaterial: ['SecurityKey'],
    },
  },
  nrppa: {
    asn1: 'nrppa',
    out: 'src/network/nrppa/generated',
    ieTables: {
      runtime: '../message-functions.ts',
      pdu: 'NRPPAPDU',
      header: '{ nrppatransactionID: T.NRPPATransactionID }',
    },
    options: { aligned: true, runtime: '../../asn1', source: '3GPP TS 38.455 V17.4.0 (NRPPa)' },
  },
  lpp: {
    asn1: 'lpp',
    out: 'src/network/lpp/generated',
    options: { aligned: false, runtime: '../../asn1', source: '3GPP TS 37.355 V17.4.0 (LPP)' },
  },
};

/** The generator's output for one protocol, before formatting. */
export function generate(
  protocol: Protocol,
): GeneratedFiles & { 'ies.ts'?: string; 'messages.ts'?: string; 'single-ies.ts'?: string } {
  const dir = join(ASN1_DIR, protocol.asn1);
  const modules = readdirSync(dir)
    .filter((file) => file.endsWith('.asn'))
    .sort()
    .flatMap((file) => parseModules(readFileSync(join(dir, file), 'utf8')));
  const files = new Generator(modules, protocol.options).generate();
  const tables = protocol.ieTables;
  if (tables === undefined) return files;
  const source = protocol.options.source;
  return {
    ...files,
    'ies.ts': generateIeTables(modules, source, protocol.options.keyMaterial),
    'messages.ts': generateMessageFunctions(ieTableData(modules), { source, ...tables }),
    'single-ies.ts': generateSingleIes(singleIeSets(modules), source),
  };
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * The first line of a committed file: hashes of the generator's output and of the formatted text
 * after this line. The drift test regenerates in memory and compares both without running Prettier
 * (seconds, not a minute): any change to the generator, the ASN.1 or the committed text shows.
 */
export function stamp(raw: string, formatted: string): string {
  return `// asn1-generate: generator output sha256 ${sha256(raw)}, file sha256 ${sha256(formatted)}\n`;
}

/** The files of one protocol as committed: stamped, Prettier-formatted. */
export async function render(protocol: Protocol): Promise<Record<string, string>> {
  const files = generate(protocol);
  const config = (await prettier.resolveConfig(join(root, protocol.out, 'codec.ts'))) ?? {};
  const out: Record<string, string> = {};
  for (const [name, text] of Object.entries(files) as [string, string][]) {
    const formatted = await prettier.format(text, { ...config, parser: 'typescript' });
    out[name] = stamp(text, formatted) + formatted;
  }
  return out;
}

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  for (const name of names.length > 0 ? names : Object.keys(PROTOCOLS)) {
    const protocol = PROTOCOLS[name];
    if (protocol === undefined) throw new Error(`unknown protocol ${name}`);
    const files = await render(protocol);
    mkdirSync(join(root, protocol.out), { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(root, protocol.out, file), text);
    process.stdout.write(`${name}: ${Object.keys(files).join(', ')} in ${protocol.out}\n`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
