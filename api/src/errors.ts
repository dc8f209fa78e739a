// The error codes of the API's envelope: the spec's ("Errors") and those it leaves open.

/** Codes of the spec's error table. */
export const SPEC_ERROR_CODES = [
  'VALIDATION_ERROR',
  'CREDENTIAL_IN_USE',
  'UNAUTHORIZED',
  'TOKEN_EXPIRED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
] as const

/** Codes the spec leaves open, as the server answers them. */
export const OPEN_CODES = {
  badRequest: 'BAD_REQUEST',
  payloadTooLarge: 'PAYLOAD_TOO_LARGE',
  rateLimited: 'RATE_LIMITED',
  unavailable: 'SERVICE_UNAVAILABLE',
  internal: 'INTERNAL_ERROR',
} as const

/** What a client reports when no answer came (status 0): the server could not be reached. */
export const NETWORK_ERROR = 'NETWORK_ERROR'

export type ErrorCode = (typeof SPEC_ERROR_CODES)[number] | (typeof OPEN_CODES)[keyof typeof OPEN_CODES]
