// One fill of the job queue at a time per job name. Agenda answers each new-job notification by
// locking due jobs one after another until none is left; 50 notifications at once started 50 such
// chains, all scanning `agendaJobs` together, and on FerretDB (whose find-and-modify is a read and
// a write, not atomic) several chains locked the same job, which then started several times (the
// job store's claim kept all but one from running it, at the cost of more database work). While a
// chain runs, further notifications for its job name are folded into one that runs after it.
import type { JobNotification, NotificationHandler } from 'agenda'

/** The earlier of two notifications' run times (`null`: now). */
function sooner(a: JobNotification, b: JobNotification): JobNotification {
  if (!a.nextRunAt) return a
  if (!b.nextRunAt) return b
  return a.nextRunAt <= b.nextRunAt ? a : b
}

export function coalescedPerJobName(handler: NotificationHandler): NotificationHandler {
  const pending = new Map<string, JobNotification | null>() // present: a chain runs; value: one to run after it
  return async (notification) => {
    const name = notification.jobName
    if (pending.has(name)) {
      const waiting = pending.get(name)
      pending.set(name, waiting ? sooner(waiting, notification) : notification)
      return
    }
    let next: JobNotification | null = notification
    try {
      while (next) {
        pending.set(name, null)
        await handler(next)
        next = pending.get(name) ?? null
      }
    } finally {
      pending.delete(name)
    }
  }
}
