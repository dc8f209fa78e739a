// @ies/api: the client side of the IES API contract, shared by the `ies` CLI and the desktop/web UI.
export * from './values.ts'
export * from './errors.ts'
// The envelope's TypeBox schemas are the server's to import (`@ies/api/envelope`); clients need its types.
export type { ErrorBody, ErrorDetail, Meta, Pagination } from './envelope.ts'
export type * from './types.ts'
export * from './api-error.ts'
export * from './client.ts'
export * from './oauth.ts'
export * from './token-session.ts'
export * from './export-config.ts'
