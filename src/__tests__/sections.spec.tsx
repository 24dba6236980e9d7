import { nullTranslator } from '@jupyterlab/translation';
import * as React from 'react';

import { AnnotationEditor } from '../components/AnnotationEditor';
import { AssistantView } from '../components/AssistantView';
import { CollapsibleSection } from '../components/CollapsibleSection';
import { ImageStrip, ImageView } from '../components/ImageStrip';
import { IImageItem } from '../models/images';
import { makeImage, makePrompt } from './helpers';
import { host, render, useReactHost } from './react';

const trans = nullTranslator.load('jupyter_kernel_state');
const HOSTILE = '<img src=x onerror=alert(1)>';

useReactHost();

const byTestId = (id: string) =>
  host.querySelector<HTMLElement>(`[data-test-id="${id}"]`);
const allByTestId = (id: string) => [
  ...host.querySelectorAll<HTMLElement>(`[data-test-id="${id}"]`)
];

function item(seq: number, extra: Partial<IImageItem> = {}): IImageItem {
  return { image: makeImage(seq), url: `blob:${seq}`, error: null, ...extra };
}

describe('ImageStrip', () => {
  it('renders the items in order, labelled with their execution count', () => {
    const onOpen = jest.fn();
    const items = [
      item(3),
      item(2, { image: makeImage(2, { execution_count: null }) }),
      item(1)
    ];
    render(
      <ImageStrip
        items={items}
        dropped={0}
        rejected={0}
        error={null}
        onOpen={onOpen}
        trans={trans}
      />
    );
    const thumbs = allByTestId('kernel-state-image');
    expect(thumbs.map(t => t.dataset.executionCount)).toEqual(['3', '', '1']);
    expect(
      [...host.querySelectorAll('.jp-KernelState-thumbLabel')].map(
        l => l.textContent
      )
    ).toEqual(['#3 [3]', '#2 [?]', '#1 [1]']);
    const img = thumbs[0].querySelector('img')!;
    expect(img.getAttribute('src')).toBe('blob:3');
    expect(img.alt).toBe('Image from execution 3, image/png 640×480');
    expect(thumbs[0].getAttribute('aria-label')).toBe(
      'Open image #3 from execution 3 (image/png)'
    );
    React.act(() => thumbs[2].click());
    expect(onOpen).toHaveBeenCalledWith(items[2]);
    expect(byTestId('kernel-state-image-counters')).toBeNull();
  });

  it('shows a placeholder, the empty state and the counters', () => {
    render(
      <ImageStrip
        items={[item(1, { url: null, error: 'gone' })]}
        dropped={3}
        rejected={1}
        error={null}
        onOpen={jest.fn()}
        trans={trans}
      />
    );
    expect(byTestId('kernel-state-image')?.textContent).toBe('unavailable');
    expect(byTestId('kernel-state-image-counters')?.textContent).toBe(
      '3 older images dropped · 1 image rejected'
    );
    render(
      <ImageStrip
        items={[]}
        dropped={0}
        rejected={0}
        error={null}
        onOpen={jest.fn()}
        trans={trans}
      />
    );
    expect(byTestId('kernel-state-images-empty')).not.toBeNull();
  });

  it('offers the bytes for download in the larger view', () => {
    const image = makeImage(4, {
      mime: 'image/svg+xml',
      width: null,
      height: null
    });
    render(
      <ImageView item={{ image, url: 'blob:4', error: null }} trans={trans} />
    );
    const view = byTestId('kernel-state-image-view')!;
    expect(view.querySelector('img')?.getAttribute('src')).toBe('blob:4');
    expect(view.querySelector('svg script')).toBeNull();
    const link = byTestId('kernel-state-image-download') as HTMLAnchorElement;
    expect(link.getAttribute('href')).toBe('blob:4');
    expect(link.getAttribute('download')).toBe(
      `kernel-state-4-${image.id}.svg`
    );
    expect(view.textContent).toContain('[4] · image/svg+xml · 100 B');
  });
});

describe('AssistantView', () => {
  it('shows the text as text, its size and counts, and copies it', () => {
    const onCopy = jest.fn();
    const text = `Kernel state — python\n- s: str — '${HOSTILE}'`;
    const result = makePrompt({
      text,
      chars: 1619,
      tokens_estimate: 405,
      variables_included: 12,
      variables_omitted: 300,
      variables_hidden: 1
    });
    render(
      <AssistantView
        result={result}
        error={null}
        loading={false}
        budget={6000}
        onCopy={onCopy}
        trans={trans}
      />
    );
    expect(byTestId('kernel-state-prompt-size')?.textContent).toBe(
      '1,619 characters · ~405 tokens'
    );
    expect(host.textContent).toContain(
      '12 variables included · 300 omitted · 1 hidden'
    );
    const pre = byTestId('kernel-state-prompt-text')!;
    expect(pre.tagName).toBe('PRE');
    expect(pre.textContent).toBe(text);
    expect(pre.querySelector('img')).toBeNull();
    const copy = byTestId('kernel-state-prompt-copy')!;
    React.act(() => copy.click());
    expect(onCopy).toHaveBeenCalledWith(text);
    expect(copy.textContent).toBe('Copied');
  });

  it('shows the server message when the prompt cannot be built', () => {
    render(
      <AssistantView
        result={null}
        error="Only Python kernels are supported"
        loading={false}
        budget={6000}
        onCopy={jest.fn()}
        trans={trans}
      />
    );
    expect(host.querySelector('[role="alert"]')?.textContent).toBe(
      'Only Python kernels are supported'
    );
    expect(byTestId('kernel-state-prompt-copy')).toBeNull();
  });
});

describe('CollapsibleSection', () => {
  it('folds its body and says so to assistive technology', () => {
    const onToggle = jest.fn();
    render(
      <CollapsibleSection
        testId="s"
        title="Images"
        aside="2"
        expanded={false}
        onToggle={onToggle}
      >
        <div className="body" />
      </CollapsibleSection>
    );
    const toggle = host.querySelector<HTMLButtonElement>(
      '.jp-KernelState-foldToggle'
    )!;
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(host.querySelector('.body')).toBeNull();
    React.act(() => toggle.click());
    expect(onToggle).toHaveBeenCalled();
    render(
      <CollapsibleSection
        testId="s"
        title="Images"
        expanded={true}
        onToggle={onToggle}
      >
        <div className="body" />
      </CollapsibleSection>
    );
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const body = host.querySelector('.body')!.parentElement!;
    expect(toggle.getAttribute('aria-controls')).toBe(body.id);
  });
});

describe('AnnotationEditor', () => {
  function setValue(element: HTMLTextAreaElement, value: string): void {
    const setter = Object.getOwnPropertyDescriptor(
      HTMLTextAreaElement.prototype,
      'value'
    )!.set!;
    setter.call(element, value);
    element.dispatchEvent(new Event('input', { bubbles: true }));
  }

  function editor(
    extra: Partial<React.ComponentProps<typeof AnnotationEditor>> = {}
  ) {
    return (
      <AnnotationEditor
        name="sales"
        description={null}
        constraints={null}
        hidden={false}
        onSave={jest.fn(async () => undefined)}
        onClear={jest.fn(async () => undefined)}
        trans={trans}
        {...extra}
      />
    );
  }

  it('saves the fields as the PUT body', async () => {
    const onSave = jest.fn(async () => undefined);
    render(editor({ onSave }));
    const [description, constraints] = [...host.querySelectorAll('textarea')];
    expect(description.maxLength).toBe(2000);
    const save = byTestId('kernel-state-annotation-save') as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    React.act(() => {
      setValue(description, '  raw export ');
      setValue(constraints, '');
    });
    const hide = host.querySelector<HTMLInputElement>(
      'input[type="checkbox"]'
    )!;
    React.act(() => hide.click());
    await React.act(async () => save.click());
    expect(onSave).toHaveBeenCalledWith({
      description: 'raw export',
      constraints: null,
      hidden_from_prompt: true
    });
    expect(byTestId('kernel-state-annotation-status')?.textContent).toBe(
      'Saved'
    );
  });

  it('shows the server message when the note is refused', async () => {
    const onSave = jest.fn(async () => {
      throw new Error('description is longer than 2000 characters');
    });
    render(editor({ onSave }));
    React.act(() => setValue(host.querySelector('textarea')!, 'x'));
    await React.act(async () =>
      byTestId('kernel-state-annotation-save')!.click()
    );
    const status = byTestId('kernel-state-annotation-status')!;
    expect(status.getAttribute('role')).toBe('alert');
    expect(status.textContent).toBe(
      'description is longer than 2000 characters'
    );
  });

  it('clears a stored note, and saves with Ctrl+Enter', async () => {
    const onClear = jest.fn(async () => undefined);
    const onSave = jest.fn(async () => undefined);
    render(editor({ description: 'old', onClear, onSave }));
    const textarea = host.querySelector('textarea')!;
    expect(textarea.value).toBe('old');
    const clear = byTestId(
      'kernel-state-annotation-clear'
    ) as HTMLButtonElement;
    expect(clear.disabled).toBe(false);
    await React.act(async () => clear.click());
    expect(onClear).toHaveBeenCalled();
    expect(textarea.value).toBe('');
    React.act(() => setValue(textarea, 'new'));
    await React.act(async () => {
      textarea.dispatchEvent(
        new KeyboardEvent('keydown', {
          key: 'Enter',
          ctrlKey: true,
          bubbles: true
        })
      );
    });
    expect(onSave).toHaveBeenCalledWith({
      description: 'new',
      constraints: null,
      hidden_from_prompt: false
    });

    render(editor({ name: 'other' }));
    expect(
      (byTestId('kernel-state-annotation-clear') as HTMLButtonElement).disabled
    ).toBe(true);
  });
});
