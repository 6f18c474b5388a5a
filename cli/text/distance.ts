// Damerau edit distance (insert, delete, replace, swap of neighbours each cost 1): typo tolerance
// for commands, topics and search terms.
export function editDistance(a: string, b: string): number {
  return boundedDistance(a, b, Infinity);
}

// Three rolling rows (the swap looks two rows back), kept between calls: a search compares its
// unknown words with thousands of known terms in a process too young to be optimised, where
// allocating a row per comparison costs more than the comparison.
let rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/** The edit distance of a and b, or max + 1 once it is certain to exceed max (search tries every known term). */
export function boundedDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const width = b.length + 1;
  if (rows[0]!.length < width) rows = [new Int32Array(width), new Int32Array(width), new Int32Array(width)];
  let before = rows[0]!; // row i - 2
  let previous = rows[1]!; // row i - 1
  let current = rows[2]!; // row i
  for (let j = 0; j < width; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    const ai = a.charCodeAt(i - 1);
    for (let j = 1; j < width; j++) {
      const bj = b.charCodeAt(j - 1);
      let v = previous[j - 1]! + (ai === bj ? 0 : 1);
      if (previous[j]! + 1 < v) v = previous[j]! + 1;
      if (current[j - 1]! + 1 < v) v = current[j - 1]! + 1;
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj && before[j - 2]! + 1 < v) v = before[j - 2]! + 1;
      current[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    const spare = before;
    before = previous;
    previous = current;
    current = spare;
  }
  return previous[b.length]!;
}
