/**
 * The frontend's defaults, in one place. `schema/plugin.json` repeats them as the
 * settings' `default`s (it must stay JSON); a test checks that both agree.
 */
import { IKernelStateOptions, IncludeGroup, SnapshotSort } from './tokens';

/**
 * Variables one snapshot loads (setting `limit`).
 */
export const DEFAULT_LIMIT = 2000;

/**
 * Server-side sort order of the variable list (setting `sort`).
 */
export const DEFAULT_SORT: SnapshotSort = 'name';

/**
 * Hidden groups of names the list also shows (setting `include`).
 */
export const DEFAULT_INCLUDE: readonly IncludeGroup[] = [];

/**
 * Whether the list shows a preview column (setting `showPreview`).
 */
export const DEFAULT_SHOW_PREVIEW = true;

/**
 * Widths in pixels of the list's sized columns (setting `columnWidths`); the preview
 * takes the rest.
 */
export const DEFAULT_COLUMN_WIDTHS = {
  name: 120,
  type: 96,
  shape: 72,
  memory: 68
} as const;

/**
 * Character budget of the assistant view (setting `promptBudget`).
 */
export const DEFAULT_PROMPT_BUDGET = 6000;

/**
 * Recent execution steps in the assistant view (setting `promptHistory`).
 */
export const DEFAULT_PROMPT_HISTORY = 0;

/**
 * The snapshot options the service starts with.
 */
export const DEFAULT_OPTIONS: IKernelStateOptions = {
  include: [...DEFAULT_INCLUDE],
  limit: DEFAULT_LIMIT,
  sort: DEFAULT_SORT
};

/**
 * The settings of `schema/plugin.json` and their defaults.
 */
export const SETTING_DEFAULTS = {
  include: DEFAULT_INCLUDE,
  sort: DEFAULT_SORT,
  limit: DEFAULT_LIMIT,
  showPreview: DEFAULT_SHOW_PREVIEW,
  columnWidths: DEFAULT_COLUMN_WIDTHS,
  promptBudget: DEFAULT_PROMPT_BUDGET,
  promptHistory: DEFAULT_PROMPT_HISTORY
} as const;
