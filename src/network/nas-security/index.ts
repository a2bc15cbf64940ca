// The 5G NAS security context (TS 33.501 6.4, TS 24.501 4.4) for the AMF and the simulated UE alike.
export { MAX_NAS_COUNT, estimateCount, sequenceNumberOf } from './nas-count.ts';
export { protect, sendCountExhausted } from './protect.ts';
export {
  createNasSecurityContext,
  deriveContextKgnb,
  isNasAlgorithm,
  latestUplinkCount,
  makeCurrent,
  NAS_CONNECTION_IDENTIFIER_3GPP,
  type NasSecurityContext,
  type NasSecurityContextInput,
  type NasSecurityContextStatus,
  type NasSecuritySide,
} from './security-context.ts';
export { unprotect, type UnprotectFailureReason, type UnprotectResult } from './unprotect.ts';
