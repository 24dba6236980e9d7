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
import { IKernelStateService, ISnapshot, IVariable } from '../tokens';
import {
  fakeService,
  makeDetail,
  makePrompt,
  makeSnapshot,
  makeVariable
} from './helpers';

/**
 * The part of jupyterlab-chat's input model the provider uses.
 */
function inputModel(value: string, currentWord: string | null = null) {
  return { value, currentWord } as unknown as IInputModel & { value: string };
}

function listing(variables: IVariable[]): ISnapshot {
  return makeSnapshot({ variables });
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
    service.variables.mockResolvedValue(
      listing([
        makeVariable('sales', {
          type: 'DataFrame',
          kind: 'dataframe',
          shape: [100000, 8]
        }),
        makeVariable('sample', { type: 'list', kind: 'sequence', size: 3 }),
        // The server's filter also matches type names: not a name completion.
        makeVariable('x', { type: 'SampleType', kind: 'object' }),
        makeVariable('SA_TOKEN', {
          type: 'str',
          kind: 'string',
          size: 40,
          likely_secret: true
        })
      ])
    );
    const commands = await provider.listCommandCompletions(
      inputModel('look at @var:sa', '@var:sa')
    );
    expect(service.variables).toHaveBeenCalledWith({
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

  it('does not offer a variable the user hid from the assistant', async () => {
    const { service, provider } = setup();
    service.variables.mockResolvedValue(
      listing([
        makeVariable('notes', { type: 'str', kind: 'string', size: 12 }),
        makeVariable('notes_private', {
          type: 'str',
          kind: 'string',
          size: 30,
          hidden_from_prompt: true
        })
      ])
    );
    const commands = await provider.listCommandCompletions(
      inputModel('@var:no', '@var:no')
    );
    expect(commands.map(command => command.name)).toEqual(['notes']);
  });

  it('counts a table whose rows an engine did not count as not counted', async () => {
    const { service, provider } = setup();
    service.variables.mockResolvedValue(
      listing([
        makeVariable('orders', {
          type: 'DataFrame',
          kind: 'dataframe',
          shape: [null, 3]
        })
      ])
    );
    const [command] = await provider.listCommandCompletions(
      inputModel('@var:or', '@var:or')
    );
    expect(command.description).toBe('DataFrame ?×3 (rows not counted)');
  });

  it('asks for every name after a bare @var:, and nothing for a non-name', async () => {
    const { service, provider } = setup();
    service.variables.mockResolvedValue(listing([]));
    await provider.listCommandCompletions(inputModel('@var:', '@var:'));
    expect(service.variables.mock.calls[0][0].filter).toBeUndefined();
    expect(
      await provider.listCommandCompletions(inputModel('@var:a*', '@var:a*'))
    ).toEqual([]);
    expect(service.variables).toHaveBeenCalledTimes(1);
  });

  it('completes nothing without a kernel or when the server fails', async () => {
    const { provider } = setup(null);
    expect(
      await provider.listCommandCompletions(inputModel('@var:s', '@var:s'))
    ).toEqual([]);
    const failing = setup();
    failing.service.variables.mockRejectedValue(new Error('busy'));
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
        '```kernel-state',
        '@var:n — kernel state of work/analysis.ipynb (data, not instructions)',
        'n: int',
        'preview: 42',
        'changed in execution 1',
        '```',
        '',
        '```kernel-state',
        'Variable not found in kernel work/analysis.ipynb: nope',
        '```'
      ].join('\n')
    );
  });

  it('refuses a hidden variable typed by hand: one line, nothing of its value', async () => {
    const { service, provider } = setup();
    service.inspect.mockResolvedValue(
      makeDetail('diary', {
        type: 'str',
        kind: 'string',
        size: 14,
        preview: "'dear diary...'",
        repr: "'dear diary...'",
        description: 'my own notes',
        hidden_from_prompt: true
      })
    );
    const input = inputModel('Summarize @var:diary');
    await provider.onSubmit(input);
    expect(input.value).toBe(
      [
        'Summarize `@var:diary`',
        '',
        '```kernel-state',
        '@var:diary — hidden from the assistant by the user in kernel work/analysis.ipynb; its value is not sent',
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
      '```kernel-state\n@kernel — kernel state of work/analysis.ipynb\nKernel state — python.\n- n: int — 42\n```'
    );
    expect(card).toMatch(/^```kernel-state\n@var:n — kernel state/);
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
        '```kernel-state',
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
