/**
 * The REST payloads of `{baseUrl}api/kernel-state/` and their queries.
 *
 * Generated from the route table and the JSON Schema into `generated/rest.ts`
 * (`jlpm generate:rest`; a test fails when it is not current) and re-exported here
 * with the few types that are the frontend's own: how it reads a path, a table's head
 * and the sort keys it writes, and the snapshot queries it asks. Payloads keep the
 * wire's snake_case names, so a payload can be used as it arrives. `tokens.ts`
 * re-exports every name.
 */
import {
  ISnapshot,
  IVariable,
  IVariableBrief,
  IVariablesQuery,
  VARIABLE_DEFAULTS
} from './generated/rest';

export * from './generated/rest';

/**
 * An access key produced by the probe to reach a child of a value; opaque to us.
 */
export type AccessKey = string | number | boolean | null | AccessKey[];

/**
 * The first rows of a table in a variable's detail, as text.
 */
export interface ITableHead {
  columns: string[];
  /**
   * The row labels; null for a table without an index (polars, records).
   */
  index: string[] | null;
  rows: string[][];
}

/**
 * A listed variable as it travels (fields at their defaults left out) made whole.
 */
export function withVariableDefaults(
  listed: Pick<IVariable, 'name' | 'type' | 'kind' | 'preview'> &
    Partial<IVariable>
): IVariable {
  return {
    ...VARIABLE_DEFAULTS,
    qualname: listed.type,
    ...listed,
    changes: listed.changes ?? []
  };
}

/**
 * Query of `GET kernels/{kernel_id}/variables` for the sidebar's list (every field of
 * each variable: `detail` left at `full`).
 */
export type ISnapshotQuery = Omit<IVariablesQuery, 'detail'>;

/**
 * Query of `GET kernels/{kernel_id}/variables` at a brief detail level (no deltas).
 */
export interface IBriefQuery extends Omit<
  IVariablesQuery,
  'since' | 'delta' | 'detail'
> {
  detail: 'names' | 'schema';
}

/**
 * The body of `GET kernels/{kernel_id}/variables?detail=names|schema`: a snapshot whose
 * entries are brief.
 */
export interface IBriefSnapshot extends Omit<ISnapshot, 'variables'> {
  variables: IVariableBrief[];
}

/**
 * One key of the JSON form of `sort` (`IRowsQuery.sort`).
 */
export interface ISortKey {
  column: string;
  desc?: boolean;
}

/**
 * A row filter on one column, the first form of `IRowsQuery.filter` (now one
 * `IFilterCondition` of a `FilterNode`).
 */
export interface IRowsFilter {
  column: string;
  op: string;
  value?: string | null;
}
