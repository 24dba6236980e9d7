/**
 * Finding columns by name: the one a name asks for (Go to column), and those whose
 * names contain a text (the summary panel's search), among the columns known.
 */

/**
 * Rows the summary panel lists for a search.
 */
export const MAX_SEARCH_RESULTS = 500;

/**
 * The column a name asked for is: the exact name, else the first starting with it,
 * else the first containing it (case-insensitive); or null.
 */
export function findColumn(
  columns: { name: string; position: number }[],
  text: string
): number | null {
  const wanted = text.trim();
  if (!wanted) {
    return null;
  }
  const lower = wanted.toLowerCase();
  const exact = columns.find(column => column.name === wanted);
  const prefix = columns.find(column =>
    column.name.toLowerCase().startsWith(lower)
  );
  const inside = columns.find(column =>
    column.name.toLowerCase().includes(lower)
  );
  return (exact ?? prefix ?? inside)?.position ?? null;
}

/**
 * The column positions whose names contain `query` (case-insensitive), in order.
 */
export function searchColumns(
  names: { name: string; position: number }[],
  query: string,
  limit = MAX_SEARCH_RESULTS
): number[] {
  const needle = query.trim().toLowerCase();
  const found: number[] = [];
  for (const { name, position } of names) {
    if (found.length >= limit) {
      break;
    }
    if (name.toLowerCase().includes(needle)) {
      found.push(position);
    }
  }
  return found;
}
