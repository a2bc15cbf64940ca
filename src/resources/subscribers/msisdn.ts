/** An MSISDN as the API accepted it (schema `Msisdn`), in its stored form: digits only, no "+" (decision 23). */
export function storedMsisdn(value: string): string {
  return value.startsWith('+') ? value.slice(1) : value;
}

/** The 409 message for an MSISDN another subscriber holds; `holder` when it is known. */
export function msisdnTaken(msisdn: string, holder: string | undefined): string {
  return `msisdn ${msisdn} already belongs to ${holder === undefined ? 'another subscriber' : `subscriber ${holder}`}`;
}
