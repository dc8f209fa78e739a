// What is derived from the environment records and kept in step with each write: the owner's list
// summary (summaries.ts) and the list of environments checked for drift on a schedule
// (drift-scheduled.ts). Each runs after the record's write is stored: when the database fails it,
// the write still stands (a summary marks itself for a rebuild on the owner's next list); any other
// failure is a bug and is thrown.
import type { Collection, Db } from 'mongodb'
import { isDatabaseUnavailable } from '@ies/server/core/errors'
import { ownerLock } from '@ies/server/core/keyed-mutex'
import type { EnvironmentRecord } from './record.ts'
import type { StoredEnvironment } from './stored-form.ts'
import { EnvironmentSummaries } from './summaries.ts'
import type { Summarized } from './summary-selection.ts'
import { DriftScheduledList, type DriftScheduled } from './drift-scheduled.ts'

type Written = Summarized & Pick<EnvironmentRecord, 'driftCheckHours'>

export class DerivedLists {
  /** Per owner: what a list filters, sorts, counts and pages. */
  readonly summaries: EnvironmentSummaries
  private readonly driftList: DriftScheduledList

  constructor(db: Db, collection: Collection<StoredEnvironment>) {
    this.summaries = new EnvironmentSummaries(db, collection, (userId, fn) => ownerLock(db, userId, fn))
    this.driftList = new DriftScheduledList(db)
  }

  /** After a create or a replace, under the owner's lock. */
  async written(userId: string, doc: Written): Promise<void> {
    await keep(() => this.summaries.put(doc))
    await keep(() => this.driftList.keep(doc))
  }

  /** After a move, under the lock of the owner it left. */
  async left(from: string, id: string): Promise<void> {
    await keep(() => this.summaries.removeHeld(from, id))
  }

  /** After a move, outside any lock (the summary takes the new owner's). */
  async arrived(doc: Written): Promise<void> {
    await keep(() => this.summaries.putLocking(doc))
    await keep(() => this.driftList.keep(doc))
  }

  /** After a deletion. */
  async removed(userId: string, id: string): Promise<void> {
    await keep(() => this.summaries.remove(userId, id))
    await keep(() => this.driftList.remove(id))
  }

  /** The environments checked for drift on a schedule (`driftCheckHours`), every owner's. */
  driftScheduled(): Promise<DriftScheduled[]> {
    return this.driftList.all()
  }
}

async function keep(update: () => Promise<void>): Promise<void> {
  try {
    await update()
  } catch (err) {
    if (!isDatabaseUnavailable(err)) throw err
  }
}
