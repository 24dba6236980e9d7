/**
 * A table file as the explorer's source (issue 30): the `files/…` routes bound to one
 * path — windows, statistics, findings and the loading code of a view — read by the
 * server's DuckDB worker, no kernel needed. The answers have the variable routes'
 * shapes, so the explorer reads them unchanged.
 */
import {
  CodeSyntax,
  ICodeQuery,
  IFindingsQuery,
  IKernelStateRequests,
  IProfileQuery,
  IRowsQuery,
  IRowsWindow,
  ITableFindings,
  ITableProfile,
  IViewCode
} from '../../tokens';

/**
 * The extensions read as tables (as the server's `files/formats.py`).
 */
export const TABLE_FILE_EXTENSIONS: readonly string[] = [
  '.csv',
  '.tsv',
  '.parquet',
  '.jsonl',
  '.ndjson',
  '.xlsx'
];

/**
 * The languages of the loading code, the default of a Python kernel first.
 */
export const FILE_SYNTAXES: readonly CodeSyntax[] = [
  'pandas',
  'polars',
  'duckdb',
  'dplyr'
];

/**
 * Whether the explorer opens a file of this path.
 */
export function isTableFile(path: string): boolean {
  const lower = path.toLowerCase();
  return TABLE_FILE_EXTENSIONS.some(ext => lower.endsWith(ext));
}

/**
 * The directory of an API path ('' for the root).
 */
export function directoryOf(path: string): string {
  const at = path.lastIndexOf('/');
  return at < 0 ? '' : path.slice(0, at);
}

/**
 * The loading code's language for a kernel's language: R gets dplyr, Python (and
 * anything else) pandas.
 */
export function syntaxForLanguage(
  language: string | null | undefined
): CodeSyntax {
  return (language ?? '').trim().toLowerCase() === 'r' ? 'dplyr' : 'pandas';
}

/**
 * The routes of one file, bound (through the service's requests): what `DataExplorer`
 * and `RowsDataModel` take.
 */
export class FileSource {
  constructor(
    readonly path: string,
    private _requests: IKernelStateRequests
  ) {}

  rows(query: IRowsQuery = {}): Promise<IRowsWindow> {
    return this._requests.fileRows(this.path, query);
  }

  profile(query: IProfileQuery = {}): Promise<ITableProfile> {
    return this._requests.fileProfile(this.path, query);
  }

  findings(query: IFindingsQuery = {}): Promise<ITableFindings> {
    const { syntax, ...rest } = query;
    // The fixes of a file's findings: DuckDB's (the table is read by DuckDB) or dplyr.
    return this._requests.fileFindings(this.path, {
      ...rest,
      ...(syntax === 'dplyr' ? { syntax } : {})
    });
  }

  /**
   * The code that loads the file with the view, its path written from `from` (a
   * notebook's directory; null: the server's root).
   */
  code(query: ICodeQuery = {}, from: string | null = null): Promise<IViewCode> {
    const { syntax, ...rest } = query;
    return this._requests.fileCode(this.path, {
      ...rest,
      ...(syntax && FILE_SYNTAXES.includes(syntax)
        ? { syntax: syntax as FileSyntax }
        : {}),
      ...(from !== null ? { relative_to: from } : {})
    });
  }
}

/**
 * The syntax of a file's loading code.
 */
type FileSyntax = 'pandas' | 'polars' | 'duckdb' | 'dplyr';
