// MILENAGE authentication and key generation functions, 3GPP TS 35.206.
import { aes128EncryptBlocks } from './aes-128.ts';

const BLOCK_BYTES = 16;
const SQN_BYTES = 6;
const AMF_BYTES = 2;

export interface MilenageInput {
  key: Buffer;
  opc: Buffer;
  rand: Buffer;
  sqn: Buffer;
  amf: Buffer;
}

export interface MilenageOutput {
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

// TS 35.206 §4.1: the rotation amounts r1..r5 (bits) and the last byte of the constants c1..c5
// (every other bit of each constant is zero).
const F1_ROTATION_BITS = 64;
const F1_CONSTANT = 0x00;
const OUT2 = { rotationBits: 0, constant: 0x01 };
const OUT3 = { rotationBits: 32, constant: 0x02 };
const OUT4 = { rotationBits: 64, constant: 0x04 };
const OUT5 = { rotationBits: 96, constant: 0x08 };

/** OPc = E_K(OP) XOR OP (TS 35.206 §4.1). */
export function deriveOpc(key: Buffer, op: Buffer): Buffer {
  requireLength('key', key, BLOCK_BYTES);
  requireLength('op', op, BLOCK_BYTES);
  return xor(encryptBlock(key, op), op);
}

/** Runs every MILENAGE function (f1, f1*, f2, f3, f4, f5, f5*) for one authentication vector. */
export function milenage(input: MilenageInput): MilenageOutput {
  const { key, opc, rand, sqn, amf } = input;
  requireCommonInputs(key, opc, rand);
  requireSequenceInputs(sqn, amf);
  const temp = computeTemp(key, opc, rand);
  return {
    ...authenticationCodes(key, opc, temp, sqn, amf),
    ...keysAndResponse(key, opc, temp),
    akStar: resyncAnonymityKey(key, opc, temp),
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
  return authenticationCodes(key, opc, computeTemp(key, opc, rand), sqn, amf);
}

/** f5*: the anonymity key that conceals SQN_MS in AUTS during resynchronisation. */
export function f5star(key: Buffer, opc: Buffer, rand: Buffer): Buffer {
  requireCommonInputs(key, opc, rand);
  return resyncAnonymityKey(key, opc, computeTemp(key, opc, rand));
}

// TS 35.206 §4.1: TEMP = E_K(RAND XOR OPc), shared by every function.
function computeTemp(key: Buffer, opc: Buffer, rand: Buffer): Buffer {
  return encryptBlock(key, xor(rand, opc));
}

// TS 35.206 §4.1: OUT1 = E_K(TEMP XOR rot(IN1 XOR OPc, r1) XOR c1) XOR OPc, IN1 = SQN || AMF || SQN || AMF.
function authenticationCodes(
  key: Buffer,
  opc: Buffer,
  temp: Buffer,
  sqn: Buffer,
  amf: Buffer,
): { macA: Buffer; macS: Buffer } {
  const in1 = Buffer.concat([sqn, amf, sqn, amf]);
  const rotated = rotateLeft(xor(in1, opc), F1_ROTATION_BITS);
  const out1 = xor(encryptBlock(key, xor(xor(temp, rotated), constantBlock(F1_CONSTANT))), opc);
  return { macA: out1.subarray(0, 8), macS: out1.subarray(8, 16) };
}

// TS 35.206 §4.1: f5 = OUT2[0..47], f2 = OUT2[64..127], f3 = OUT3, f4 = OUT4.
function keysAndResponse(
  key: Buffer,
  opc: Buffer,
  temp: Buffer,
): { res: Buffer; ck: Buffer; ik: Buffer; ak: Buffer } {
  const out2 = outputBlock(key, opc, temp, OUT2);
  return {
    res: out2.subarray(8, 16),
    ck: outputBlock(key, opc, temp, OUT3),
    ik: outputBlock(key, opc, temp, OUT4),
    ak: out2.subarray(0, 6),
  };
}

// TS 35.206 §4.1: f5* = OUT5[0..47].
function resyncAnonymityKey(key: Buffer, opc: Buffer, temp: Buffer): Buffer {
  return outputBlock(key, opc, temp, OUT5).subarray(0, 6);
}

// TS 35.206 §4.1: OUTn = E_K(rot(TEMP XOR OPc, rn) XOR cn) XOR OPc for n = 2..5.
function outputBlock(
  key: Buffer,
  opc: Buffer,
  temp: Buffer,
  params: { rotationBits: number; constant: number },
): Buffer {
  const rotated = rotateLeft(xor(temp, opc), params.rotationBits);
  return xor(encryptBlock(key, xor(rotated, constantBlock(params.constant))), opc);
}

// The kernel function E_K is Rijndael with a 128-bit key and block, i.e. single-block AES-128.
function encryptBlock(key: Buffer, block: Buffer): Buffer {
  return aes128EncryptBlocks(key, block);
}

// Every r1..r5 is a multiple of 8, so rotating whole bytes is exact.
function rotateLeft(block: Buffer, bits: number): Buffer {
  const bytes = bits / 8;
  return Buffer.concat([block.subarray(bytes), block.subarray(0, bytes)]);
}

function constantBlock(lastByte: number): Buffer {
  const block = Buffer.alloc(BLOCK_BYTES);
  block[BLOCK_BYTES - 1] = lastByte;
  return block;
}

function xor(a: Buffer, b: Buffer): Buffer {
  return Buffer.from(a.map((byte, index) => byte ^ (b[index] ?? 0)));
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
