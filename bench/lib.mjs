// What the browser benches share: interleaved rounds of modes, and the median.

/** The median of numbers (the mean of the middle two for an even count). */
export const median = (xs) => { const v = [...xs].sort((x, y) => x - y); const k = v.length >> 1; return v.length % 2 ? v[k] : (v[k - 1] + v[k]) / 2; };

/**
 * `rounds` interleaved rounds: in each, every mode in order, `measure(mode)` giving its row
 * (this machine's speed drifts minute to minute, so modes compared are measured side by side).
 * Each row gets its round, is printed as a JSON line, and all are returned.
 */
export async function interleaved(rounds, modes, measure) {
  const rows = [];
  for (let r = 1; r <= rounds; r++) {
    for (const m of modes) {
      const row = await measure(m);
      row.round = r;
      console.log(JSON.stringify(row));
      rows.push(row);
    }
  }
  return rows;
}
