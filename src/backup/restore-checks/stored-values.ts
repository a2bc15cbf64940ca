import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { isCidrNetwork, isIpAddress } from '../../validation/ip-network.ts';
import {
  Arp,
  Bitrate,
  DataNetworkName,
  Mcc,
  Mnc,
  Mtu,
  PriorityLevel,
  ResourceName,
  Sd,
  SequenceNumber,
  Imsi,
  IPV6_POOL_PATTERN,
  StoredMsisdn,
  Sst,
  Var5qi,
} from '../../validation/network-values.ts';
import { at, inStep, overRowids, quoted, type Candidate } from './candidate.ts';

/** A rule for one stored value. */
type Rule = (value: unknown) => boolean;

/** The API's own value schema for the field. */
const schema =
  (value: TSchema): Rule =>
  (candidate) =>
    Value.Check(value, candidate);

const cidr = (value: unknown): boolean => typeof value === 'string' && isCidrNetwork(value);
const ipv6Pool = (value: unknown): boolean =>
  cidr(value) && new RegExp(IPV6_POOL_PATTERN).test(value as string);
const ip = (value: unknown): boolean => typeof value === 'string' && isIpAddress(value);
const homeNetworkKeyId = (value: unknown): boolean =>
  Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= 255;
const scheme = (value: unknown): boolean => value === 'A' || value === 'B';

/**
 * The configuration columns the network side and the API trust, each with the rule its value was
 * accepted under (mostly the create and update bodies' value schemas). Column types are checked before, so a
 * rule sees the declared type; NULL is allowed where the column is nullable.
 */
const VALUE_COLUMNS: { table: string; columns: Record<string, Rule> }[] = [
  { table: 'operator', columns: { mcc: schema(Mcc), mnc: schema(Mnc) } },
  { table: 'home_network_keys', columns: { id: homeNetworkKeyId, scheme } },
  { table: 'data_networks', columns: { name: schema(DataNetworkName) } },
  { table: 'slices', columns: { name: schema(ResourceName), sst: schema(Sst), sd: schema(Sd) } },
  {
    table: 'profiles',
    columns: {
      name: schema(ResourceName),
      ue_ip_pool: cidr,
      ue_ipv6_pool: ipv6Pool,
      dns: ip,
      mtu: schema(Mtu),
      bitrate_uplink: schema(Bitrate),
      bitrate_downlink: schema(Bitrate),
      var5qi: schema(Var5qi),
      priority_level: schema(PriorityLevel),
    },
  },
  {
    table: 'policies',
    columns: {
      name: schema(ResourceName),
      bitrate_uplink: schema(Bitrate),
      bitrate_downlink: schema(Bitrate),
      var5qi: schema(Var5qi),
      arp: schema(Arp),
    },
  },
  {
    table: 'subscribers',
    columns: {
      imsi: schema(Imsi),
      sequence_number: schema(SequenceNumber),
      msisdn: schema(StoredMsisdn),
    },
  },
];

/**
 * Every configuration value is one the API would have accepted: a crafted IP pool, IMSI, bit rate or
 * key scheme would otherwise reach the network functions, which trust them (the schema's CHECK constraints
 * already hold the rest, e.g. positive retention periods).
 */
export async function checkStoredValues(candidate: Candidate): Promise<string | undefined> {
  for (const { table, columns } of VALUE_COLUMNS) {
    const names = Object.keys(columns);
    const rows = candidate.prepare(
      `SELECT CAST(rowid AS TEXT) AS row, ${names.map(quoted).join(', ')} FROM ${quoted(table)} WHERE ${inStep}`,
    );
    const problem = await overRowids(candidate, table, (from, to) => {
      for (const row of rows.all(from, to) as Record<string, unknown>[]) {
        for (const name of names) {
          const value = row[name];
          if (value !== null && !(columns[name] as Rule)(value))
            return at(table, row.row, name, 'is not a value the service accepts');
        }
      }
      return undefined;
    });
    if (problem) return problem;
  }
  return undefined;
}
