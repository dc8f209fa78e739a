// Preferences: theme (applied at once) and default provider, stored on the server.
import { useState } from 'react'
import { useApp } from '../app-context.tsx'
import { PROVIDERS, THEMES, type Preferences as Prefs } from '../lib/api/types.ts'
import { ErrorNotice, PageHead, PROVIDER_LABELS, SelectField } from '../components/ui.tsx'

export function Preferences() {
  const { api, preferences, setPreferences, toast, username } = useApp()
  const [error, setError] = useState<unknown>(null)

  async function change(patch: Partial<Prefs>) {
    const before = preferences
    setPreferences({ ...preferences, ...patch })
    try {
      setPreferences(await api.savePreferences(patch))
      toast('Preferences saved')
    } catch (e) {
      setPreferences(before)
      setError(e)
    }
  }

  return (
    <>
      <PageHead title="Preferences" subtitle={`Settings for ${username}, kept with your account.`} />
      <div className="card">
        <div className="grid-2">
          <SelectField
            label="Theme"
            value={preferences.theme}
            options={THEMES.map((t) => ({ value: t, label: { light: 'Light', dark: 'Dark', system: 'Follow the system' }[t] }))}
            onChange={(theme) => change({ theme })}
            help="Applied at once."
          />
          <SelectField
            label="Default provider"
            value={preferences.defaultProvider}
            options={PROVIDERS.map((p) => ({ value: p, label: PROVIDER_LABELS[p] }))}
            onChange={(defaultProvider) => change({ defaultProvider })}
            help="Preselected in the wizard and for new credentials."
          />
        </div>
        <ErrorNotice error={error} what="Saving preferences" />
      </div>
    </>
  )
}
