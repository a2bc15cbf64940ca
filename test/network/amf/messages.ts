import type { NGAPPDU, SupportedTAList } from '../../../src/network/ngap/generated/types.ts';
import { bits, plmnIdentity, tac } from '../../../src/network/ngap/ngap-values.ts';

/** A Supported TA List of one TAC broadcasting one PLMN with slice SST 1 SD 010203. */
export function taList(options: { mcc?: string; mnc?: string; tac?: number } = {}): SupportedTAList {
  return [
    {
      tAC: tac(options.tac ?? 1),
      broadcastPLMNList: [
        {
          pLMNIdentity: plmnIdentity(options.mcc ?? '001', options.mnc ?? '01'),
          tAISliceSupportList: [{ sNSSAI: { sST: Uint8Array.of(1), sD: Uint8Array.of(1, 2, 3) } }],
        },
      ],
    },
  ];
}

/** NG SETUP REQUEST of a gNB (TS 38.413 9.2.6.1); `omit` drops IEs by id to build faulty ones. */
export function ngSetupRequest(
  options: { gnbId?: number; name?: string; taList?: SupportedTAList; omit?: number[] } = {},
): NGAPPDU {
  const ies = [
    {
      id: 27,
      name: 'GlobalRANNodeID',
      criticality: 'reject',
      value: {
        choice: 'globalGNB-ID',
        value: {
          pLMNIdentity: plmnIdentity('001', '01'),
          gNBID: { choice: 'gNB-ID', value: bits(options.gnbId ?? 1, 22) },
        },
      },
    },
    ...(options.name === undefined
      ? []
      : [{ id: 82, name: 'RANNodeName', criticality: 'ignore', value: options.name } as const]),
    { id: 102, name: 'SupportedTAList', criticality: 'reject', value: options.taList ?? taList() },
    { id: 21, name: 'DefaultPagingDRX', criticality: 'ignore', value: 'v128' },
  ] as const;
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 21,
      name: 'NGSetup',
      criticality: 'reject',
      value: { protocolIEs: ies.filter((ie) => !(options.omit ?? []).includes(ie.id)) },
    },
  };
}

/** RAN CONFIGURATION UPDATE (TS 38.413 9.2.6.4). */
export function ranConfigurationUpdate(options: { name?: string; taList?: SupportedTAList } = {}): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 35,
      name: 'RANConfigurationUpdate',
      criticality: 'reject',
      value: {
        protocolIEs: [
          ...(options.name === undefined
            ? []
            : [{ id: 82, name: 'RANNodeName', criticality: 'ignore', value: options.name } as const]),
          ...(options.taList === undefined
            ? []
            : [{ id: 102, name: 'SupportedTAList', criticality: 'reject', value: options.taList } as const]),
        ],
      },
    },
  };
}

/** NG RESET from the radio (TS 38.413 9.2.6.11): the whole interface, or the listed connections. */
export function ngReset(part?: { amfUeNgapId?: number; ranUeNgapId?: number }[]): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 20,
      name: 'NGReset',
      criticality: 'reject',
      value: {
        protocolIEs: [
          {
            id: 15,
            name: 'Cause',
            criticality: 'ignore',
            value: { choice: 'misc', value: 'om-intervention' },
          },
          {
            id: 88,
            name: 'ResetType',
            criticality: 'reject',
            value:
              part === undefined
                ? { choice: 'nG-Interface', value: 'reset-all' }
                : {
                    choice: 'partOfNG-Interface',
                    value: part.map((c) => ({
                      ...(c.amfUeNgapId === undefined ? {} : { aMFUENGAPID: c.amfUeNgapId }),
                      ...(c.ranUeNgapId === undefined ? {} : { rANUENGAPID: c.ranUeNgapId }),
                    })),
                  },
          },
        ],
      },
    },
  };
}

/** ERROR INDICATION from the radio (TS 38.413 9.2.7.1). */
export function errorIndicationFromRadio(): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 9,
      name: 'ErrorIndication',
      criticality: 'ignore',
      value: {
        protocolIEs: [
          {
            id: 15,
            name: 'Cause',
            criticality: 'ignore',
            value: { choice: 'protocol', value: 'semantic-error' },
          },
        ],
      },
    },
  };
}

/** An answer to AMF Configuration Update: acknowledge, or failure with an optional Time to Wait. */
export function amfConfigurationUpdateAnswer(failure?: { timeToWait?: 'v1s' | 'v5s' }): NGAPPDU {
  if (failure === undefined)
    return {
      choice: 'successfulOutcome',
      value: {
        procedureCode: 0,
        name: 'AMFConfigurationUpdate',
        criticality: 'reject',
        value: { protocolIEs: [] },
      },
    };
  return {
    choice: 'unsuccessfulOutcome',
    value: {
      procedureCode: 0,
      name: 'AMFConfigurationUpdate',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 15, name: 'Cause', criticality: 'ignore', value: { choice: 'misc', value: 'unspecified' } },
          ...(failure.timeToWait === undefined
            ? []
            : [{ id: 107, name: 'TimeToWait', criticality: 'ignore', value: failure.timeToWait } as const]),
        ],
      },
    },
  };
}

/** NG RESET ACKNOWLEDGE from the radio. */
export function ngResetAcknowledgeFromRadio(): NGAPPDU {
  return {
    choice: 'successfulOutcome',
    value: { procedureCode: 20, name: 'NGReset', criticality: 'reject', value: { protocolIEs: [] } },
  };
}

/** INITIAL UE MESSAGE (TS 38.413 9.2.5.1): a UE-associated message, with an Identity Response inside. */
export function initialUeMessage(criticality: 'ignore' | 'reject' = 'ignore'): NGAPPDU {
  const plmn = plmnIdentity('001', '01');
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 15,
      name: 'InitialUEMessage',
      criticality,
      value: {
        protocolIEs: [
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: 7 },
          {
            id: 38,
            name: 'NAS-PDU',
            criticality: 'reject',
            value: Uint8Array.from([0x7e, 0x00, 0x5c, 0x00, 0x01, 0x00]),
          },
          {
            id: 121,
            name: 'UserLocationInformation',
            criticality: 'reject',
            value: {
              choice: 'userLocationInformationNR',
              value: {
                nRCGI: { pLMNIdentity: plmn, nRCellIdentity: bits(16, 36) },
                tAI: { pLMNIdentity: plmn, tAC: tac(1) },
              },
            },
          },
          { id: 90, name: 'RRCEstablishmentCause', criticality: 'ignore', value: 'mo-Signalling' },
        ],
      },
    },
  };
}
