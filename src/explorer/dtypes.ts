/**
 * What a column's dtype says: its family (the operators a filter offers, the badge of
 * the summary panel) and whether it holds numbers (formatted, right-aligned) or
 * integers (shown exactly). Names of numpy, pandas, polars, Arrow, SQL engines and R.
 */
import { ColumnFamily } from '../tokens';

/**
 * The family of a dtype, as the profile groups columns (numbers, text, categories,
 * booleans, dates and times, other), for the operators a filter offers. pandas
 * `object` columns are most often text.
 */
export function familyOf(dtype: string | null | undefined): ColumnFamily {
  if (!dtype) {
    return 'other';
  }
  if (/^(bool|logical)/i.test(dtype)) {
    return 'boolean';
  }
  if (
    /^(datetime|date|timestamp|time|timedelta|duration|posix|difftime)/i.test(
      dtype
    )
  ) {
    return 'datetime';
  }
  if (/^(category|categorical|enum|factor)/i.test(dtype)) {
    return 'category';
  }
  if (isNumericDtype(dtype)) {
    return 'number';
  }
  if (/^(object|str|string|utf8|large_string|character|<U|\|S)/i.test(dtype)) {
    return 'string';
  }
  return 'other';
}

/**
 * Whether a dtype holds numbers (right-aligned, formatted): numpy, pandas, polars and
 * R names.
 */
export function isNumericDtype(dtype: string | null | undefined): boolean {
  return (
    !!dtype &&
    (/^(u?int|float|complex|decimal|i\d|u\d|f\d)/i.test(dtype) ||
      /^(numeric|double|integer)$/i.test(dtype))
  );
}

/**
 * Whether a dtype holds integers (shown exactly, with separators).
 */
export function isIntegerDtype(dtype: string | null | undefined): boolean {
  return (
    !!dtype && (/^(u?int|i\d|u\d)/i.test(dtype) || /^integer$/i.test(dtype))
  );
}
