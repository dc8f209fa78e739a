// One attempt of a job, as Agenda hands it to the runner (runner.ts): the record is marked running
// (store.ts's `start`: claimed, so that one worker runs it), the work runs with the job's heartbeat
// kept, its waiters are woken, and the Agenda document of a job whose record is final is removed.
import type { Agenda, Job } from 'agenda'
import type { FastifyBaseLogger } from 'fastify'
import { JobFailure } from '../../core/job-failure.ts'
import type { JobEnvironment } from '../generation/transform.ts'
import type { CompletionBus } from './completions.ts'
import type { EnvironmentAccess } from './environment-access.ts'
import type { Work } from './job-context.ts'
import type { QueueData } from './job-queue.ts'
import type { JobRecord, JobStore } from './store.ts'

/** The job's environment, from `read` when it was started already; ENVIRONMENT_NOT_FOUND when it is gone. */
export async function environmentOf(
  environments: EnvironmentAccess,
  record: JobRecord,
  read?: Promise<JobEnvironment | null>,
): Promise<JobEnvironment> {
  const env = await (read ?? environments.get(record.userId, record.environmentId))
  if (!env) throw new JobFailure('ENVIRONMENT_NOT_FOUND', 'The environment no longer exists')
  return env
}

export class JobAttempts {
  /**
   * Attempts this replica gave up because the database was unreachable (job id -> attempt): its
   * own heartbeat on the record must not keep the retry out (see `run`).
   */
  private readonly abandoned = new Map<string, number>()

  constructor(
    private readonly deps: {
      agenda: Agenda
      store: JobStore
      completions: CompletionBus
      environments: EnvironmentAccess
      log: FastifyBaseLogger
      lockLifetimeMs: number
    },
  ) {}

  async run(job: Job<QueueData>, work: Work): Promise<void> {
    const { jobId, userId, environmentId } = job.attrs.data
    const { store, completions, environments, lockLifetimeMs } = this.deps
    // The environment is read while the job is started (one round trip fewer before the work); a read
    // left unused (the job is not ours to run) must not end as an unhandled rejection.
    const early = userId && environmentId ? environments.get(userId, environmentId) : undefined
    early?.catch(() => {})
    const record = await store.start(jobId, lockLifetimeMs, this.abandoned.get(jobId))
    this.abandoned.delete(jobId)
    if (!record) {
      // Finished already (or removed with its environment), or another worker runs it: where Agenda's
      // lock let two workers in (FerretDB, see store.start), this one completes and removes the Agenda
      // document the other one holds, so it leaves a check for when that run's lock would have
      // expired; if its worker has died by then, the check runs the job again.
      // (Still queued: the other worker claimed it and is marking it running, or failed to.)
      const current = await store.byId(jobId)
      if (current?.status === 'running' || current?.status === 'queued')
        await this.deps.agenda.schedule(new Date(Date.now() + lockLifetimeMs), job.attrs.name, job.attrs.data)
      await this.dispatched(job)
      return
    }
    try {
      // The Agenda document may be gone (above); the job's own heartbeat is what keeps the run ours.
      // Both are written only once a tenth of the lock lifetime has passed since the last one: a
      // short job costs no writes for them.
      let heard = Date.now()
      const touch = async () => {
        if (Date.now() - heard < lockLifetimeMs / 10) return
        heard = Date.now()
        await Promise.all([job.touch().catch(() => {}), store.heartbeat(jobId)])
      }
      const ownRead = early && userId === record.userId && environmentId === record.environmentId
      // The work may await something else before the environment: its absence must not surface
      // meanwhile as an unhandled rejection (the work still sees it when it awaits).
      const environment = environmentOf(environments, record, ownRead ? early : undefined)
      environment.catch(() => {})
      await work(record, touch, environment)
      // The final record is stored and kept in memory (store.finish): this replica's waiters read it
      // from there at once; the other replicas' are woken once the queue no longer holds the record.
      completions.announceHere(jobId)
      await Promise.all([store.dequeue(jobId), this.dispatched(job)])
    } catch (err) {
      // The database was unreachable: the attempt is given up and Agenda runs the job again (backoff).
      this.abandoned.set(jobId, record.attempts)
      throw err
    } finally {
      completions.announce(jobId)
    }
  }

  /**
   * Removes the Agenda document of a job whose record is final (removeOnComplete is off,
   * job-queue.ts): by `_id` alone, which FerretDB looks up directly. Agenda's own state update after
   * the handler then finds no document, which it ignores.
   */
  private async dispatched(job: Job): Promise<void> {
    await this.deps.agenda
      .cancel({ id: job.attrs._id })
      .catch((err: Error) => this.deps.log.warn({ err: { message: err.message } }, 'could not remove a finished job from the queue'))
  }
}
