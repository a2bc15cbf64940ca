// NAS-5GS codec (TS 24.501 Release 17): plain 5GMM/5GSM messages from tables, the security-protected
// wrapper, value types of the IEs the AMF and SMF read, and the names the API shows.
export * from './causes.ts';
export * from './decode-error.ts';
export * from './ie/digits.ts';
export * from './ie/mobile-identity.ts';
export * from './ie/mobility.ts';
export * from './ie/nssai.ts';
export * from './ie/session.ts';
export * from './ie/tracking-area.ts';
export {
  decodeNasMessage,
  encodeNasMessage,
  messageTypes,
  type FiveGmmMessage,
  type FiveGsmMessage,
  type NasDecodeResult,
  type NasMessage,
  type NasMessageOf,
  type NasMessageType,
} from './message-codec.ts';
export { decodedView, messageTitle, snakeCase } from './names.ts';
export * from './security-header.ts';
