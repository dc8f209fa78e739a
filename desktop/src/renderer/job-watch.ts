// Watching a generation or push job by long polling (lib/job-follow.ts), with a small log of the
// states it went through.
import { useEffect, useRef, useState } from 'react'
import type { ApiClient } from '@ies/api'
import type { Job } from './lib/api/types.ts'
import { followJob } from './lib/jobs/job-follow.ts'

export interface JobLogEntry {
  at: string
  text: string
}

export function useJob(api: ApiClient, initial: Job | null) {
  const [job, setJob] = useState<Job | null>(initial)
  const [log, setLog] = useState<JobLogEntry[]>([])
  const [error, setError] = useState<unknown>(null)
  const last = useRef<string | null>(null)

  useEffect(() => {
    setJob(initial)
    setLog([])
    setError(null)
    last.current = null
    if (!initial) return
    let live = true
    const note = (j: Job) => {
      setJob(j)
      if (j.status !== last.current) {
        last.current = j.status
        setLog((l) => [...l, { at: new Date().toLocaleTimeString(), text: `Job ${j.status}` }])
      }
    }
    note(initial)
    followJob(api, initial, note, () => live).catch((e) => live && setError(e))
    return () => {
      live = false
    }
  }, [api, initial?.id])

  return { job, log, error }
}
