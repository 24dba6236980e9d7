/**
 * What a failed request of the explorer says: its HTTP status, the server's message
 * and, for a busy kernel (503), the seconds to wait before asking again.
 */
import { ServerConnection } from '@jupyterlab/services';

/**
 * The HTTP status, server message and `Retry-After` seconds of a failed fetch.
 */
export function describeError(error: unknown): {
  status: number | null;
  message: string;
  retryAfter: number | null;
} {
  if (error instanceof ServerConnection.ResponseError) {
    const status = error.response.status;
    const header = error.response.headers.get('Retry-After');
    const seconds = header === null ? NaN : Number(header);
    return {
      status,
      message: error.message,
      retryAfter:
        status === 503 ? (Number.isFinite(seconds) ? seconds : 1) : null
    };
  }
  return {
    status: null,
    message: error instanceof Error ? error.message : String(error),
    retryAfter: null
  };
}
