import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The vectors of independent implementations (third-party/vectors, see its SOURCE.md). */
const VECTORS = fileURLToPath(new URL('../../../third-party/vectors', import.meta.url));

export interface NgapVector {
  label: string;
  hex: string;
  /** tshark's Info column for this PDU, as recorded with the vector. */
  info: string;
}

interface Free5gcFile {
  vectors: {
    file: string;
    line: number;
    func: string;
    case: string;
    hex: string;
    tshark: { info: string };
  }[];
}

interface Open5gsFile {
  messages: { frame: number; ngap_hex: string; tshark_info: string }[];
}

/**
 * free5gc/ngap message/ng_setup_request_test.go line 506 (commit 7c612500): the vector file took two
 * bytes from comments inside the Go byte slice (`// len=0x58`, `// ... (ID=0x99 ...)`), so its hex is not
 * the test's input. These are the bytes of the Go source.
 */
export const FREE5GC_NG_SETUP_UNKNOWN_IE =
  '00150058000005001b0009001330015000000000005240110700676e622e73706972656e742e636f6d' +
  '009940110700676e622e73706972656e742e636f6d006600150000000001001330010001100801020310081122330015400100';

/** Every NGAP PDU of both vector files (free5gc/ngap tests, the open5gs capture). */
export function ngapVectors(): NgapVector[] {
  const free5gc = JSON.parse(readFileSync(`${VECTORS}/free5gc-ngap-pdus.json`, 'utf8')) as Free5gcFile;
  const open5gs = JSON.parse(
    readFileSync(`${VECTORS}/open5gs-5g-roaming-hr.ngap.json`, 'utf8'),
  ) as Open5gsFile;
  return [
    ...free5gc.vectors.map((v) => ({
      label: `free5gc ${v.file}:${v.line} ${v.case}`,
      hex: v.hex,
      info: v.tshark.info,
    })),
    ...open5gs.messages.map((m) => ({
      label: `open5gs frame ${m.frame}`,
      hex: m.ngap_hex,
      info: m.tshark_info,
    })),
  ];
}
