// Agenda's MongoDB backend as the queue uses it (collection `agendaJobs`), with two of Agenda's
// queries written for the embedded store. FerretDB 1.24 (SQLite) looks a document up by its index
// only for a filter that is exactly `{ _id }` (scripts/build-ferretdb.sh); any other filter reads the
// queue collection row by row, and a sort reads all of it first. At 200 queued jobs those reads were
// two thirds of FerretDB's CPU (a profile of `scripts/bench/concurrency.ts`). So, on FerretDB only:
// - a job's state is saved by `{ _id }` instead of Agenda's `{ _id, name }` (the same document: `_id`
//   is unique), which also makes the save after the handler has removed the document a miss by index;
// - the next job is taken without Agenda's sort (next run time, priority): FerretDB then stops at the
//   first due job in insertion order, the oldest, instead of sorting the whole queue. Priorities are
//   not used here and a retried job's next run time keeps it out until it is due, so the order is the same.
// On MongoDB both are index lookups, and Agenda's queries are sent as it writes them.
import type { AgendaBackend } from 'agenda'
import { MongoJobRepository } from '@agendajs/mongo-backend'
import type { Collection, Db, Document, FindOneAndUpdateOptions, UpdateOptions } from 'mongodb'
import { isFerretDB } from '../../core/db.ts'

class QueueRepository extends MongoJobRepository {
  override async connect(): Promise<void> {
    await super.connect()
    if (await isFerretDB(this.getDb())) writeForFerretDB(this.collection as unknown as Collection<Document>)
  }
}

/** Rewrites, on this collection object only, the two query shapes above (see the top). */
function writeForFerretDB(collection: Collection<Document>): void {
  const updateOne = collection.updateOne.bind(collection)
  const findOneAndUpdate = collection.findOneAndUpdate.bind(collection)
  const byIdAndName = (filter: Document) => Object.keys(filter).sort().join() === '_id,name'
  collection.updateOne = ((filter: Document, update: Document, options?: UpdateOptions) =>
    updateOne(byIdAndName(filter) ? { _id: filter._id } : filter, update, options)) as typeof collection.updateOne
  collection.findOneAndUpdate = ((filter: Document, update: Document, options: FindOneAndUpdateOptions = {}) => {
    const { sort, ...unsorted } = options
    return findOneAndUpdate(filter, update, '_id' in filter || !sort ? options : unsorted)
  }) as typeof collection.findOneAndUpdate
}

/** The backend for `new Agenda({ backend })`: jobs in `agendaJobs` of the service's database. */
export function queueBackend(db: Db): AgendaBackend {
  const repository = new QueueRepository({ mongo: db, db: { collection: 'agendaJobs' } })
  return {
    name: 'MongoDB',
    repository,
    connect: () => repository.connect(),
    // The connection is the service's own, closed with the server.
    disconnect: async () => {},
  }
}
