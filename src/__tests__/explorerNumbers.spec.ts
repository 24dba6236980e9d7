/**
 * Numbers at a readable precision: what the grid paints for a cell (rounded, with
 * separators), while the cell's value — what a tooltip shows and a copy gives — stays
 * the kernel's full text.
 */
import './canvasStub';

import { cellText, PLACEHOLDER } from '../explorer/data/cells';
import { formatCell, formatFloat, groupDigits } from '../explorer/data/numbers';
import { FakeTable, makeModel } from './explorerFakes';

const SIX = { digits: 6, grouping: true };

describe('number formatting', () => {
  it('rounds floats to significant digits, the integer part whole', () => {
    expect(formatCell('6949.488000000001', 'float64', SIX)).toBe('6,949.49');
    expect(formatCell('0.30000000000000004', 'float64', SIX)).toBe('0.3');
    expect(formatCell('1234567.891', 'float64', SIX)).toBe('1,234,568');
    expect(formatCell('-2.5', 'Float32', SIX)).toBe('-2.5');
    expect(formatCell('3.0', 'float64', SIX)).toBe('3');
    expect(formatCell('0.0', 'float64', SIX)).toBe('0');
    expect(
      formatCell('6949.488000000001', 'float64', { digits: 3, grouping: false })
    ).toBe('6949');
    expect(formatCell('12.3456789', 'f64', { digits: 3, grouping: true })).toBe(
      '12.3'
    );
  });

  it('writes very large and very small floats with an exponent', () => {
    expect(formatFloat(1.2345678e20, SIX)).toBe('1.23457e+20');
    expect(formatFloat(0.000012345678, SIX)).toBe('1.23457e-5');
    expect(formatFloat(1e-7, SIX)).toBe('1e-7');
    expect(formatCell('1e+16', 'float64', SIX)).toBe('1e+16');
  });

  it('keeps integers exact (beyond 2^53 too), with separators', () => {
    expect(formatCell('9007199254740993', 'int64', SIX)).toBe(
      '9,007,199,254,740,993'
    );
    expect(formatCell('-1234', 'Int64', SIX)).toBe('-1,234');
    expect(formatCell('1234', 'integer', { digits: 6, grouping: false })).toBe(
      '1234'
    );
    expect(groupDigits('+1000')).toBe('+1,000');
    // A float column's whole numbers too.
    expect(formatCell('1000000', 'float64', SIX)).toBe('1,000,000');
  });

  it('leaves text, inf, nan, complex numbers and other dtypes as they came', () => {
    expect(formatCell('inf', 'float64', SIX)).toBe('inf');
    expect(formatCell('nan', 'float64', SIX)).toBe('nan');
    expect(formatCell('(1+2j)', 'complex128', SIX)).toBe('(1+2j)');
    expect(formatCell('1234.5678', 'object', SIX)).toBe('1234.5678');
    expect(formatCell('2024-12-31', 'datetime64[ns]', SIX)).toBe('2024-12-31');
    expect(formatCell('1234.5678', null, SIX)).toBe('1234.5678');
  });

  it('paints missing values by dtype and "…" while loading', () => {
    expect(cellText(undefined, 'float64', SIX)).toBe(PLACEHOLDER);
    expect(cellText(null, 'float64', SIX)).toBe('NaN');
    expect(cellText(null, 'datetime64[ns]', SIX)).toBe('NaT');
    expect(cellText('6949.488000000001', 'float64', SIX)).toBe('6,949.49');
  });

  it('keeps the full text as the cell value (tooltips and copies)', async () => {
    const table = new FakeTable(20, 3);
    const window = table.window.bind(table);
    table.window = query => {
      const answer = window(query);
      answer.rows = answer.rows.map(row =>
        row.map((cell, c) => (c === 1 ? '6949.488000000001' : cell))
      );
      return answer;
    };
    const model = makeModel(table);
    await model.load();
    expect(model.data('body', 3, 1)).toBe('6949.488000000001');
    expect(model.metadata('body', 3, 1)).toEqual({ dtype: 'float64' });
  });
});
