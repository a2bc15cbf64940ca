// The 5G NAS security context (TS 33.501 6.4, TS 24.501 4.4) for the AMF and the simulated UE alike.
export { MAX_NAS_COUNT, estimateCount } from './nas-count.ts';
export { protect, sendCountExhausted } from './protect.ts';
export {
  createNasSecurityContext,
  deriveContextKgnb,
  isNasAlgorithm,
  latestUplinkCount,
  makeCurrent,
  restoreNasSecurityContext,
  type NasSecurityContext,
  type NasSecuritySide,
} from './security-context.ts';
export { unprotect } from './unprotect.ts';
