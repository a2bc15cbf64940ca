import { Type } from 'typebox';
import type { App } from '../../http/app-types.ts';
import { actorOf } from '../../http/authentication.ts';
import { NameParams } from '../../validation/network-values.ts';
import { Envelope, message, MessageResult, ok } from '../../http/schemas.ts';
import type { Profile } from './profiles.repository.ts';
import { CreateProfileBody, ProfileListItem, ProfileResult, UpdateProfileBody } from './profiles.schema.ts';
import type { ProfileInput, ProfilesService } from './profiles.service.ts';

const toListItem = (profile: Profile) => ({
  name: profile.name,
  'ue-ip-pool': profile.ueIpPool,
  dns: profile.dns,
  'bitrate-uplink': profile.bitrateUplink,
  'bitrate-downlink': profile.bitrateDownlink,
  var5qi: profile.var5qi,
  'priority-level': profile.priorityLevel,
});

const toResult = (profile: Profile) => ({
  ...toListItem(profile),
  mtu: profile.mtu,
  ...(profile.ueIpv6Pool === undefined ? {} : { 'ue-ipv6-pool': profile.ueIpv6Pool }),
  'sms-allowed': profile.smsAllowed !== false,
});

const toInput = (body: {
  'ue-ip-pool': string;
  dns: string;
  mtu: number;
  'bitrate-uplink': string;
  'bitrate-downlink': string;
  var5qi: number;
  'priority-level': number;
  'ue-ipv6-pool'?: string;
  'sms-allowed'?: boolean;
}): ProfileInput => ({
  ueIpPool: body['ue-ip-pool'],
  ...(body['ue-ipv6-pool'] === undefined ? {} : { ueIpv6Pool: body['ue-ipv6-pool'] }),
  dns: body.dns,
  mtu: body.mtu,
  bitrateUplink: body['bitrate-uplink'],
  bitrateDownlink: body['bitrate-downlink'],
  var5qi: body.var5qi,
  priorityLevel: body['priority-level'],
  ...(body['sms-allowed'] === undefined ? {} : { smsAllowed: body['sms-allowed'] }),
});

export function profilesRoutes(deps: { profiles: ProfilesService }) {
  const { profiles } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/profiles',
      {
        config: { permission: 'network:read' },
        schema: {
          tags: ['profiles'],
          summary: 'List every profile, by name (a plain array; items without mtu)',
          response: { 200: Envelope(Type.Array(ProfileListItem)) },
        },
      },
      async () => ok((await profiles.list()).map(toListItem)),
    );

    app.post(
      '/api/v1/profiles',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['profiles'],
          summary: 'Create a profile',
          body: CreateProfileBody,
          response: { 201: Envelope(MessageResult) },
        },
      },
      async (request, reply) => {
        await profiles.create({ name: request.body.name, ...toInput(request.body) }, actorOf(request));
        return reply.code(201).send(message(`profile ${request.body.name} created`));
      },
    );

    app.get(
      '/api/v1/profiles/:name',
      {
        config: { permission: 'network:read' },
        schema: {
          tags: ['profiles'],
          summary: 'Get a profile, including mtu and ue-ipv6-pool (absent when it has none)',
          params: NameParams,
          response: { 200: Envelope(ProfileResult) },
        },
      },
      async (request) => ok(toResult(await profiles.get(request.params.name))),
    );

    app.put(
      '/api/v1/profiles/:name',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['profiles'],
          summary: 'Replace a profile (without ue-ipv6-pool: the profile no longer has one)',
          params: NameParams,
          body: UpdateProfileBody,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await profiles.update(request.params.name, toInput(request.body), actorOf(request));
        return message(`profile ${request.params.name} updated`);
      },
    );

    app.delete(
      '/api/v1/profiles/:name',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['profiles'],
          summary: 'Delete a profile; refused while a subscriber uses it or a policy references it',
          params: NameParams,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await profiles.delete(request.params.name, actorOf(request));
        return message(`profile ${request.params.name} deleted`);
      },
    );
  };
}
