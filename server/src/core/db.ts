// The MongoDB connection, decorated onto the instance as `app.mongo`. Repositories take `app.mongo.db`.
import fp from 'fastify-plugin'
import { MongoClient, type Db } from 'mongodb'

declare module 'fastify' {
  interface FastifyInstance {
    mongo: { client: MongoClient; db: Db }
  }
}

export interface DatabaseOptions {
  uri: string
  /** An already connected client to share (tests, a second app on the same database). */
  client?: MongoClient
}

export function createMongoClient(uri: string): MongoClient {
  return new MongoClient(uri, {
    serverSelectionTimeoutMS: 3000,
    connectTimeoutMS: 3000,
    // The driver retries reads and writes once on a transient network error.
    retryWrites: true,
    retryReads: true,
  })
}

/** True when the database answers a ping within the timeout. */
export async function databaseReachable(db: Db, timeoutMs = 2000): Promise<boolean> {
  try {
    await db.command({ ping: 1 }, { timeoutMS: timeoutMs })
    return true
  } catch {
    return false
  }
}

export default fp<DatabaseOptions>(
  async (app, opts) => {
    const owned = !opts.client
    const client = opts.client ?? createMongoClient(opts.uri)
    // Connecting lazily lets the server start while the database is down; /health reports it.
    client.connect().catch((err) => app.log.warn({ err: { message: err.message } }, 'database not reachable at start'))
    app.decorate('mongo', { client, db: client.db() })
    if (owned) app.addHook('onClose', async () => client.close())
  },
  { name: 'db' },
)
