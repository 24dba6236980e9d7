/**
 * Convert to Code: the query of a view's code (filter, sort keys, columns shown in
 * their order), the code panel (the value's syntaxes, Copy, Insert, following the
 * view), inserting a cell below the active one of a real notebook, and the variable a
 * notebook cell shows as a table.
 */
import './canvasStub';

import { CodeCellModel } from '@jupyterlab/cells';
import { NotebookModel } from '@jupyterlab/notebook';
import { NBTestUtils } from '@jupyterlab/notebook/lib/testutils';
import { Widget } from '@lumino/widgets';

import { CodePanel } from '../explorer/code/panel';
import { codeQuery, syntaxChoices } from '../explorer/code/syntaxes';
import {
  insertCodeBelow,
  isTableOutput,
  lastExpressionName,
  tableNameOfCell
} from '../explorer/notebook';
import { ICodeQuery, IViewCode } from '../tokens';
import {
  FakeTable,
  flush,
  makeModel,
  responseError,
  trans
} from './explorerFakes';

describe('the code of a view', () => {
  it('asks the filter, the sort keys and the columns shown in their order', async () => {
    const model = makeModel(new FakeTable(100, 6));
    await model.load();
    expect(codeQuery(model, null)).toEqual({});
    await model.setFilter({ column: 'c0', op: 'lt', value: '10' });
    model.setSort([
      { column: 'c1', direction: 'desc' },
      { column: 'c0', direction: 'asc' }
    ]);
    model.hideColumn(3);
    model.pinColumn(5);
    expect(codeQuery(model, 'polars')).toEqual({
      filter: { column: 'c0', op: 'lt', value: '10' },
      sort: 'c1:desc,c0:asc',
      columns: '5,0,1,2,4',
      syntax: 'polars'
    });
    expect(syntaxChoices('pandas')).toEqual(['pandas', 'polars']);
    expect(syntaxChoices('dplyr')).toEqual(['dplyr']);
  });
});

describe('CodePanel', () => {
  function setup() {
    const answers: (IViewCode | Error)[] = [];
    const queries: ICodeQuery[] = [];
    const fetch = async (query: ICodeQuery): Promise<IViewCode> => {
      queries.push(query);
      const answer = answers.shift() ?? {
        syntax: query.syntax ?? 'pandas',
        code: `df_view = df  # ${JSON.stringify(query)}`,
        name: 'df',
        view: { sort: [], filter: null, columns: null }
      };
      if (answer instanceof Error) {
        throw answer;
      }
      return answer;
    };
    const inserted: string[] = [];
    const copied: string[] = [];
    return { answers, queries, fetch, inserted, copied };
  }

  it('shows the code, offers the syntaxes, copies and inserts it', async () => {
    const model = makeModel(new FakeTable(100, 3));
    await model.load();
    const { queries, fetch, inserted, copied } = setup();
    const panel = new CodePanel({
      model,
      fetch,
      trans,
      insert: async code => {
        inserted.push(code);
        return 'analysis.ipynb';
      },
      copy: text => copied.push(text)
    });
    const get = <T extends HTMLElement>(id: string) =>
      panel.node.querySelector(
        `[data-test-id="kernel-state-explorer-code-${id}"]`
      ) as T;
    panel.hide();
    Widget.attach(panel, document.body);
    expect(queries).toHaveLength(0); // hidden: nothing asked
    panel.show();
    await flush();
    expect(queries).toEqual([{}]);
    expect(get('text').textContent).toBe('df_view = df  # {}');
    const syntax = get<HTMLSelectElement>('syntax');
    expect([...syntax.options].map(o => o.value)).toEqual(['pandas', 'polars']);
    expect(syntax.options[0].textContent).toBe('pandas (its library)');
    get<HTMLButtonElement>('copy').click();
    expect(copied).toEqual(['df_view = df  # {}']);
    get<HTMLButtonElement>('insert').click();
    await flush();
    expect(inserted).toEqual(['df_view = df  # {}']);
    expect(get('status').textContent).toBe('Inserted in analysis.ipynb');
    syntax.value = 'polars';
    syntax.dispatchEvent(new Event('change'));
    await flush();
    expect(queries.at(-1)).toEqual({ syntax: 'polars' });
    panel.dispose();
  });

  it('follows the view, and shows the server refusing a syntax', async () => {
    jest.useFakeTimers();
    try {
      const model = makeModel(new FakeTable(100, 3));
      await model.load();
      const { answers, queries, fetch } = setup();
      const panel = new CodePanel({
        model,
        fetch,
        trans,
        insert: async () => null
      });
      Widget.attach(panel, document.body);
      await flush();
      model.setSort([{ column: 'c2', direction: 'desc' }]);
      jest.advanceTimersByTime(300);
      await flush();
      expect(queries.at(-1)).toEqual({ sort: 'c2:desc' });
      answers.push(responseError(400, 'dplyr does not fit a pandas DataFrame'));
      model.setSort(null);
      jest.advanceTimersByTime(300);
      await flush();
      const text = panel.node.querySelector(
        '[data-test-id="kernel-state-explorer-code-text"]'
      )!;
      expect(text.textContent).toBe('dplyr does not fit a pandas DataFrame');
      expect(
        (
          panel.node.querySelector(
            '[data-test-id="kernel-state-explorer-code-insert"]'
          ) as HTMLButtonElement
        ).disabled
      ).toBe(true);
      panel.dispose();
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('code into a notebook', () => {
  it('inserts a code cell below the active cell, and makes it active', () => {
    const notebook = NBTestUtils.createNotebook();
    notebook.model = new NotebookModel();
    NBTestUtils.populateNotebook(notebook);
    const count = notebook.widgets.length;
    notebook.activeCellIndex = 1;
    const index = insertCodeBelow(
      notebook,
      'sales_view = sales[sales["price"] >= 10]'
    );
    expect(index).toBe(2);
    expect(notebook.widgets.length).toBe(count + 1);
    expect(notebook.activeCellIndex).toBe(2);
    const cell = notebook.widgets[2];
    expect(cell.model.type).toBe('code');
    expect(cell.model.sharedModel.getSource()).toBe(
      'sales_view = sales[sales["price"] >= 10]'
    );
    notebook.dispose();
  });

  it('names the table a cell shows when its last expression is a bare name', () => {
    expect(lastExpressionName('import pandas as pd\ndf = load()\ndf')).toBe(
      'df'
    );
    expect(lastExpressionName('df  # the sales\n\n')).toBe('df');
    expect(lastExpressionName('df.head()')).toBeNull();
    expect(lastExpressionName('for x in y:\n    df')).toBeNull();
    expect(lastExpressionName('sales.df')).toBe('sales.df'); // an R name
    expect(lastExpressionName('None')).toBeNull();
    const table = {
      output_type: 'execute_result',
      execution_count: 3,
      metadata: {},
      data: {
        'text/html': '<div><table border="1" class="dataframe">…</table></div>',
        'text/plain': '   a\n0  1'
      }
    };
    expect(isTableOutput(table)).toBe(true);
    expect(isTableOutput({ ...table, data: { 'text/plain': '[1, 2]' } })).toBe(
      false
    );
    expect(
      isTableOutput({ output_type: 'stream', name: 'stdout', text: 'x' })
    ).toBe(false);
    const cell = new CodeCellModel();
    cell.sharedModel.setSource('df = make()\ndf');
    expect(tableNameOfCell(cell)).toBeNull(); // no table shown yet
    cell.outputs.add(table);
    expect(tableNameOfCell(cell)).toBe('df');
    cell.sharedModel.setSource('df.describe()');
    expect(tableNameOfCell(cell)).toBeNull();
  });
});
