// Reading one environment variable: a whole number, a string, an optional string or a comma-separated
// list, with its default; a malformed value is a ConfigError naming the variable.
export type Env = Record<string, string | undefined>

export class ConfigError extends Error {}

export function int(env: Env, name: string, fallback: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${name} must be a non-negative integer`)
  return value
}

export function str(env: Env, name: string, fallback: string): string {
  const raw = env[name]
  return raw === undefined || raw === '' ? fallback : raw
}

export function optional(env: Env, name: string): string | undefined {
  const raw = env[name]
  return raw === undefined || raw === '' ? undefined : raw
}

/** A comma-separated list, or undefined when the variable is unset or empty. */
export function list(env: Env, name: string): string[] | undefined {
  const items = (optional(env, name) ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
  return items.length > 0 ? items : undefined
}
