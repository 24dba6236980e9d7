/**
 * The settings schema (JSON, it cannot import TypeScript) repeats the defaults of
 * `src/defaults.ts`: both must agree, and every setting must have its default here.
 */
import * as fs from 'fs';
import * as path from 'path';

import {
  DEFAULT_OPTIONS,
  DEFAULT_PROMPT_BUDGET,
  DEFAULT_PROMPT_HISTORY,
  SETTING_DEFAULTS
} from '../defaults';
import { DEFAULT_PROMPT_QUERY } from '../models/prompt';

interface ISettingsSchema {
  properties: Record<string, { default?: unknown }>;
}

const schema = JSON.parse(
  fs.readFileSync(
    path.join(__dirname, '..', '..', 'schema', 'plugin.json'),
    'utf-8'
  )
) as ISettingsSchema;

describe('defaults', () => {
  it('are the defaults of schema/plugin.json, setting by setting', () => {
    const fromSchema = Object.fromEntries(
      Object.entries(schema.properties).map(([key, spec]) => [
        key,
        spec.default
      ])
    );
    expect(fromSchema).toEqual(SETTING_DEFAULTS);
  });

  it('are what the service and the assistant view start with', () => {
    expect(DEFAULT_OPTIONS).toEqual({
      include: SETTING_DEFAULTS.include,
      limit: SETTING_DEFAULTS.limit,
      sort: SETTING_DEFAULTS.sort
    });
    expect(DEFAULT_PROMPT_QUERY).toEqual({
      budget: DEFAULT_PROMPT_BUDGET,
      history: DEFAULT_PROMPT_HISTORY
    });
  });
});
