import type { App } from '../../http/app-types.ts';
import { actorOf } from '../../http/authentication.ts';
import { NameParams } from '../../validation/network-values.ts';
import {
  Envelope,
  message,
  MessageResult,
  ok,
  Paginated,
  paginated,
  PaginationQuery,
  pageWindow,
} from '../../http/schemas.ts';
import type { Policy } from './policies.repository.ts';
import { CreatePolicyBody, PolicyResult, UpdatePolicyBody } from './policies.schema.ts';
import type { PolicyInput, PoliciesService } from './policies.service.ts';

const toResult = (policy: Policy) => ({
  name: policy.name,
  bitrate_uplink: policy.bitrateUplink,
  bitrate_downlink: policy.bitrateDownlink,
  var5qi: policy.var5qi,
  arp: policy.arp,
  data_network_name: policy.dataNetworkName,
  ...(policy.profileName === null ? {} : { profile_name: policy.profileName }),
  ...(policy.sliceName === null ? {} : { slice_name: policy.sliceName }),
});

const toInput = (body: {
  bitrate_uplink: string;
  bitrate_downlink: string;
  var5qi: number;
  arp: number;
  data_network_name: string;
  profile_name?: string;
  slice_name?: string;
}): PolicyInput => ({
  bitrateUplink: body.bitrate_uplink,
  bitrateDownlink: body.bitrate_downlink,
  var5qi: body.var5qi,
  arp: body.arp,
  dataNetworkName: body.data_network_name,
  profileName: body.profile_name,
  sliceName: body.slice_name,
});

export function policiesRoutes(deps: { policies: PoliciesService }) {
  const { policies } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/policies',
      {
        config: { permission: 'network:read' },
        schema: {
          tags: ['policies'],
          summary: 'List policies, by name',
          querystring: PaginationQuery,
          response: { 200: Envelope(Paginated(PolicyResult)) },
        },
      },
      async (request) => {
        const { limit, offset } = pageWindow(request.query);
        const { items, total } = await policies.list(limit, offset);
        return ok(paginated(items.map(toResult), total, request.query));
      },
    );

    app.post(
      '/api/v1/policies',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['policies'],
          summary: 'Create a policy',
          description:
            'A policy authorises sessions of subscribers whose profile is `profile_name` (any profile when ' +
            'absent) towards `data_network_name`, on slice `slice_name` (any slice when absent), with its ' +
            'bitrates, var5qi and arp.',
          body: CreatePolicyBody,
          response: { 201: Envelope(MessageResult) },
        },
      },
      async (request, reply) => {
        await policies.create({ name: request.body.name, ...toInput(request.body) }, actorOf(request));
        return reply.code(201).send(message(`policy ${request.body.name} created`));
      },
    );

    app.get(
      '/api/v1/policies/:name',
      {
        config: { permission: 'network:read' },
        schema: {
          tags: ['policies'],
          summary: 'Get a policy',
          params: NameParams,
          response: { 200: Envelope(PolicyResult) },
        },
      },
      async (request) => ok(toResult(await policies.get(request.params.name))),
    );

    app.put(
      '/api/v1/policies/:name',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['policies'],
          summary: 'Replace a policy',
          params: NameParams,
          body: UpdatePolicyBody,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await policies.update(request.params.name, toInput(request.body), actorOf(request));
        return message(`policy ${request.params.name} updated`);
      },
    );

    app.delete(
      '/api/v1/policies/:name',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['policies'],
          summary: 'Delete a policy',
          params: NameParams,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await policies.delete(request.params.name, actorOf(request));
        return message(`policy ${request.params.name} deleted`);
      },
    );
  };
}
