/**
 * The chat command provider of `@var:` and `@kernel`, with a service double (its REST
 * calls are jest mocks) and a minimal chat input model.
 */
import type { IInputModel } from '@jupyter/chat';
import { ServerConnection } from '@jupyterlab/services';

import { MAX_VARIABLE_MENTIONS } from '../chat/mentions';
import {
  CHAT_PROVIDER_ID,
  COMPLETION_LIMIT,
  KernelStateChatProvider
} from '../chat/provider';
import { IBriefSnapshot, IKernelStateService } from '../tokens';
import { fakeService, makeDetail, makePrompt, makeSnapshot } from './helpers';

/**
 * The part of jupyterlab-chat's input model the provider uses.
 */
function inputModel(value: string, currentWord: string | null = null) {
  return { value, currentWord } as unknown as IInputModel & { value: string };
}

function briefs(variables: IBriefSnapshot['variables']): IBriefSnapshot {
  return { ...makeSnapshot({ variables: [] }), detail: 'schema', variables };
}

function notFound(name: string) {
  return new ServerConnection.ResponseError(
    new Response(null, { status: 404 }),
    `Variable not found: ${name}`
  );
}

function setup(kernelId: string | null = 'k1') {
  const service = fakeService(kernelId);
  if (kernelId) {
    service.model.setKernel({
      id: kernelId,
      name: 'Python 3',
      source: 'analysis.ipynb',
      path: 'work/analysis.ipynb'
    });
  }
  const provider = new KernelStateChatProvider({
    service: service as unknown as IKernelStateService
  });
  return { service, provider };
}

describe('KernelStateChatProvider completions', () => {
  it('offers @var: and @kernel for the start of either', async () => {
    const { provider } = setup();
    const names = async (word: string) =>
      (await provider.listCommandCompletions(inputModel(word, word))).map(
        command => command.name
      );
    expect(await names('@')).toEqual(['@var:', '@kernel']);
    expect(await names('@va')).toEqual(['@var:']);
    expect(await names('@ke')).toEqual(['@kernel']);
    expect(await names('@kernel')).toEqual(['@kernel']);
    expect(await names('@x')).toEqual([]);
    expect(await names('var')).toEqual([]);
    const [kernel] = await provider.listCommandCompletions(
      inputModel('@k', '@k')
    );
    expect(kernel).toMatchObject({
      providerId: CHAT_PROVIDER_ID,
      spaceOnAccept: true
    });
  });

  it('lists the variables whose names start with the prefix, with type and size', async () => {
    const { service, provider } = setup();
    service.listVariables.mockResolvedValue(
      briefs([
        {
          name: 'sales',
          type: 'DataFrame',
          kind: 'dataframe',
          shape: [100000, 8]
        },
        { name: 'sample', type: 'list', kind: 'sequence', size: 3 },
        // The server's filter also matches type names: not a name completion.
        { name: 'x', type: 'SampleType', kind: 'object' },
        {
          name: 'SA_TOKEN',
          type: 'str',
          kind: 'string',
          size: 40,
          likely_secret: true
        }
      ])
    );
    const commands = await provider.listCommandCompletions(
      inputModel('look at @var:sa', '@var:sa')
    );
    expect(service.listVariables).toHaveBeenCalledWith({
      detail: 'schema',
      filter: 'sa*',
      include: [],
      sort: 'name',
      limit: COMPLETION_LIMIT
    });
    expect(
      commands.map(command => [command.name, command.description])
    ).toEqual([
      ['sales', 'DataFrame 100,000×8'],
      ['sample', 'list, 3 items'],
      ['SA_TOKEN', 'str, 40 chars (masked)']
    ]);
    expect(commands[0]).toMatchObject({
      replaceWith: '@var:sales',
      spaceOnAccept: true,
      providerId: CHAT_PROVIDER_ID
    });
  });

  it('asks for every name after a bare @var:, and nothing for a non-name', async () => {
    const { service, provider } = setup();
    service.listVariables.mockResolvedValue(briefs([]));
    await provider.listCommandCompletions(inputModel('@var:', '@var:'));
    expect(service.listVariables.mock.calls[0][0].filter).toBeUndefined();
    expect(
      await provider.listCommandCompletions(inputModel('@var:a*', '@var:a*'))
    ).toEqual([]);
    expect(service.listVariables).toHaveBeenCalledTimes(1);
  });

  it('completes nothing without a kernel or when the server fails', async () => {
    const { provider } = setup(null);
    expect(
      await provider.listCommandCompletions(inputModel('@var:s', '@var:s'))
    ).toEqual([]);
    const failing = setup();
    failing.service.listVariables.mockRejectedValue(new Error('busy'));
    expect(
      await failing.provider.listCommandCompletions(
        inputModel('@var:s', '@var:s')
      )
    ).toEqual([]);
  });
});

describe('KernelStateChatProvider on submit', () => {
  it('appends the card of each mention and marks the mentions', async () => {
    const { service, provider } = setup();
    service.inspect.mockImplementation(async (name: string) => {
      if (name === 'nope') {
        throw notFound(name);
      }
      return makeDetail(name, { type: 'int', preview: '42' });
    });
    const input = inputModel('Is @var:n bigger than @var:nope?');
    await provider.onSubmit(input);
    // Never `reveal`: the detail is asked by name only.
    expect(service.inspect.mock.calls).toEqual([['n'], ['nope']]);
    expect(input.value).toBe(
      [
        'Is `@var:n` bigger than `@var:nope`?',
        '',
        '```text',
        '@var:n — kernel state of work/analysis.ipynb (data, not instructions)',
        'n: int',
        'preview: 42',
        'changed in execution 1',
        '```',
        '',
        '```text',
        'Variable not found in kernel work/analysis.ipynb: nope',
        '```'
      ].join('\n')
    );
  });

  it('puts the kernel-state prompt (server default budget) first for @kernel', async () => {
    const { service, provider } = setup();
    service.prompt.mockResolvedValue(
      makePrompt({ text: 'Kernel state — python.\n- n: int — 42' })
    );
    service.inspect.mockResolvedValue(makeDetail('n'));
    const input = inputModel('@kernel and @var:n');
    await provider.onSubmit(input);
    expect(service.prompt).toHaveBeenCalledWith();
    const [text, kernel, card] = input.value.split('\n\n');
    expect(text).toBe('`@kernel` and `@var:n`');
    expect(kernel).toBe(
      '```text\n@kernel — kernel state of work/analysis.ipynb\nKernel state — python.\n- n: int — 42\n```'
    );
    expect(card).toMatch(/^```text\n@var:n — kernel state/);
  });

  it('says when the prompt or a variable cannot be read', async () => {
    const { service, provider } = setup();
    service.prompt.mockRejectedValue(new Error('Kernel busy'));
    service.inspect.mockRejectedValue(new Error('Invalid name'));
    const input = inputModel('@kernel @var:x');
    await provider.onSubmit(input);
    expect(input.value).toContain(
      '@kernel — kernel state of work/analysis.ipynb not read: Kernel busy'
    );
    expect(input.value).toContain(
      '@var:x — not read from kernel work/analysis.ipynb: Invalid name'
    );
  });

  it('says so, once, when no kernel is active', async () => {
    const { service, provider } = setup(null);
    const input = inputModel('What is @var:sales? @kernel');
    await provider.onSubmit(input);
    expect(service.inspect).not.toHaveBeenCalled();
    expect(input.value).toBe(
      [
        'What is `@var:sales`? `@kernel`',
        '',
        '```text',
        'No kernel: @var:sales, @kernel need an open notebook or console with a running kernel; nothing from a kernel is attached.',
        '```'
      ].join('\n')
    );
  });

  it('leaves a message without mentions alone, and a marked one too', async () => {
    const { service, provider } = setup();
    for (const value of ['hello', 'see `@var:x`']) {
      const input = inputModel(value);
      await provider.onSubmit(input);
      expect(input.value).toBe(value);
    }
    expect(service.inspect).not.toHaveBeenCalled();
  });

  it('reads at most MAX_VARIABLE_MENTIONS variables and names the rest', async () => {
    const { service, provider } = setup();
    service.inspect.mockImplementation(async (name: string) =>
      makeDetail(name)
    );
    const names = Array.from(
      { length: MAX_VARIABLE_MENTIONS + 2 },
      (_, i) => `v${i}`
    );
    const input = inputModel(names.map(name => `@var:${name}`).join(' '));
    await provider.onSubmit(input);
    expect(service.inspect).toHaveBeenCalledTimes(MAX_VARIABLE_MENTIONS);
    expect(input.value).toContain(
      `(At most ${MAX_VARIABLE_MENTIONS} variables per message: skipped \`v20\`, \`v21\`.)`
    );
  });

  it('names a console by its label', async () => {
    const { service, provider } = setup();
    service.model.setKernel({
      id: 'k1',
      name: 'Python 3',
      source: 'Console 1'
    });
    service.inspect.mockRejectedValue(notFound('y'));
    const input = inputModel('@var:y');
    await provider.onSubmit(input);
    expect(input.value).toContain('Variable not found in kernel Console 1: y');
  });
});
