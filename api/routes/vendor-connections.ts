/**
 * Links to accounts at a machine vendor's platform (vendor-a):
 *   POST /api/vendor-a-connections  (signed in) stores the link and the vendor's tokens, encrypted at rest
 * The tokens are never answered back; they are encrypted with the key of
 * TRAMLINE_VENDOR_TOKEN_KEY (api/account/token-cipher.ts), bound to the
 * link's row. Without a key the endpoint answers 503.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import type { VendorConnection } from '../../store/repositories/vendor-connections.ts';
import { uuidv7 } from '../../store/uuidv7.ts';
import type { TokenCipher } from '../account/token-cipher.ts';
import { ApiError } from '../errors.ts';
import { named } from '../openapi/components.ts';
import { ErrorResponse, withHeaders } from '../openapi/responses.ts';
import { answers, iso, principalOf, requireCompany, Timestamp, Uuid } from './common.ts';

const VENDOR = 'vendor-a';

/** What the tokens of a connection are bound to: a token copied to another row does not decrypt. */
export const connectionContext = (c: {
  id: string;
  userId: string;
  vendor: string;
  externalAccountId: string;
}) => `vendor-connection|${c.id}|${c.userId}|${c.vendor}|${c.externalAccountId}`;

const Token = (d: string) => Type.String({ minLength: 1, maxLength: 8192, description: d });

const VendorConnectionRequest = named(
  'VendorConnectionRequest',
  Type.Object(
    {
      externalAccountId: Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'The account (organization) id at the vendor.',
      }),
      companyId: Type.Optional(Uuid('The company the link serves; you need access to it.')),
      accessToken: Token('The vendor’s OAuth access token for the account.'),
      refreshToken: Type.Optional(Token('The vendor’s refresh token.')),
      expiresIn: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 31_536_000, description: 'Seconds the access token is valid.' }),
      ),
      scope: Type.Optional(Type.String({ maxLength: 1000, description: 'The scopes the vendor granted.' })),
    },
    { additionalProperties: false },
  ),
);

const VendorConnectionView = named(
  'VendorConnection',
  Type.Object({
    connectionId: Uuid('The link.'),
    vendor: Type.Literal(VENDOR),
    externalAccountId: Type.String(),
    companyId: Type.Union([Uuid('The company.'), Type.Null()]),
    hasRefreshToken: Type.Boolean(),
    expiresAt: Type.Union([Timestamp, Type.Null()]),
    scope: Type.Union([Type.String(), Type.Null()]),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
);

const view = (c: VendorConnection) => ({
  connectionId: c.id,
  vendor: VENDOR as typeof VENDOR,
  externalAccountId: c.externalAccountId,
  companyId: c.companyId,
  hasRefreshToken: c.refreshTokenEnc !== null,
  expiresAt: c.expiresAt ? iso(c.expiresAt) : null,
  scope: c.scope,
  createdAt: iso(c.createdAt),
  updatedAt: iso(c.updatedAt),
});

export async function vendorConnectionRoutes(
  app: FastifyInstance,
  opts: { store: Store; cipher?: TokenCipher },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { store, cipher } = opts;

  r.post(
    '/api/vendor-a-connections',
    {
      schema: {
        tags: ['Account'],
        summary: 'Link your account at vendor-a',
        description:
          'Stores the link of your user to an account at the vendor with the vendor’s tokens, encrypted at rest (AES-256-GCM, key from TRAMLINE_VENDOR_TOKEN_KEY); the tokens are never answered back. Posting the same vendor account again replaces its tokens (200). 404 for a company you cannot access; 503 VENDOR_CONNECTIONS_DISABLED when the service has no token key.',
        body: VendorConnectionRequest,
        response: {
          ...answers(
            {
              201: { schema: VendorConnectionView, description: 'Linked.' },
              200: { schema: VendorConnectionView, description: 'The link’s tokens replaced.' },
            },
            400,
            404,
          ),
          503: withHeaders(ErrorResponse, 'VENDOR_CONNECTIONS_DISABLED: the service has no token key.'),
        } as Record<number, unknown>,
      },
    },
    async (req, reply) => {
      if (!cipher)
        throw new ApiError(
          503,
          'VENDOR_CONNECTIONS_DISABLED',
          'This service keeps no vendor tokens: its operator has not set TRAMLINE_VENDOR_TOKEN_KEY.',
        );
      const b = req.body;
      const userId = principalOf(req).userId;
      if (b.companyId) await requireCompany(store, req, b.companyId);
      const existing = await store.vendorConnections.find(userId, VENDOR, b.externalAccountId);
      const id = existing?.id ?? uuidv7();
      const context = connectionContext({
        id,
        userId,
        vendor: VENDOR,
        externalAccountId: b.externalAccountId,
      });
      const saved = await store.vendorConnections.upsert(id, {
        userId,
        companyId: b.companyId ?? null,
        vendor: VENDOR,
        externalAccountId: b.externalAccountId,
        accessTokenEnc: cipher.encrypt(b.accessToken, context),
        refreshTokenEnc: b.refreshToken ? cipher.encrypt(b.refreshToken, context) : null,
        expiresAt: b.expiresIn ? new Date(Date.now() + b.expiresIn * 1000) : null,
        scope: b.scope ?? null,
      });
      return reply.code(existing ? 200 : 201).send(view(saved));
    },
  );
}
