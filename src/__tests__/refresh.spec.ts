import { RefreshScheduler } from '../refresh';
import { sleep } from './helpers';

function setup(options: Partial<RefreshScheduler.IOptions> = {}) {
  const tokens: number[] = [];
  let release: () => void = () => undefined;
  const fetch = jest.fn(
    (token: number) =>
      new Promise<void>(resolve => {
        tokens.push(token);
        release = resolve;
      })
  );
  const scheduler = new RefreshScheduler({
    fetch,
    debounce: 5,
    busyDelay: 20,
    maxRetries: 2,
    ...options
  });
  return { scheduler, fetch, tokens, release: () => release() };
}

describe('RefreshScheduler', () => {
  it('requests nothing while hidden, and at once when shown', async () => {
    const { scheduler, fetch, release } = setup();
    scheduler.schedule(0);
    await scheduler.run();
    await sleep(10);
    expect(fetch).not.toHaveBeenCalled();
    scheduler.setVisible(true);
    expect(fetch).toHaveBeenCalledTimes(1);
    release();
    scheduler.dispose();
  });

  it('coalesces overlapping requests into one more', async () => {
    const { scheduler, fetch, release } = setup();
    scheduler.setVisible(true);
    void scheduler.run();
    void scheduler.run();
    void scheduler.run();
    expect(fetch).toHaveBeenCalledTimes(1);
    release();
    await sleep(1);
    expect(fetch).toHaveBeenCalledTimes(2);
    release();
    await sleep(1);
    expect(fetch).toHaveBeenCalledTimes(2);
    scheduler.dispose();
  });

  it('debounces, and asks once for a long run while it still runs', async () => {
    const { scheduler, fetch, release } = setup();
    scheduler.setVisible(true);
    release();
    await sleep(1);
    scheduler.schedule();
    scheduler.schedule();
    await sleep(15);
    expect(fetch).toHaveBeenCalledTimes(2);
    release();
    let running = true;
    scheduler.scheduleBusy(() => running);
    await sleep(30);
    expect(fetch).toHaveBeenCalledTimes(3);
    release();
    running = false;
    scheduler.scheduleBusy(() => running);
    await sleep(30);
    expect(fetch).toHaveBeenCalledTimes(3);
    scheduler.dispose();
  });

  it('retries with backoff, bounded, and is not ready without a kernel', async () => {
    let ready = true;
    const { scheduler, fetch, release } = setup({ ready: () => ready });
    scheduler.setVisible(true);
    release();
    expect(scheduler.retry(0)).toBe(true);
    await sleep(300);
    expect(fetch).toHaveBeenCalledTimes(2);
    release();
    expect(scheduler.retry(0)).toBe(true);
    expect(scheduler.retry(0)).toBe(false);
    scheduler.resetAttempts();
    scheduler.cancel();
    ready = false;
    await scheduler.refresh();
    expect(fetch).toHaveBeenCalledTimes(2);
    scheduler.dispose();
  });

  it('moves the token on invalidate, so late answers are dropped', () => {
    const { scheduler, tokens, release } = setup();
    scheduler.setVisible(true);
    const first = tokens[0];
    expect(scheduler.isCurrent(first)).toBe(true);
    scheduler.invalidate();
    expect(scheduler.isCurrent(first)).toBe(false);
    expect(scheduler.isCurrent(scheduler.token)).toBe(true);
    release();
    scheduler.dispose();
    expect(scheduler.isCurrent(scheduler.token)).toBe(false);
  });
});
