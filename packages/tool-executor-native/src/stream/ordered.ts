/**
 * Results handed out in call order as they settle: a result that settles before an earlier
 * call's waits for it. Any number of readers, each from the first result.
 */
import type { RawToolCall, ToolResult } from '@deepseek-ai/dsh-tools'

/** One call of a streamed turn and its result, as `executeToolStream`'s iterator yields them. */
export interface StreamedResult {
  /** The call's position in the turn (0-based, model order). */
  readonly index: number
  readonly call: RawToolCall
  readonly result: ToolResult
}

/** The ordered buffer behind a stream run's iterator. */
export class OrderedResults {
  readonly #items: StreamedResult[] = []
  readonly #early = new Map<number, StreamedResult>()
  #closed = false
  #wake: (() => void)[] = []

  /** Adds the result of call `item.index` (each index once). */
  put(item: StreamedResult): void {
    this.#early.set(item.index, item)
    let next = this.#early.get(this.#items.length)
    while (next !== undefined) {
      this.#early.delete(next.index)
      this.#items.push(next)
      next = this.#early.get(this.#items.length)
    }
    this.#notify()
  }

  /** No more results: readers end after the last one. */
  close(): void {
    this.#closed = true
    this.#notify()
  }

  /** Reads every result in call order, waiting for each; ends once closed. */
  async *read(): AsyncGenerator<StreamedResult, void, undefined> {
    let i = 0
    for (;;) {
      if (i < this.#items.length) {
        yield this.#items[i++] as StreamedResult
        continue
      }
      if (this.#closed) return
      await new Promise<void>((resolve) => this.#wake.push(resolve))
    }
  }

  #notify(): void {
    const wake = this.#wake
    this.#wake = []
    for (const resolve of wake) resolve()
  }
}
