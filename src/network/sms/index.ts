// SMS codecs (TS 24.011 CP and RP layers, TS 23.040 TPDUs, TS 23.038 alphabets), the text splitter and
// the reassembler of concatenated messages. Pure: no I/O, no clocks of their own.
export * from './address.ts';
export * from './cp.ts';
export * from './dcs.ts';
export { septetsToText, textToSeptets } from './gsm7.ts';
export * from './reassembly.ts';
export * from './result.ts';
export * from './rp.ts';
export * from './split.ts';
export * from './timestamp.ts';
export * from './tpdu.ts';
export * from './user-data.ts';
