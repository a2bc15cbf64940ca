// MILENAGE authentication and key generation functions, 3GPP TS 35.206.
import { aes128EncryptBlocks } from './aes-128.ts';

const BLOCK_BYTES = 16;
const SQN_BYTES = 6;
const AMF_BYTES = 2;

interface MilenageInput {
  key: Buffer;
  opc: Buffer;
  rand: Buffer;
  sqn: Buffer;
  amf: Buffer;
}

interface MilenageOutput {
  /** f1: network authentication code (MAC-A). */
  macA: Buffer;
  /** f1*: resynchronisation authentication code (MAC-S). */
  macS: Buffer;
  /** f2: user authentication response (RES / XRES). */
  res: Buffer;
  /** f3: cipher key. */
  ck: Buffer;
  /** f4: integrity key. */
  ik: Buffer;
  /** f5: anonymity key. */
  ak: Buffer;
  /** f5*: resynchronisation anonymity key. */
  akStar: Buffer;
}

// TS 35.206 §4.1: the rotation amounts r1..r5 (bytes: each is a multiple of 8 bits) and the last byte of
// the constants c1..c5 (every other bit of each constant is zero).
const OUT1 = { rotationBytes: 8, constant: 0x00 };
const OUT2 = { rotationBytes: 0, constant: 0x01 };
const OUT3 = { rotationBytes: 4, constant: 0x02 };
const OUT4 = { rotationBytes: 8, constant: 0x04 };
const OUT5 = { rotationBytes: 12, constant: 0x08 };

/** OPc = E_K(OP) XOR OP (TS 35.206 §4.1). */
export function deriveOpc(key: Buffer, op: Buffer): Buffer {
  requireLength('key', key, BLOCK_BYTES);
  requireLength('op', op, BLOCK_BYTES);
  const opc = aes128EncryptBlocks(key, op);
  xorInPlace(opc, 0, op);
  return opc;
}

// The kernel inputs of one call are gathered here and encrypted together (E_K is AES-128 on each block,
// ECB); the cipher copies them, so one scratch area serves every call. Outputs are views of the one
// buffer the cipher returns: a vector costs two small buffers instead of one per XOR and rotation.
const scratch = Buffer.alloc(5 * BLOCK_BYTES);
const scratchBlocks = [1, 2, 3, 4, 5].map((blocks) => scratch.subarray(0, blocks * BLOCK_BYTES));

/** Runs every MILENAGE function (f1, f1*, f2, f3, f4, f5, f5*) for one authentication vector. */
export function milenage(input: MilenageInput): MilenageOutput {
  const { key, opc, rand, sqn, amf } = input;
  requireCommonInputs(key, opc, rand);
  requireSequenceInputs(sqn, amf);
  const temp = computeTemp(key, opc, rand);
  writeOut1Input(0, opc, temp, sqn, amf);
  writeOutputInput(1, opc, temp, OUT2);
  writeOutputInput(2, opc, temp, OUT3);
  writeOutputInput(3, opc, temp, OUT4);
  writeOutputInput(4, opc, temp, OUT5);
  const out = encryptXorOpc(key, opc, 5);
  // TS 35.206 §4.1: MAC-A = OUT1[0..63], MAC-S = OUT1[64..127]; f5 = OUT2[0..47], f2 = OUT2[64..127];
  // f3 = OUT3, f4 = OUT4; f5* = OUT5[0..47].
  return {
    macA: out.subarray(0, 8),
    macS: out.subarray(8, 16),
    res: out.subarray(24, 32),
    ck: out.subarray(32, 48),
    ik: out.subarray(48, 64),
    ak: out.subarray(16, 22),
    akStar: out.subarray(64, 70),
  };
}

/** f1 and f1*: both halves of OUT1, so they are computed together. */
export function f1(
  key: Buffer,
  opc: Buffer,
  rand: Buffer,
  sqn: Buffer,
  amf: Buffer,
): { macA: Buffer; macS: Buffer } {
  requireCommonInputs(key, opc, rand);
  requireSequenceInputs(sqn, amf);
  writeOut1Input(0, opc, computeTemp(key, opc, rand), sqn, amf);
  const out1 = encryptXorOpc(key, opc, 1);
  return { macA: out1.subarray(0, 8), macS: out1.subarray(8, 16) };
}

/** f5*: the anonymity key that conceals SQN_MS in AUTS during resynchronisation. */
export function f5star(key: Buffer, opc: Buffer, rand: Buffer): Buffer {
  requireCommonInputs(key, opc, rand);
  writeOutputInput(0, opc, computeTemp(key, opc, rand), OUT5);
  return encryptXorOpc(key, opc, 1).subarray(0, 6);
}

// TS 35.206 §4.1: TEMP = E_K(RAND XOR OPc), shared by every function.
function computeTemp(key: Buffer, opc: Buffer, rand: Buffer): Buffer {
  for (let i = 0; i < BLOCK_BYTES; i++) scratch[i] = (rand[i] ?? 0) ^ (opc[i] ?? 0);
  return aes128EncryptBlocks(key, scratchBlocks[0]!);
}

// TS 35.206 §4.1: OUT1 = E_K(TEMP XOR rot(IN1 XOR OPc, r1) XOR c1) XOR OPc, IN1 = SQN || AMF || SQN || AMF;
// this writes the kernel input, E_K(...) and the XOR with OPc are encryptXorOpc's.
function writeOut1Input(block: number, opc: Buffer, temp: Buffer, sqn: Buffer, amf: Buffer): void {
  const offset = block * BLOCK_BYTES;
  for (let i = 0; i < BLOCK_BYTES; i++) {
    const j = (i + OUT1.rotationBytes) % BLOCK_BYTES;
    const in1 = j % 8 < SQN_BYTES ? (sqn[j % 8] ?? 0) : (amf[(j % 8) - SQN_BYTES] ?? 0);
    scratch[offset + i] = (temp[i] ?? 0) ^ in1 ^ (opc[j] ?? 0);
  }
  scratch[offset + BLOCK_BYTES - 1]! ^= OUT1.constant;
}

// TS 35.206 §4.1: OUTn = E_K(rot(TEMP XOR OPc, rn) XOR cn) XOR OPc for n = 2..5 (the kernel input here).
function writeOutputInput(
  block: number,
  opc: Buffer,
  temp: Buffer,
  params: { rotationBytes: number; constant: number },
): void {
  const offset = block * BLOCK_BYTES;
  for (let i = 0; i < BLOCK_BYTES; i++) {
    const j = (i + params.rotationBytes) % BLOCK_BYTES;
    scratch[offset + i] = (temp[j] ?? 0) ^ (opc[j] ?? 0);
  }
  scratch[offset + BLOCK_BYTES - 1]! ^= params.constant;
}

// E_K (Rijndael with a 128-bit key and block: AES-128) of the first `blocks` kernel inputs, each XOR OPc.
function encryptXorOpc(key: Buffer, opc: Buffer, blocks: number): Buffer {
  const out = aes128EncryptBlocks(key, scratchBlocks[blocks - 1]!);
  for (let offset = 0; offset < out.length; offset += BLOCK_BYTES) xorInPlace(out, offset, opc);
  return out;
}

function xorInPlace(target: Buffer, offset: number, mask: Uint8Array): void {
  for (let i = 0; i < BLOCK_BYTES; i++) target[offset + i]! ^= mask[i] ?? 0;
}

function requireCommonInputs(key: Buffer, opc: Buffer, rand: Buffer): void {
  requireLength('key', key, BLOCK_BYTES);
  requireLength('opc', opc, BLOCK_BYTES);
  requireLength('rand', rand, BLOCK_BYTES);
}

function requireSequenceInputs(sqn: Buffer, amf: Buffer): void {
  requireLength('sqn', sqn, SQN_BYTES);
  requireLength('amf', amf, AMF_BYTES);
}

function requireLength(name: string, value: Buffer, bytes: number): void {
  if (value.length !== bytes) {
    throw new RangeError(`${name} must be ${bytes} bytes, got ${value.length}`);
  }
}
