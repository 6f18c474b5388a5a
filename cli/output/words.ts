/** A count with its noun, singular for one: `1 lesson`, `3 lessons`. */
export function counted(n: number, thing: string): string {
  return `${n} ${thing}${n === 1 ? "" : "s"}`;
}
