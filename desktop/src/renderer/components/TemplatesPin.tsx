// Whether the environment follows the newest templates or is pinned to a version (docs/updating.md,
// "Pinned or following"), and the switch between the two: pin to the version last pushed, or follow.
import { useState } from 'react'
import { useApp } from '../app-context.tsx'
import type { Environment, EnvironmentInput } from '../lib/api/types.ts'
import { shortCommit } from '../lib/catalog/prepared-catalog.ts'
import { ErrorNotice } from './ui.tsx'

export function TemplatesPin({ env, onChanged }: { env: Environment; onChanged?: () => void }) {
  const { api } = useApp()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)

  async function setPin(pin: string | null) {
    setBusy(true)
    setError(null)
    try {
      // JSON Merge Patch: null removes the pin.
      await api.updateEnvironment(env.id, { templatesPin: pin } as unknown as Partial<EnvironmentInput>)
      onChanged?.()
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  return (
    <div data-testid="templates-pin">
      {env.templatesPin ? (
        <p>
          Templates: pinned to <code title={env.templatesPin}>{shortCommit(env.templatesPin)}</code>. Pushes keep this version; an upgrade
          moves the pin.{' '}
          <button type="button" className="btn" disabled={busy} onClick={() => setPin(null)}>
            Follow the newest templates
          </button>
        </p>
      ) : (
        <p>
          Templates: following the newest version.{' '}
          {env.lastPush && (
            <button type="button" className="btn" disabled={busy} onClick={() => setPin(env.lastPush!.templatesCommit)}>
              Pin to the version last pushed
            </button>
          )}
        </p>
      )}
      <ErrorNotice error={error} what="Changing the templates version" />
    </div>
  )
}
