// The credentials screen's list and what its rows do. One request per session for the list; every
// change is applied locally (the server's answer to the change is the truth), so no action costs a
// second request for the list.
import { useEffect, useState } from 'react'
import { ApiError } from '@ies/api'
import { useApp } from '../../app-context.tsx'
import type { CloudCredential } from '../../lib/api/types.ts'
import { PROVIDER_LABELS } from '../../components/ui.tsx'

export function useCredentialList() {
  const { api, toast, credentials, setCredentials } = useApp()
  const [list, setListState] = useState<CloudCredential[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  // Credentials being checked now; the last check's result is kept by the server with the credential.
  const [checking, setChecking] = useState<Record<string, boolean>>({})
  const [rowError, setRowError] = useState<{ id: string; error: unknown } | null>(null)
  // The credential whose deletion was refused, and the environments that use it.
  const [blocked, setBlocked] = useState<{ name: string; environments: string[] } | null>(null)

  const setList = (next: CloudCredential[]) => (setCredentials(next), setListState(next))
  useEffect(() => {
    credentials().then((l) => (setListState(l), setError(null)), setError)
  }, [credentials])

  async function validate(c: CloudCredential) {
    setChecking((r) => ({ ...r, [c.id]: true }))
    try {
      const lastValidation = await api.validateCredential(c.id)
      setList((list ?? []).map((x) => (x.id === c.id ? { ...x, lastValidation } : x)))
    } catch (e) {
      setRowError({ id: c.id, error: e })
    } finally {
      setChecking((r) => ({ ...r, [c.id]: false }))
    }
  }

  async function makeDefault(c: CloudCredential) {
    try {
      await api.setDefaultCredential(c.id)
      toast(`${c.name} is now the default ${PROVIDER_LABELS[c.provider]} credential`)
      setList(list!.map((x) => (x.provider === c.provider ? { ...x, isDefault: x.id === c.id } : x)))
    } catch (e) {
      setRowError({ id: c.id, error: e })
    }
  }

  /** Deletes `c`; refused while environments use it (`blocked` names them). */
  async function remove(c: CloudCredential) {
    try {
      await api.deleteCredential(c.id)
      toast(`Deleted ${c.name}`)
      setList(list!.filter((x) => x.id !== c.id))
    } catch (e) {
      if (e instanceof ApiError && e.code === 'CREDENTIAL_IN_USE') {
        const envs = (e.details as { environments?: string[] } | undefined)?.environments ?? []
        setBlocked({ name: c.name, environments: envs })
      } else setRowError({ id: c.id, error: e })
    }
  }

  function created(c: CloudCredential) {
    toast(`Added ${c.name}`)
    setList([...(list ?? []).map((x) => (c.isDefault && x.provider === c.provider ? { ...x, isDefault: false } : x)), c])
  }

  function saved(c: CloudCredential, rotated: boolean) {
    toast(rotated ? `Saved ${c.name} with its new secret` : `Renamed to ${c.name}`)
    // A new secret has not been checked: the server forgot the last check, and so does the list.
    setList(list!.map((x) => (x.id === c.id ? { ...x, ...c, ...(rotated && { lastValidation: undefined }) } : x)))
  }

  return {
    list,
    error,
    checking,
    rowError,
    blocked,
    dismissBlocked: () => setBlocked(null),
    validate,
    makeDefault,
    remove,
    created,
    saved,
  }
}
