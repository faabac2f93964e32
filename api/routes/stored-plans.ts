/**
 * Stored plans (the v2.0.0 normalized model) and path plan groups, scoped
 * to the companies the caller can access (another company's ids: 404).
 *
 *   GET  /api/path-plans-normalized/{id}           the full zone hierarchy (ETag)
 *   GET  /api/path-plans-normalized/{id}/preview   small payload for lists and maps
 *   GET  /api/path-plans/{id}/geo | list-item      GeoJSON of the active groups | list form
 *   GET  /api/fields/{fieldId}/path-plans[/list] | path-plan-ids | path-plan-names
 *   GET  /api/boundaries/{boundaryId}/path-plan-ids
 *   POST /api/path-plans/upsert | csv | archive ; POST/GET .../rate ; POST .../star ; DELETE
 *   POST /api/path-plan-zones/{zoneId}/geometry-groups/{groupId}/set-active
 *   path plan groups: every endpoint of spec 4.4
 */
import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/db.ts';
import { pathPlanGroupRoutes } from './path-plan-groups.ts';
import { planRouteContext } from './stored-plan-models.ts';
import { storedPlanReadRoutes } from './stored-plan-reads.ts';
import { storedPlanWriteRoutes } from './stored-plan-writes.ts';

export { geoOf, listItem, previewOf } from './stored-plan-models.ts';

export async function storedPlanRoutes(app: FastifyInstance, opts: { store: Store }): Promise<void> {
  const ctx = planRouteContext(app, opts);
  storedPlanReadRoutes(ctx);
  storedPlanWriteRoutes(ctx);
  pathPlanGroupRoutes(ctx);
}
