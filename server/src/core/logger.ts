// Pino options: request ids on every line, and redaction of everything that could carry a secret.
import type { Config } from '../config.ts'

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-service-token"]',
  'headers.authorization',
  '*.password',
  '*.secret',
  '*.secretAccessKey',
  '*.sessionToken',
  '*.clientSecret',
  '*.serviceAccountKey',
  '*.deployKey',
  '*.privateKey',
  '*.private_key',
  '*.credentials',
  '*.token',
  '*.access_token',
  '*.refresh_token',
]

export function loggerOptions(config: Config, overrides?: boolean | Record<string, unknown>) {
  return {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    ...(typeof overrides === 'object' ? overrides : {}),
  }
}
