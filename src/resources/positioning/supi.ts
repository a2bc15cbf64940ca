/** A SUPI of type IMSI (TS 23.003 section 2.2A, TS 29.571 `Supi`): `imsi-` followed by the IMSI. */
const PREFIX = 'imsi-';

export const supiOf = (imsi: string): string => `${PREFIX}${imsi}`;

export const imsiOf = (supi: string): string => supi.slice(PREFIX.length);
