// What every SMS decoder returns: the decoded value, or why the bytes were refused. `cause` is the value the
// layer's error message carries back (CP-cause, RP-cause or TP-FCS); it is absent where the spec says to
// ignore the message (too short, not an SMS message).
export type SmsDecodeResult<T> = { ok: true; value: T } | { ok: false; error: string; cause?: number };

export function ok<T>(value: T): SmsDecodeResult<T> {
  return { ok: true, value };
}

export function fail<T>(error: string, cause?: number): SmsDecodeResult<T> {
  return cause === undefined ? { ok: false, error } : { ok: false, error, cause };
}
