// JSON Merge Patch (RFC 7396), the semantics of PUT /environments/:id: members of the patch replace
// those of the target, objects are merged member by member, and `null` removes a member. Arrays and
// scalars replace wholesale. The server merges with it; a client previews a merge with it.

type Json = unknown

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch
  const result: Record<string, Json> = isObject(target) ? { ...target } : {}
  for (const [key, value] of Object.entries(patch)) {
    if (key === '__proto__') continue
    if (value === null) delete result[key]
    else result[key] = mergePatch(result[key], value)
  }
  return result
}
