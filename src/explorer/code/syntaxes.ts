/**
 * What Convert to Code asks: the syntaxes a value offers (its library's, or its
 * engine's, the server's default first) and the query of the code of a model's view
 * (its filter, sort keys and the columns shown, in their order).
 */
import { CodeSyntax, ICodeQuery, IEngineInfo } from '../../tokens';
import { columnsParam } from '../data/blocks';
import { RowsDataModel } from '../data/model';
import { sortParam } from '../data/sort';

/**
 * Columns a view's code may name one by one.
 */
export const MAX_CODE_COLUMNS = 1000;

/**
 * The syntaxes offered beside the value's own: Python tables have two libraries.
 */
export function syntaxChoices(own: CodeSyntax): CodeSyntax[] {
  return own === 'dplyr' ? ['dplyr'] : ['pandas', 'polars'];
}

/**
 * The syntaxes of values in the kernel's memory.
 */
export const MEMORY_SYNTAXES: readonly CodeSyntax[] = [
  'pandas',
  'polars',
  'dplyr'
];

/**
 * The syntaxes of each engine, its own first (the server's default).
 */
export const ENGINE_SYNTAXES: Readonly<Record<string, readonly CodeSyntax[]>> =
  {
    duckdb: ['duckdb', 'sql'],
    polars: ['polars_lazy', 'polars'],
    ibis: ['ibis'],
    spark: ['pyspark'],
    dask: ['dask']
  };

/**
 * The syntaxes a table in an engine offers, or null for a value in memory (or an
 * engine this frontend does not know: the server's default is then asked).
 */
export function engineSyntaxes(
  engine: IEngineInfo | null | undefined
): CodeSyntax[] | null {
  const syntaxes = engine ? ENGINE_SYNTAXES[engine.name] : undefined;
  return syntaxes ? [...syntaxes] : null;
}

/**
 * The query of the code of a model's view, or null (with why) when it cannot be
 * said in one request.
 */
export function codeQuery(
  model: RowsDataModel,
  syntax: CodeSyntax | null
): ICodeQuery | { tooWide: number } {
  const shown = model.layout.shownPositions();
  if (shown !== null && shown.length > MAX_CODE_COLUMNS) {
    return { tooWide: shown.length };
  }
  return {
    ...(model.filter ? { filter: model.filter } : {}),
    ...(model.sort.length ? { sort: sortParam(model.sort) } : {}),
    ...(shown !== null ? { columns: columnsParam(shown) } : {}),
    ...(syntax ? { syntax } : {})
  };
}
