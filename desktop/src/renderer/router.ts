// A tiny hash router: #/environments, #/environments/<id>, … Hash URLs work the same from the
// server (web UI) and from file:// (Electron).
import { useEffect, useState } from 'react'

export type Route =
  | { name: 'environments' }
  | { name: 'environment'; id: string }
  | { name: 'environment-history'; id: string }
  | { name: 'new-environment' }
  | { name: 'edit-environment'; id: string }
  | { name: 'credentials' }
  | { name: 'preferences' }
  | { name: 'users' }
  | { name: 'teams' }
  | { name: 'approvals' }
  | { name: 'not-found'; path: string }

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('?')[0].split('/').filter(Boolean).map(decodeURIComponent)
  if (parts[0] === 'environments' && parts[1] === 'new') return { name: 'new-environment' }
  if (parts[0] === 'environments' && parts[1] && parts[2] === 'edit') return { name: 'edit-environment', id: parts[1] }
  if (parts[0] === 'environments' && parts[1] && parts[2] === 'history') return { name: 'environment-history', id: parts[1] }
  if (parts[0] === 'environments' && parts[1]) return { name: 'environment', id: parts[1] }
  if (parts[0] === 'credentials') return { name: 'credentials' }
  if (parts[0] === 'preferences') return { name: 'preferences' }
  if (parts[0] === 'users' && parts.length === 1) return { name: 'users' }
  if (parts[0] === 'teams' && parts.length === 1) return { name: 'teams' }
  if (parts[0] === 'approvals' && parts.length === 1) return { name: 'approvals' }
  if (parts.length === 0 || (parts[0] === 'environments' && parts.length === 1)) return { name: 'environments' }
  return { name: 'not-found', path: `/${parts.join('/')}` }
}

export const href = {
  environments: () => '#/environments',
  environment: (id: string) => `#/environments/${encodeURIComponent(id)}`,
  newEnvironment: () => '#/environments/new',
  editEnvironment: (id: string) => `#/environments/${encodeURIComponent(id)}/edit`,
  environmentHistory: (id: string) => `#/environments/${encodeURIComponent(id)}/history`,
  credentials: () => '#/credentials',
  preferences: () => '#/preferences',
  users: () => '#/users',
  teams: () => '#/teams',
  approvals: () => '#/approvals',
}

export function navigate(to: string) {
  location.hash = to
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash))
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash))
    window.addEventListener('hashchange', on)
    return () => window.removeEventListener('hashchange', on)
  }, [])
  return route
}
