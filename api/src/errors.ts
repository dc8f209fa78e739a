// The error codes of the API's envelope: the spec's ("Errors") and those it leaves open.

/** Codes of the spec's error table, by what they mean. */
export const SPEC_CODES = {
  validation: 'VALIDATION_ERROR',
  credentialInUse: 'CREDENTIAL_IN_USE',
  unauthorized: 'UNAUTHORIZED',
  tokenExpired: 'TOKEN_EXPIRED',
  forbidden: 'FORBIDDEN',
  notFound: 'NOT_FOUND',
  conflict: 'CONFLICT',
} as const

/** Codes the spec leaves open, as the server answers them. */
export const OPEN_CODES = {
  badRequest: 'BAD_REQUEST',
  payloadTooLarge: 'PAYLOAD_TOO_LARGE',
  rateLimited: 'RATE_LIMITED',
  unavailable: 'SERVICE_UNAVAILABLE',
  internal: 'INTERNAL_ERROR',
  /** An organisation rule refuses the configuration (400; each detail names its rule and field). */
  policyDenied: 'POLICY_DENIED',
} as const

/** What a client reports when no answer came (status 0): the server could not be reached. */
export const NETWORK_ERROR = 'NETWORK_ERROR'

export type ErrorCode = (typeof SPEC_CODES)[keyof typeof SPEC_CODES] | (typeof OPEN_CODES)[keyof typeof OPEN_CODES]
