/** Two sequences, each in order by `compare`, as one in that order (ties: the first sequence's first). */
export async function* mergeSorted<T>(a: AsyncIterable<T>, b: AsyncIterable<T>, compare: (x: T, y: T) => number): AsyncGenerator<T> {
  const left = a[Symbol.asyncIterator]()
  const right = b[Symbol.asyncIterator]()
  let x = await left.next()
  let y = await right.next()
  while (!x.done || !y.done) {
    if (!x.done && (y.done || compare(x.value, y.value) <= 0)) {
      yield x.value
      x = await left.next()
    } else if (!y.done) {
      yield y.value
      y = await right.next()
    }
  }
}
