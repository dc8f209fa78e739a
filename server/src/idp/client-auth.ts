// Authentication of the confidential client at our own endpoints (introspection, logout): HTTP Basic
// `base64(client_id:client_secret)` or `client_id` + `client_secret` in the form, as Keycloak accepts.
import { timingSafeEqual } from 'node:crypto'

export interface ClientCredentials {
  clientId: string
  clientSecret: string | undefined
}

export function basicCredentials(header: string | undefined): ClientCredentials | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(header ?? '')
  if (!match) return undefined
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return undefined
  // RFC 6749 2.3.1: both parts are form-urlencoded before base64.
  const part = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '))
  try {
    return { clientId: part(decoded.slice(0, colon)), clientSecret: part(decoded.slice(colon + 1)) }
  } catch {
    return undefined
  }
}

export function clientCredentialsOf(authorization: string | undefined, form: Record<string, string>): ClientCredentials | undefined {
  const basic = basicCredentials(authorization)
  if (basic) return basic
  if (form.client_id) return { clientId: form.client_id, clientSecret: form.client_secret }
  return undefined
}

export function secretsEqual(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}
