/** Looking up a decorator's dot path in the configuration, and the falsy rule of @section. */

export const ABSENT: unique symbol = Symbol('absent')

/** The value at a dot path (`services.eks.enabled`), or ABSENT. Own properties only. */
export function lookup(config: unknown, path: string): unknown {
  let cur: unknown = config
  for (const seg of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return ABSENT
    if (!Object.prototype.hasOwnProperty.call(cur, seg)) return ABSENT
    cur = (cur as Record<string, unknown>)[seg]
  }
  return cur === undefined ? ABSENT : cur
}

/**
 * Falsy for @section (the complete list): absent, `false`, `null`, `""`, `0`.
 * Everything else is truthy, including the string "false", `[]` and `{}`.
 */
export function isFalsy(value: unknown): boolean {
  return value === ABSENT || value === false || value === null || value === '' || value === 0
}
