// The version of the command line (its package's), in the help and the user agent.
import pkg from '../package.json' with { type: 'json' }

export const VERSION: string = pkg.version
