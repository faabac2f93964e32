/** Route-level guards (Fastify preHandler hooks) on top of the API key check. */
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';

/** Partner endpoints (`/api/partner/*`, except the launch exchange) need a Partner Admin key: 403 otherwise. */
export async function requirePartnerAdmin(req: FastifyRequest): Promise<void> {
  if (!req.principal?.partnerAdmin) {
    throw new ApiError(403, 'NotAuthorized', 'This endpoint needs a Partner Admin API key.');
  }
}
