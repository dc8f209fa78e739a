// An environment's History tab: its head (as on the overview) and its changes, newest first.
import { useEffect, useState } from 'react'
import { useApp } from '../app-context.tsx'
import { href } from '../router.ts'
import type { Environment } from '../lib/api/types.ts'
import { ErrorNotice, PageHead, Spinner } from '../components/ui.tsx'
import { EnvironmentSubtitle, EnvironmentTabs } from '../components/EnvironmentTabs.tsx'
import { ChangeHistory } from '../components/ChangeHistory.tsx'

export function EnvironmentHistory({ id }: { id: string }) {
  const { api } = useApp()
  const [env, setEnv] = useState<Environment | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    api.getEnvironment(id).then(setEnv, setError)
  }, [api, id])

  if (error) return <ErrorNotice error={error} what="Loading the environment" />
  if (!env) return <Spinner label="Loading the environment" />
  return (
    <>
      <PageHead crumbs={<a href={href.environments()}>Environments</a>} title={env.name} subtitle={<EnvironmentSubtitle env={env} />} />
      <EnvironmentTabs id={env.id} current="history" />
      <ChangeHistory env={env} onRestored={setEnv} />
    </>
  )
}
