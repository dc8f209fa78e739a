// Cutting secrets out of text before it is stored, served or logged: a job's error, a processor or
// Git server's message, the catalog source's errors. Each secret is replaced by `[redacted]` wherever
// it occurs, in each form an HTTP credential can leak in.

/** The text with every given secret replaced by `[redacted]`. */
export function redact(text: string, secrets: readonly (string | null | undefined)[]): string {
  let out = text
  for (const secret of secrets) if (secret) out = out.split(secret).join('[redacted]')
  return out
}

/**
 * Every form an HTTP credential can leak in: the password as is, URL-encoded, and the Basic
 * `Authorization` value made of it (base64 of `username:password`, which does not contain the
 * base64 of the password alone).
 */
export function credentialSecrets(username: string, password: string | null | undefined): string[] {
  if (!password) return []
  return [password, encodeURIComponent(password), Buffer.from(`${username}:${password}`).toString('base64')]
}

/** Every string inside a JSON value with the secrets cut out. */
export function redactDeep(value: unknown, secrets: readonly (string | undefined)[]): unknown {
  if (typeof value === 'string') return redact(value, secrets)
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, secrets))
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, secrets)]))
  return value
}
