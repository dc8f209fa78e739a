// The entry of the bundled command line (npm run build:cli): runs `ies` with the process's arguments.
import { main } from './main.ts'

void main(process.argv).then((code) => {
  process.exitCode = code
})
