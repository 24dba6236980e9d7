/**
 * `@var:` and `@kernel` in a real jupyterlab-chat chat (Jupyter AI v3's chat): the
 * completion lists the kernel's variables, and the sent message carries their cards —
 * what the assistant gets — with likely secrets masked. And JupyterLab without
 * jupyterlab-chat still loads the extension.
 */
import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import { Locator } from '@playwright/test';

import { openPanel, row, run } from './helpers';

const NOTEBOOK = 'chat-demo.ipynb';
const CHAT = 'kernel-state.chat';
/**
 * The secret is built in the kernel, so its whole value is nowhere in the page unless
 * something shows it.
 */
const SECRET = 'sk-demo-abcdefghijklmnopqrstuv';
const DEMO = [
  'import pandas as pd, numpy as np',
  "sales = pd.DataFrame({c: np.arange(100000) for c in 'abcdefgh'})",
  "api_key = 'sk-demo-' + 'abcdefghijklmnopqrstuv'"
].join('\n');

/**
 * Open the chat file `path` in the main area; resolves with its panel.
 */
async function openChat(
  page: IJupyterLabPageFixture,
  path: string
): Promise<Locator> {
  await page.filebrowser.contents.uploadContent('{}', 'text', path);
  await page.evaluate(async filepath => {
    await window.jupyterapp.commands.execute('jupyterlab-chat:open', {
      filepath
    });
  }, path);
  const name = path.split('/').pop()!;
  await page.waitForCondition(() => page.activity.isTabActive(name));
  return (await page.activity.getPanelLocator(name))!;
}

function chatInput(chat: Locator): Locator {
  return chat.locator('.jp-chat-input-container').getByRole('combobox');
}

/**
 * Send what the input holds with the send button.
 */
async function send(chat: Locator): Promise<void> {
  await chat
    .locator('.jp-chat-input-container')
    .getByRole('button', { name: /^Send message/ })
    .click();
}

function sentMessage(chat: Locator, text: string): Locator {
  return chat.locator('.jp-chat-rendered-message').filter({ hasText: text });
}

/**
 * The message bodies stored in the chat file: what an assistant reads.
 */
async function storedBodies(
  page: IJupyterLabPageFixture,
  path: string
): Promise<string[]> {
  const response = await page.request.get(
    `/api/contents/${encodeURI(path)}?content=1&type=file&format=text`
  );
  expect(response.ok()).toBe(true);
  const model = await response.json();
  const chat = JSON.parse(model.content) as { messages?: { body: string }[] };
  return (chat.messages ?? []).map(message => message.body);
}

test.describe('@var: and @kernel in jupyterlab-chat', () => {
  test.beforeEach(async ({ page }) => {
    await page.notebook.createNew(NOTEBOOK, { kernel: 'python3' });
    await run(page, 0, DEMO);
    // The sidebar sees the variables: the kernel has run the cell.
    const panel = await openPanel(page);
    await expect(row(panel, 'sales')).toBeVisible();
  });

  test('completes @var:sa with sales and sends its card', async ({
    page,
    tmpPath
  }) => {
    const path = `${tmpPath}/${CHAT}`;
    const chat = await openChat(page, path);
    const input = chatInput(chat);
    await input.pressSequentially('How many rows has @var:sa');

    const option = page.getByRole('option').filter({ hasText: 'sales' });
    await expect(option).toBeVisible();
    await expect(option).toContainText('DataFrame 100,000×8');
    await option.click();
    await expect(input).toContainText('@var:sales');

    await send(chat);
    const message = sentMessage(chat, '@var:sales — kernel state of');
    await expect(message).toBeVisible();
    await expect(message).toContainText(
      `kernel state of ${tmpPath}/${NOTEBOOK}`
    );
    await expect(message).toContainText('sales: DataFrame 100,000×8, 6.1 MiB');
    await expect(message).toContainText(
      'columns (8): a:int64, b:int64, c:int64, d:int64, e:int64, f:int64, g:int64, h:int64'
    );
    // The card is a code block, not rendered markdown.
    await expect(message.locator('pre')).toContainText('preview: 100,000×8');

    const bodies = await storedBodies(page, path);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toMatch(/^How many rows has `@var:sales`/);
    expect(bodies[0]).toContain('columns (8): a:int64');
  });

  test('masks a likely secret, says what is missing, attaches @kernel', async ({
    page,
    tmpPath
  }) => {
    const path = `${tmpPath}/${CHAT}`;
    const chat = await openChat(page, path);
    const input = chatInput(chat);
    // The trailing space closes the completion menu, so the button sends as typed.
    await input.pressSequentially(
      'Use @var:api_key with @var:nope and @kernel '
    );
    await send(chat);

    const message = sentMessage(chat, '@var:api_key — kernel state of');
    await expect(message).toBeVisible();
    await expect(message).toContainText(
      'value: masked — its name looks like a credential; not revealed'
    );
    await expect(message).toContainText(
      `Variable not found in kernel ${tmpPath}/${NOTEBOOK}: nope`
    );
    await expect(message).toContainText('Kernel state — python.');
    await expect(message).toContainText('- sales: DataFrame 100,000×8');

    await expect(page.locator('body')).not.toContainText(SECRET);
    const bodies = await storedBodies(page, path);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).not.toContain(SECRET);
    expect(bodies[0]).toContain('api_key: str, 30 chars');
  });
});

test.describe('without jupyterlab-chat', () => {
  test.use({ autoGoto: false });

  test('the extension loads and its chat plugin stands by', async ({
    page
  }) => {
    const errors: string[] = [];
    page.on('console', message => {
      if (message.type() === 'error') {
        errors.push(message.text());
      }
    });
    // Serve JupyterLab as if jupyterlab-chat were not installed: no federated extension
    // that provides or needs `@jupyter/chat` (jupyterlab-chat, Jupyter AI's, and
    // jupyterlab-commands-toolkit, which bundles a copy), ours apart.
    const dropped: string[] = [];
    await page.route(
      url => /\/lab\/?((tree|workspaces)\/.*)?$/.test(url.pathname),
      async route => {
        if (route.request().resourceType() !== 'document') {
          return route.fallback();
        }
        const response = await route.fetch();
        const html = await response.text();
        const pattern =
          /(<script id="jupyter-config-data" type="application\/json">)(.*?)(<\/script>)/s;
        const config = JSON.parse(html.match(pattern)![2]);
        const kept = [];
        for (const extension of config.federated_extensions) {
          if (
            extension.name !== 'jupyter-kernel-state' &&
            (await usesChat(page, extension.name))
          ) {
            dropped.push(extension.name);
          } else {
            kept.push(extension);
          }
        }
        config.federated_extensions = kept;
        await route.fulfill({
          response,
          body: html.replace(
            pattern,
            (_, open: string, __: string, close: string) =>
              `${open}${JSON.stringify(config)}${close}`
          )
        });
      }
    );
    await page.goto();
    expect(dropped).toEqual(
      expect.arrayContaining([
        'jupyterlab-chat-extension',
        'jupyterlab-commands-toolkit'
      ])
    );

    const state = await page.evaluate(async () => {
      const app = window.jupyterapp;
      return {
        chat: app.hasPlugin('jupyterlab-chat-extension:chatCommandRegistry'),
        service: app.isPluginActivated('jupyter-kernel-state:service'),
        plugin: app.isPluginActivated('jupyter-kernel-state:chat')
      };
    });
    expect(state).toEqual({ chat: false, service: true, plugin: true });
    await openPanel(page);
    expect(errors.filter(text => /kernel.state/i.test(text))).toEqual([]);
  });
});

/**
 * Whether a federated extension provides or consumes `@jupyter/chat`.
 */
async function usesChat(
  page: IJupyterLabPageFixture,
  name: string
): Promise<boolean> {
  const response = await page.request.get(
    `/lab/extensions/${name}/package.json`
  );
  if (!response.ok()) {
    return false;
  }
  const data = await response.json();
  return (
    '@jupyter/chat' in
    {
      ...data.dependencies,
      ...data.jupyterlab?.sharedPackages
    }
  );
}
