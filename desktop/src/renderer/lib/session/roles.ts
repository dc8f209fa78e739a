// Who may open the admin screens, by the same rule as the server's admin routes (docs/api.md,
// "Authentication and roles"): the realm role `admin`, or the app client's role `environment-admin`.
// The server decides; the UI only avoids offering a screen that would answer 403.

export function isAdmin(claims: Record<string, unknown>, appClientId: string): boolean {
  const realm = (claims.realm_access as { roles?: unknown } | undefined)?.roles
  const client = ((claims.resource_access as Record<string, { roles?: unknown }> | undefined)?.[appClientId] ?? {}).roles
  return (Array.isArray(realm) && realm.includes('admin')) || (Array.isArray(client) && client.includes('environment-admin'))
}
