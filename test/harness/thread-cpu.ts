// The CPU time this process's main thread (the event loop's) uses, for telling a blocked loop from one
// kept waiting by other processes: a loop blocked for N ms by its own work has used N ms of CPU on that
// thread, one kept waiting by the scheduler has not. Linux /proc; null where it is not there.
import { readFileSync } from 'node:fs'

const TICK_MS = 10 // USER_HZ is 100 on Linux

/** CPU time (user + system) this process's main thread has used, in ms (10 ms ticks); null where /proc is not there. */
export function mainThreadCpuMs(): number | null {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS
  } catch {
    return null
  }
}

/** CPU time this process's main thread has run, in ns (the scheduler's own account); null where /proc has no schedstat. */
function mainThreadRunNs(): number | null {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0])
  } catch {
    return null
  }
}

/**
 * Starts watching; the function returned stops and gives the most CPU time (ms) the main thread used
 * between two ticks of a 5 ms timer meanwhile (a turn of the loop's own work, and the tick's), or null
 * where /proc has no schedstat.
 */
export function watchStalls(): () => number | null {
  let last = mainThreadRunNs()
  let most = 0
  const timer = setInterval(() => {
    const now = mainThreadRunNs()
    if (now !== null && last !== null) most = Math.max(most, (now - last) / 1e6)
    last = now
  }, 5)
  return () => {
    clearInterval(timer)
    return last === null ? null : most
  }
}

/**
 * Starts watching every turn of the event loop (a setImmediate that queues itself runs once per turn);
 * the function returned stops and gives the longest turn in ms: its wall time, and the main thread's CPU
 * time in it (null where /proc has no schedstat).
 */
export function watchTurns(): () => { wallMs: number; cpuMs: number | null } {
  let lastAt = performance.now()
  let lastRun = mainThreadRunNs()
  let wallMs = 0
  let cpuMs: number | null = lastRun === null ? null : 0
  let on = true
  /** Ends the turn that began at the last tick (at a tick, or when watching stops: the turn so far). */
  const turnEnds = () => {
    const at = performance.now()
    const run = mainThreadRunNs()
    wallMs = Math.max(wallMs, at - lastAt)
    if (run !== null && lastRun !== null && cpuMs !== null) cpuMs = Math.max(cpuMs, (run - lastRun) / 1e6)
    lastAt = at
    lastRun = run
  }
  const tick = () => {
    if (!on) return
    turnEnds()
    setImmediate(tick)
  }
  setImmediate(tick)
  return () => {
    turnEnds()
    on = false
    return { wallMs, cpuMs }
  }
}
