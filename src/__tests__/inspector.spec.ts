import { InspectorModel } from '../models/inspector';
import { IVariableDetail } from '../tokens';
import {
  fakeService,
  makeDetail,
  makeSnapshot,
  makeVariable,
  sleep
} from './helpers';

function setup() {
  const service = fakeService();
  service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
  service.model.setSnapshot(
    makeSnapshot({ variables: [makeVariable('x'), makeVariable('y')] })
  );
  const model = new InspectorModel({ service });
  let changes = 0;
  model.changed.connect(() => changes++);
  return { service, model, changes: () => changes };
}

describe('InspectorModel', () => {
  it('loads the selected variable, with loading state and signals', async () => {
    const { service, model, changes } = setup();
    service.inspect.mockResolvedValue(makeDetail('x'));
    expect(model.selected).toBeNull();
    expect(model.crumbs).toEqual([]);
    const done = model.select('x');
    expect(model.loading).toBe(true);
    expect(model.selected).toBe('x');
    await done;
    expect(service.inspect).toHaveBeenCalledWith('x', []);
    expect(model.loading).toBe(false);
    expect(model.detail?.name).toBe('x');
    expect(model.atTop).toBe(true);
    expect(model.crumbs).toEqual(['x']);
    // loading, loaded — and the name's timeline, asked beside the detail
    expect(service.timeline).toHaveBeenCalledWith('x', 20);
    expect(changes()).toBe(3);
    await model.select('x');
    expect(service.inspect).toHaveBeenCalledTimes(1);
    model.dispose();
  });

  it('drills into children and back through the breadcrumb', async () => {
    const { service, model } = setup();
    service.inspect.mockResolvedValue(makeDetail('x'));
    await model.select('x');
    await model.drill({
      access_key: 'a',
      label: "['a']",
      type: 'list',
      preview: ''
    });
    await model.drill({
      access_key: 0,
      label: '[0]',
      type: 'int',
      preview: ''
    });
    expect(service.inspect).toHaveBeenLastCalledWith('x', ['a', 0]);
    expect(model.crumbs).toEqual(['x', "['a']", '[0]']);
    expect(model.atTop).toBe(false);
    await model.crumb(1);
    expect(service.inspect).toHaveBeenLastCalledWith('x', ['a']);
    expect(model.path.map(step => step.label)).toEqual(["['a']"]);
    await model.crumb(0);
    expect(service.inspect).toHaveBeenLastCalledWith('x', []);
    expect(model.atTop).toBe(true);
    model.dispose();
  });

  it('keeps only the last answer and shows the server error', async () => {
    const { service, model } = setup();
    let release: (detail: IVariableDetail) => void = () => undefined;
    service.inspect
      .mockImplementationOnce(
        () => new Promise<IVariableDetail>(resolve => (release = resolve))
      )
      .mockRejectedValueOnce(new Error('no such variable'));
    const first = model.select('x');
    const second = model.select('y');
    release(makeDetail('x'));
    await Promise.all([first, second]);
    expect(model.detail).toBeNull();
    expect(model.error).toBe('no such variable');
    expect(model.loading).toBe(false);
    model.close();
    expect(model.selected).toBeNull();
    expect(model.error).toBeNull();
    model.dispose();
  });

  it('reloads a changed variable and closes a removed one on a new generation', async () => {
    const { service, model } = setup();
    service.inspect.mockResolvedValue(makeDetail('x'));
    await model.select('x');
    service.model.setSnapshot(
      makeSnapshot({
        generation: 2,
        variables: [makeVariable('x'), makeVariable('y')]
      })
    );
    await sleep(1);
    expect(service.inspect).toHaveBeenCalledTimes(1);
    service.model.setSnapshot(
      makeSnapshot({
        generation: 3,
        variables: [makeVariable('x', { change: 'modified' })]
      })
    );
    await sleep(1);
    expect(service.inspect).toHaveBeenCalledTimes(2);
    // Beyond the loaded page: kept open.
    service.model.setSnapshot(
      makeSnapshot({ generation: 4, variables: [makeVariable('y')], total: 3 })
    );
    expect(model.selected).toBe('x');
    service.model.setSnapshot(
      makeSnapshot({ generation: 5, variables: [makeVariable('y')] })
    );
    expect(model.selected).toBeNull();
    expect(model.detail).toBeNull();
    model.dispose();
  });

  it('saves and clears the note of the shown variable', async () => {
    const { service, model } = setup();
    service.inspect.mockResolvedValue(makeDetail('x'));
    service.annotate.mockResolvedValue({
      name: 'x',
      description: 'the answer',
      constraints: 'positive',
      hidden_from_prompt: false,
      updated_at: ''
    });
    service.clearAnnotation.mockResolvedValue(undefined);
    await model.select('x');
    expect(model.annotated).toBe(false);
    await model.annotate({
      description: 'the answer',
      constraints: 'positive'
    });
    expect(service.annotate).toHaveBeenCalledWith('x', {
      description: 'the answer',
      constraints: 'positive'
    });
    expect(model.detail?.description).toBe('the answer');
    expect(model.annotated).toBe(true);
    await model.clearAnnotation();
    expect(service.clearAnnotation).toHaveBeenCalledWith('x');
    expect(model.detail?.description).toBeNull();
    expect(model.annotated).toBe(false);
    service.annotate.mockRejectedValueOnce(new Error('too long'));
    await expect(model.annotate({ description: 'z' })).rejects.toThrow(
      'too long'
    );
    model.dispose();
  });

  it('dispose clears its signals and stops following the service', async () => {
    const { service, model, changes } = setup();
    service.inspect.mockResolvedValue(makeDetail('x'));
    await model.select('x');
    const before = changes();
    model.dispose();
    expect(model.isDisposed).toBe(true);
    service.model.setSnapshot(makeSnapshot({ generation: 9, variables: [] }));
    model.close();
    expect(changes()).toBe(before);
    expect(service.inspect).toHaveBeenCalledTimes(1);
  });
});
