/**
 * The notes a run adds when the program ended with work still pending (`RunOutput.notes`): each
 * item a runtime found (a sub-call not awaited, a timer that had not fired, a Python task) becomes
 * a line `note: <item>`; past {@link MAX_NOTES} items one last line counts the rest. Shared by
 * the code runtimes so the model reads them alike.
 */

/** Most items named one by one in a run's notes. */
export const MAX_NOTES = 10

/**
 * The note lines of `items`: `note: <item>` for the first {@link MAX_NOTES}, then `note: … and N
 * more pending items were cancelled` when there are more. `[]` for none.
 */
export function noteLines(items: readonly string[]): string[] {
  const lines = items.slice(0, MAX_NOTES).map((item) => `note: ${item}`)
  const more = items.length - MAX_NOTES
  if (more > 0) lines.push(`note: … and ${more} more pending item${more === 1 ? ' was' : 's were'} cancelled`)
  return lines
}
