/** GET /api/user/current: validates the key; answers its user and company access. */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Store } from '../../store/db.ts';
import { commonErrors, withHeaders } from '../openapi/responses.ts';

const CurrentUser = Type.Object(
  {
    userId: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    firstName: Type.Union([Type.String(), Type.Null()]),
    lastName: Type.Union([Type.String(), Type.Null()]),
    partnerAdmin: Type.Boolean({ description: 'Partner Admin: may call the /api/partner endpoints.' }),
    companyAccess: Type.Array(
      Type.Object({
        companyId: Type.String(),
        companyName: Type.String(),
        role: Type.String({ description: "'admin' or 'member'." }),
      }),
    ),
    apiKey: Type.Object({
      id: Type.String(),
      name: Type.String(),
      masked: Type.String({ description: 'The key, masked: tl_ and the first and last 4 characters.' }),
      companyId: Type.String({ description: 'The company whose credits this key spends.' }),
    }),
    credits: Type.Object({
      available: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Credits left; null when unlimited.',
      }),
      unlimited: Type.Boolean(),
    }),
  },
  { title: 'CurrentUser' },
);

export async function userRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  app.get(
    '/api/user/current',
    {
      schema: {
        tags: ['Users'],
        summary: 'The user of the API key',
        description:
          'Validates the key (401 without a body if it is missing, unknown or revoked) and answers its user, the companies the user can access, the key (masked) and the credits of the company it bills.',
        response: { 200: withHeaders(CurrentUser, 'The user of the key.'), ...commonErrors },
      },
    },
    async (req) => {
      const p = req.principal!;
      const [user, access, credits] = await Promise.all([
        opts.store.accounts.findUserById(p.userId),
        opts.store.accounts.listAccesses(p.userId),
        opts.store.credits.get(p.companyId),
      ]);
      return {
        userId: p.userId,
        email: user?.email ?? null,
        firstName: user?.firstName ?? null,
        lastName: user?.lastName ?? null,
        partnerAdmin: p.partnerAdmin,
        companyAccess: access,
        apiKey: { id: p.keyId, name: p.keyName, masked: p.keyMasked, companyId: p.companyId },
        credits: { available: credits.unlimited ? null : credits.credits, unlimited: credits.unlimited },
      };
    },
  );
}
