/**
 * Settings (spec 4.4 "Settings"): named values of a company or of a user.
 *   GET    /api/companies/{companyId}/settings    the company's settings
 *   POST   /api/companies/{companyId}/settings    set one { name, value } (If-Match honoured)
 *   POST   /api/setting                           set one of a company ({ companyId, name, value }), of
 *                                                 the caller ({ name, value }), or by id ({ settingId, value })
 *   POST   /api/user-settings                     set one of the caller { name, value }
 *   GET    /api/settings/{settingId}              one (ETag)
 *   DELETE /api/settings/{settingId}              delete one (If-Match honoured)
 *   POST   /api/settings/validate                 check { name, value } without storing
 *   DELETE /api/settings/users/{userId}           delete all of the caller's own settings
 *   GET    /api/settings/distinct-names           names in use, and the known ones
 *   POST   /api/settings/table                    a page of a company's or the caller's settings
 *   GET    /api/users/{userId}/settings           the caller's own settings
 * Known names have typed values (SETTING_DEFINITIONS); other names are free
 * (letters, digits, . _ -; up to 100 characters) with any JSON value up to 16 KB.
 * Another user's settings and another company's answer 404.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import {
  createSettingsRepository,
  type SettingOutcome,
  type SettingRecord,
} from '../../store/repositories/settings.ts';
import { UUID_RE } from '../../store/uuidv7.ts';
import { type FieldError, validationError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import {
  answers,
  Etag,
  etagOf,
  idParams,
  ifMatchHeaders,
  ifMatchVersion,
  iso,
  notFound,
  preconditionFailed,
  principalOf,
  requireCompany,
  setEtag,
  Timestamp,
  Uuid,
} from './common.ts';

type Check = (v: unknown) => string | null;

const num =
  (min: number, max: number, integer = false): Check =>
  (v) =>
    typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))
      ? `must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`
      : null;
const oneOf =
  (...vals: string[]): Check =>
  (v) =>
    typeof v === 'string' && vals.includes(v)
      ? null
      : `must be one of ${vals.map((x) => `'${x}'`).join(', ')}`;

/** Settings the service knows, with what their value must be. */
export const SETTING_DEFINITIONS: Record<string, { description: string; check: Check }> = {
  units: {
    description:
      "Units the apps display: 'metric' or 'imperial' (feet, acres, mph, US gallons). The API itself always speaks metres, square metres, seconds and m/s; POST /api/companies/{companyId}/uom answers the display factors.",
    check: oneOf('metric', 'imperial'),
  },
  language: {
    description: 'Language of the user interface (BCP 47, e.g. en, da, de-AT).',
    check: (v) =>
      typeof v === 'string' && /^[a-z]{2,3}(-[A-Z]{2})?$/.test(v)
        ? null
        : 'must be a language tag such as en or de-AT',
  },
  timeZone: {
    description: 'IANA time zone, e.g. Europe/Copenhagen.',
    check: (v) => {
      if (typeof v !== 'string' || v.length > 64)
        return 'must be an IANA time zone name such as Europe/Copenhagen';
      try {
        new Intl.DateTimeFormat('en', { timeZone: v });
        return null;
      } catch {
        return `'${v}' is not an IANA time zone name (such as Europe/Copenhagen)`;
      }
    },
  },
  defaultSwathWidth: { description: 'Working width offered for new plans [m].', check: num(0.1, 100) },
  defaultExteriorHeadlandPasses: {
    description: 'Exterior headland passes offered for new plans.',
    check: num(0, 20, true),
  },
  defaultInteriorHeadlandPasses: {
    description: 'Interior headland passes offered for new plans.',
    check: num(0, 20, true),
  },
  defaultTrackType: {
    description: 'Track type offered for new plans.',
    check: oneOf('Straight', 'Curved', 'Spiral'),
  },
  defaultTurningRadius: { description: 'Turning radius offered for new plans [m].', check: num(0, 100) },
  defaultEquipmentId: {
    description: 'The machine offered for new plans (an equipment id).',
    check: (v) => (typeof v === 'string' && UUID_RE.test(v) ? null : 'must be an equipment id (UUID)'),
  },
  fuelPrice: {
    description:
      'Fuel price per litre for the machinery cost of plans and equipment scenarios (MachineCostInputs.fuelPrice where a machine gives none). Default 0.898 ($3.40 per US gallon, Iowa State A3-29).',
    check: num(0, 100),
  },
  labourRate: {
    description:
      'Labour cost per hour for the machinery cost (MachineCostInputs.labourRate where a machine gives none; 1.1 labour hours per machine hour). Default 20.',
    check: num(0, 10_000),
  },
  interestRate: {
    description:
      'Interest rate a year, 0..1, for the machinery cost (MachineCostInputs.interestRate where a machine gives none). Default 0.08.',
    check: num(0, 1),
  },
  exportFormat: {
    description: 'Export format offered first.',
    check: oneOf(
      'isoxml',
      'isoxml-v3',
      'shapefile',
      'kml',
      'geojson',
      'gpx',
      'vendor-a',
      'vendor-b',
      'vendor-c',
    ),
  },
};

const NAME_RE = /^[A-Za-z][A-Za-z0-9._-]{0,99}$/;
const MAX_VALUE_BYTES = 16 * 1024;

/** Problems of a name and value (empty when valid); paths under `prefix`. */
export function validateSetting(name: string, value: unknown, prefix = ''): FieldError[] {
  const out: FieldError[] = [];
  if (!NAME_RE.test(name))
    out.push({
      path: `${prefix}/name`,
      message: 'must start with a letter and hold only letters, digits, . _ - (at most 100)',
    });
  if (value === undefined) {
    out.push({ path: `${prefix}/value`, message: 'is required' });
    return out;
  }
  // Values nesting deeper than the input rule allows (api/input-rules.ts) never get here.
  if (Buffer.byteLength(JSON.stringify(value)) > MAX_VALUE_BYTES)
    out.push({ path: `${prefix}/value`, message: `is larger than ${MAX_VALUE_BYTES / 1024} KB as JSON` });
  const def = SETTING_DEFINITIONS[name];
  const problem = def?.check(value);
  if (problem) out.push({ path: `${prefix}/value`, message: `${problem} (setting '${name}')` });
  return out;
}

const Setting = Type.Object(
  {
    settingId: Type.String({ format: 'uuid' }),
    scope: Type.Union([Type.Literal('company'), Type.Literal('user')]),
    companyId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    userId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    name: Type.String(),
    value: Type.Unknown({ description: 'Any JSON value.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    etag: Etag,
  },
  { $id: 'Setting', title: 'Setting' },
);

const Name = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'Setting name (known names have typed values).',
});
const Value = Type.Unknown({
  description:
    'Any JSON value (up to 16 KB, nested at most 32 deep, text without control characters); known names check theirs.',
});

const settingBody = (s: SettingRecord) => ({
  settingId: s.id,
  scope: s.companyId ? 'company' : 'user',
  companyId: s.companyId,
  userId: s.userId,
  name: s.name,
  value: s.value,
  createdAt: iso(s.createdAt),
  updatedAt: iso(s.updatedAt),
  etag: etagOf(s.version),
});

function must(out: SettingOutcome, what: string): SettingRecord {
  if (out.ok) return out.value;
  if (out.reason === 'stale') throw preconditionFailed('setting', what, out.currentVersion);
  throw notFound('setting', what);
}

export async function settingRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = opts;
  const repo = createSettingsRepository(store.db);
  const tags = ['Settings'];

  const check = (name: string, value: unknown) => {
    const errs = validateSetting(name, value);
    if (errs.length) throw validationError(errs);
  };

  const saved = {
    200: { schema: Setting, description: 'Set (updated).' },
    201: { schema: Setting, description: 'Set (new).' },
  };

  r.get(
    '/api/companies/:companyId/settings',
    {
      schema: {
        tags,
        summary: "A company's settings",
        params: idParams('companyId'),
        response: answers({ 200: { schema: Type.Array(Setting), description: 'By name.' } }, 400, 404),
      },
    },
    async (req) => {
      await requireCompany(store, req, req.params.companyId);
      const { items } = await repo.list(principalOf(req).userId, { companyId: req.params.companyId });
      return items.map(settingBody);
    },
  );

  r.post(
    '/api/companies/:companyId/settings',
    {
      schema: {
        tags,
        summary: 'Set a company setting',
        description:
          'Creates the name (201) or changes its value (200). With If-Match, only an existing setting at that version changes (412 otherwise).',
        params: idParams('companyId'),
        headers: ifMatchHeaders,
        body: Type.Object(
          { name: Name, value: Value },
          { additionalProperties: false, $id: 'SetSettingRequest', title: 'SetSettingRequest' },
        ),
        response: answers(saved, 400, 404, 412),
      },
    },
    async (req, reply) => {
      check(req.body.name, req.body.value);
      await requireCompany(store, req, req.params.companyId);
      const out = await repo.put(
        { companyId: req.params.companyId },
        req.body.name,
        req.body.value,
        ifMatchVersion(req),
      );
      const s = must(out, `'${req.body.name}' of company ${req.params.companyId}`);
      setEtag(reply, s.version);
      return reply.code(out.ok && out.created ? 201 : 200).send(settingBody(s));
    },
  );

  r.post(
    '/api/setting',
    {
      schema: {
        tags,
        summary: 'Set a setting',
        description:
          'With settingId: changes that setting’s value. Else with companyId: sets a company setting; else a setting of the caller. If-Match honoured.',
        headers: ifMatchHeaders,
        body: Type.Object(
          {
            settingId: Type.Optional(Uuid('Change this setting.')),
            companyId: Type.Optional(Uuid('Set a setting of this company.')),
            name: Type.Optional(Name),
            value: Value,
          },
          { additionalProperties: false, $id: 'SaveSettingRequest', title: 'SaveSettingRequest' },
        ),
        response: answers(saved, 400, 404, 412),
      },
    },
    async (req, reply) => {
      const b = req.body;
      const userId = principalOf(req).userId;
      if (b.settingId) {
        const now = await repo.get(userId, b.settingId);
        if (!now) throw notFound('setting', b.settingId);
        if (b.name !== undefined && b.name !== now.name)
          throw validationError([
            { path: '/name', message: `is '${now.name}' for this setting; names do not change` },
          ]);
        check(now.name, b.value);
        const s = must(await repo.update(userId, b.settingId, b.value, ifMatchVersion(req)), b.settingId);
        setEtag(reply, s.version);
        return settingBody(s);
      }
      if (b.name === undefined)
        throw validationError([{ path: '/name', message: 'is required without settingId' }]);
      check(b.name, b.value);
      if (b.companyId) await requireCompany(store, req, b.companyId);
      const out = await repo.put(
        b.companyId ? { companyId: b.companyId } : { userId },
        b.name,
        b.value,
        ifMatchVersion(req),
      );
      const s = must(out, `'${b.name}'`);
      setEtag(reply, s.version);
      return reply.code(out.ok && out.created ? 201 : 200).send(settingBody(s));
    },
  );

  r.post(
    '/api/user-settings',
    {
      schema: {
        tags,
        summary: 'Set a setting of the caller',
        headers: ifMatchHeaders,
        body: Type.Object(
          { name: Name, value: Value },
          { additionalProperties: false, $id: 'SetUserSettingRequest', title: 'SetUserSettingRequest' },
        ),
        response: answers(saved, 400, 404, 412),
      },
    },
    async (req, reply) => {
      check(req.body.name, req.body.value);
      const userId = principalOf(req).userId;
      const out = await repo.put({ userId }, req.body.name, req.body.value, ifMatchVersion(req));
      const s = must(out, `'${req.body.name}' of user ${userId}`);
      setEtag(reply, s.version);
      return reply.code(out.ok && out.created ? 201 : 200).send(settingBody(s));
    },
  );

  r.get(
    '/api/settings/distinct-names',
    {
      schema: {
        tags,
        summary: 'Setting names',
        description:
          'Names in use in the caller’s companies (or in companyId) and by the caller, and the names the service knows, with their descriptions.',
        querystring: Type.Object(
          { companyId: Type.Optional(Uuid('Only this company (and the caller’s own).')) },
          { additionalProperties: false },
        ),
        response: answers(
          {
            200: {
              schema: named(
                'SettingNames',
                Type.Object({
                  names: Type.Array(Type.String()),
                  known: Type.Array(Type.Object({ name: Type.String(), description: Type.String() })),
                }),
              ),
              description: 'Names.',
            },
          },
          400,
          404,
        ),
      },
    },
    async (req) => {
      if (req.query.companyId) await requireCompany(store, req, req.query.companyId);
      const names = await repo.distinctNames(principalOf(req).userId, req.query.companyId);
      return {
        names,
        known: Object.entries(SETTING_DEFINITIONS).map(([name, d]) => ({ name, description: d.description })),
      };
    },
  );

  r.post(
    '/api/settings/validate',
    {
      schema: {
        tags,
        summary: 'Check a setting without storing it',
        body: Type.Object(
          { name: Name, value: Value },
          { additionalProperties: false, $id: 'ValidateSettingRequest', title: 'ValidateSettingRequest' },
        ),
        response: answers(
          {
            200: {
              schema: named(
                'SettingValidation',
                Type.Object({
                  valid: Type.Boolean(),
                  known: Type.Boolean({
                    description: 'Whether the service knows the name (and checks its value type).',
                  }),
                  errors: Type.Array(Type.Object({ path: Type.String(), message: Type.String() })),
                }),
              ),
              description: 'The verdict.',
            },
          },
          400,
        ),
      },
    },
    async (req) => {
      const errors = validateSetting(req.body.name, req.body.value);
      return { valid: errors.length === 0, known: req.body.name in SETTING_DEFINITIONS, errors };
    },
  );

  r.post(
    '/api/settings/table',
    {
      schema: {
        tags,
        summary: 'A page of settings',
        description:
          "The settings of companyId, or the caller's own without it; filtered by a name fragment.",
        body: Type.Object(
          {
            companyId: Type.Optional(Uuid('The company; leave out for the caller’s own settings.')),
            search: Type.Optional(Type.String({ maxLength: 100 })),
            offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
          },
          { additionalProperties: false, $id: 'SettingsTableRequest', title: 'SettingsTableRequest' },
        ),
        response: answers(
          {
            200: {
              schema: named(
                'SettingsTablePage',
                Type.Object({ items: Type.Array(Setting), total: Type.Integer() }),
              ),
              description: 'A page.',
            },
          },
          400,
          404,
        ),
      },
    },
    async (req) => {
      const userId = principalOf(req).userId;
      const b = req.body;
      if (b.companyId) await requireCompany(store, req, b.companyId);
      const page = await repo.list(userId, b.companyId ? { companyId: b.companyId } : { userId }, {
        search: b.search,
        offset: b.offset,
        limit: b.limit ?? 100,
      });
      return { items: page.items.map(settingBody), total: page.total };
    },
  );

  r.get(
    '/api/settings/:settingId',
    {
      schema: {
        tags,
        summary: 'A setting',
        params: idParams('settingId'),
        response: answers({ 200: { schema: Setting, description: 'The setting.' } }, 400, 404),
      },
    },
    async (req, reply) => {
      const s = await repo.get(principalOf(req).userId, req.params.settingId);
      if (!s) throw notFound('setting', req.params.settingId);
      setEtag(reply, s.version);
      return settingBody(s);
    },
  );

  r.delete(
    '/api/settings/:settingId',
    {
      schema: {
        tags,
        summary: 'Delete a setting',
        params: idParams('settingId'),
        headers: ifMatchHeaders,
        response: answers({ 204: { schema: null, description: 'Deleted.' } }, 400, 404, 412),
      },
    },
    async (req, reply) => {
      must(
        await repo.delete(principalOf(req).userId, req.params.settingId, ifMatchVersion(req)),
        req.params.settingId,
      );
      return reply.code(204).send();
    },
  );

  r.delete(
    '/api/settings/users/:userId',
    {
      schema: {
        tags,
        summary: "Delete all of a user's settings",
        description: 'Only one’s own (another user id answers 404).',
        params: idParams('userId'),
        response: answers(
          {
            200: {
              schema: named('DeletedCount', Type.Object({ deleted: Type.Integer() })),
              description: 'Deleted.',
            },
          },
          400,
          404,
        ),
      },
    },
    async (req) => {
      if (req.params.userId !== principalOf(req).userId) throw notFound('user', req.params.userId);
      return { deleted: await repo.deleteOfUser(req.params.userId) };
    },
  );

  r.get(
    '/api/users/:userId/settings',
    {
      schema: {
        tags,
        summary: "A user's settings",
        description: 'Only one’s own (another user id answers 404).',
        params: idParams('userId'),
        response: answers({ 200: { schema: Type.Array(Setting), description: 'By name.' } }, 400, 404),
      },
    },
    async (req) => {
      const userId = principalOf(req).userId;
      if (req.params.userId !== userId) throw notFound('user', req.params.userId);
      const { items } = await repo.list(userId, { userId });
      return items.map(settingBody);
    },
  );
}
