// Watching a generation or push job: poll GET /jobs/:id until it ends, keeping a small log of the
// states it went through (the task log a user can follow).
import { useEffect, useRef, useState } from 'react'
import type { ApiClient } from '../lib/api-client.ts'
import type { Job } from '../lib/types.ts'

export interface JobLogEntry {
  at: string
  text: string
}

export function useJob(api: ApiClient, initial: Job | null, intervalMs = 800) {
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
      if (j.status !== last.current) {
        last.current = j.status
        setLog((l) => [...l, { at: new Date().toLocaleTimeString(), text: `Job ${j.status}` }])
      }
    }
    note(initial)
    const tick = async () => {
      if (!live) return
      try {
        const j = await api.job(initial.id)
        if (!live) return
        setJob(j)
        note(j)
        if (j.status === 'queued' || j.status === 'running') setTimeout(tick, intervalMs)
      } catch (e) {
        if (live) setError(e)
      }
    }
    if (initial.status === 'queued' || initial.status === 'running') setTimeout(tick, intervalMs)
    return () => {
      live = false
    }
  }, [api, initial?.id])

  return { job, log, error }
}
