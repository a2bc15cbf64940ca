/** TypeScript names and JSON view keys derived from ASN.1 names. */

/** A type reference as a TypeScript type name: hyphens dropped (`GlobalGNB-ID` -> `GlobalGNBID`). */
export function typeName(asn1: string): string {
  return asn1.replace(/-/g, '');
}

/** A component name as a TypeScript property: camelCase across hyphens (`iE-Extensions` -> `iEExtensions`). */
export function propertyName(asn1: string): string {
  return asn1.replace(/-([A-Za-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * snake_case of an ASN.1 name, keeping acronyms whole (network.md section 3): `NGSetupRequest` ->
 * `ng_setup_request`, `GlobalRANNodeID` -> `global_ran_node_id`, `gNB-ID` -> `gnb_id`, `pLMNIdentity`
 * -> `plmn_identity` (a lone leading lower-case letter belongs to the acronym after it).
 */
export function snakeCase(asn1: string): string {
  const words: string[] = [];
  for (let part of asn1.split('-')) {
    if (/^[a-z][A-Z]/.test(part)) part = part[0]!.toUpperCase() + part.slice(1);
    const matches = part.match(
      /[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]+(?![a-z])|[A-Z][a-z0-9]*|[a-z0-9]+/g,
    );
    for (const word of matches ?? []) words.push(word.toLowerCase());
  }
  return words.join('_');
}

/**
 * An IE's field in a generated message object: camelCase of its snake_case view key
 * (`RAN-UE-NGAP-ID` -> `ranUeNgapId`, `UserLocationInformation` -> `userLocationInformation`); a
 * word ending in one lower-case letter stays whole (`NRPPa-PDU` -> `nrppaPdu`).
 */
export function ieFieldName(asn1: string): string {
  const words = asn1.replace(
    /([A-Z])([A-Z]+[a-z])(?=-|$)/g,
    (_, a: string, b: string) => a + b.toLowerCase(),
  );
  return snakeCase(words).replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
