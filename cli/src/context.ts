// What every command is given: the output, and (made on first use, so `--help` needs no server) the
// settings, the login session and the API client.
import { createApiClient, type ApiClient } from '@ies/api'
import { Session } from './auth/session.ts'
import { Output } from './output.ts'
import { VERSION } from './version.ts'
import { resolveSettings, type GlobalFlags, type Settings } from './settings.ts'

export interface GlobalOptions extends GlobalFlags {
  json?: boolean
}

export class Context {
  readonly out: Output
  private settingsPromise: Promise<Settings> | undefined
  private sessionValue: Session | undefined
  private clientValue: ApiClient | undefined

  constructor(
    readonly flags: GlobalOptions,
    readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.out = new Output(Boolean(flags.json), undefined, env)
  }

  settings(): Promise<Settings> {
    this.settingsPromise ??= resolveSettings(this.flags, this.env)
    return this.settingsPromise
  }

  async session(): Promise<Session> {
    this.sessionValue ??= new Session(await this.settings(), this.env)
    return this.sessionValue
  }

  async client(): Promise<ApiClient> {
    if (!this.clientValue) {
      const settings = await this.settings()
      this.clientValue = createApiClient({
        baseUrl: settings.apiUrl,
        auth: await this.session(),
        headers: { 'user-agent': `ies-cli/${VERSION}` },
      })
    }
    return this.clientValue
  }
}
