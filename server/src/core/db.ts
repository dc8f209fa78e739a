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

/** How often the driver checks the database (and so how soon it notices its return). */
const HEARTBEAT_MS = 1000
/** A heartbeat under way this long is a stalled monitor, not a busy database. */
const STALLED_CHECK_MS = 15_000

export function createMongoClient(uri: string): MongoClient {
  return new MongoClient(uri, {
    // Fail fast while the database is down (503), and notice its return within a second: the
    // monitor polls (FerretDB's awaitable hello kept a streaming monitor failing long after a restart).
    serverSelectionTimeoutMS: 3000,
    // A request never hangs on a connection the database dropped: a socket silent for 15 s, or a
    // wait of 5 s for a pooled connection, fails the operation (503) instead.
    socketTimeoutMS: 15_000,
    waitQueueTimeoutMS: 5_000,
    serverMonitoringMode: 'poll',
    heartbeatFrequencyMS: HEARTBEAT_MS,
    // The driver retries reads and writes once on a transient network error.
    retryWrites: true,
    retryReads: true,
  })
}

/**
 * Reconnects the client when its server monitor stops. With FerretDB restarting under traffic, the
 * driver (7.x) sometimes resets its monitor during a check and never schedules another heartbeat:
 * the server stays Unknown and every request fails server selection although the database is back.
 * No heartbeat started for five periods, and none under way, means the monitor is stalled; close and
 * connect again. A heartbeat under way is a busy database, not a stalled monitor (FerretDB answers
 * a check late while it works through a burst of writes): closing then failed every operation in
 * flight, so only one under way longer than the socket timeout (15 s) counts.
 * (While the database is down a live monitor keeps starting heartbeats, so this stays quiet.) A
 * check that runs late because the event loop was blocked does not count the blocked time as silence.
 */
export function reconnectWhenMonitorStalls(client: MongoClient, onReconnect: (err?: Error) => void = () => {}) {
  let lastHeartbeat = Date.now()
  let underWay = false
  let reconnecting = false
  client.on('serverHeartbeatStarted', () => {
    lastHeartbeat = Date.now()
    underWay = true
  })
  const ended = () => {
    lastHeartbeat = Date.now()
    underWay = false
  }
  client.on('serverHeartbeatSucceeded', ended)
  client.on('serverHeartbeatFailed', ended)
  let lastTick = Date.now()
  const timer = setInterval(async () => {
    // This check itself ran late: the event loop was busy (a long synchronous task), and so were the
    // driver's heartbeat timers. Silence measured across that is not the monitor's: start again.
    const late = Date.now() - lastTick > HEARTBEAT_MS * 2
    lastTick = Date.now()
    if (late) lastHeartbeat = Math.max(lastHeartbeat, lastTick)
    const silent = Date.now() - lastHeartbeat
    if (reconnecting || silent < (underWay ? STALLED_CHECK_MS : HEARTBEAT_MS * 5)) return
    reconnecting = true
    try {
      // close() can wait on operations stuck on dead sockets: give it a few seconds, then go on.
      await Promise.race([client.close(), new Promise((resolve) => setTimeout(resolve, 3000).unref())])
      await client.connect()
      onReconnect()
    } catch (err) {
      onReconnect(err as Error)
    } finally {
      lastHeartbeat = Date.now()
      underWay = false
      reconnecting = false
    }
  }, HEARTBEAT_MS)
  timer.unref()
  return () => clearInterval(timer)
}

/** True when the database answers a ping within the timeout. */
export async function databaseReachable(db: Db, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))
  const ping = db.command({ ping: 1 }).then(
    () => true,
    () => false,
  )
  try {
    return await Promise.race([ping, late])
  } finally {
    clearTimeout(timer)
  }
}

const ferretClients = new WeakMap<MongoClient, boolean>()

/**
 * The embedded store (FerretDB, which names its version in `buildInfo`) rather than MongoDB: where a
 * query shape costs a scan on one and an index lookup on the other, the callers choose by it.
 * Asked once per client (a failed ask, with the database down, is asked again next time).
 */
export async function isFerretDB(db: Db): Promise<boolean> {
  const known = ferretClients.get(db.client)
  if (known !== undefined) return known
  const info = await db.admin().command({ buildInfo: 1 })
  const ferret = typeof info.ferretdbVersion === 'string'
  ferretClients.set(db.client, ferret)
  return ferret
}

export default fp<DatabaseOptions>(
  async (app, opts) => {
    const owned = !opts.client
    const client = opts.client ?? createMongoClient(opts.uri)
    // Connecting lazily lets the server start while the database is down; /health reports it.
    client.connect().catch((err) => app.log.warn({ err: { message: err.message } }, 'database not reachable at start'))
    app.decorate('mongo', { client, db: client.db() })
    if (owned) {
      const stop = reconnectWhenMonitorStalls(client, (err) =>
        app.log.warn(
          { err: err && { message: err.message } },
          err ? 'database client reconnect failed' : 'database client reconnected after its monitor stalled',
        ),
      )
      app.addHook('onClose', async () => {
        stop()
        await client.close()
      })
    }
  },
  { name: 'db' },
)

/**
 * A unique-index violation. MongoDB (and FerretDB on insert) answers code 11000; FerretDB 1.24 with
 * SQLite answers an update that violates a unique index with code 1 and SQLite's message.
 */
export function isDuplicateKey(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null
  return e?.code === 11000 || (typeof e?.message === 'string' && e.message.includes('UNIQUE constraint failed'))
}
