/**
 * The cloudg server extension's REST API under `{base_url}cloudg/api/` (the contract of
 * issue 38): typed bodies and one request function. Requests go through JupyterLab's
 * `ServerConnection.makeRequest`, which adds the XSRF header and the server token; no kernel
 * is involved. A non-2xx answer becomes an `ApiError` carrying the server's own message.
 */

import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

/** One assistant credential as `GET cloudg/api/assistants` lists it (never a token). */
export interface IAssistant {
  name: string;
  principal?: string;
  client: string;
  profile: string;
  created: string;
  last_used: string | null;
  sessions: number;
  hint?: string;
  token_hint?: string;
}

/** An MCP client's OAuth request to connect, waiting for the analyst's consent
 * (`GET cloudg/api/oauth/requests`); `page` is the consent page that answers it. */
export interface IConnectionRequest {
  id: string;
  client: string;
  redirect_host: string;
  expires_in: number;
  page: string;
}

export interface IConnectionsReply {
  requests: IConnectionRequest[];
}

/** A client the Connect form offers. */
export interface IClientChoice {
  id: string;
  label: string;
}

export interface IAssistantsReply {
  assistants: IAssistant[];
  endpoint: string;
  clients?: IClientChoice[];
  profiles?: string[];
  default_profile?: string | null;
}

/** `POST cloudg/api/assistants`: the one answer that holds a token. */
export interface IMintReply {
  token: string;
  assistant: IAssistant;
  replaced: boolean;
  endpoint: string;
  config?: string;
  config_path?: string | null;
}

/** One line of what a waiting call will do (the faithful effect view). */
export interface IEffect {
  text?: string;
  effect?: string;
  changes_others_data?: boolean;
  [key: string]: unknown;
}

export type ApprovalState = 'pending' | 'approved' | 'denied' | 'expired' | 'cancelled';

/** An approval as `Approval.public()` gives it. */
export interface IApproval {
  id: string;
  principal: string;
  tool: string;
  summary: string | null;
  effects: IEffect[];
  arguments?: unknown;
  state: ApprovalState;
  created: string;
  timeout_seconds: number;
  expires_in: number;
  decided_by: string | null;
  reason: string | null;
  url?: string | null;
  decided_at?: string | null;
}

export interface IApprovalsReply {
  pending: IApproval[];
  recent: IApproval[];
}

/** One finished call of the activity feed, or (outcome `waiting`) one waiting call. */
export interface IActivityEntry {
  seq: number;
  time: string;
  principal: string;
  assistant: boolean;
  kind: string;
  name: string;
  outcome: string;
  duration_ms: number | null;
  redacted: number;
  approval: string | null;
  error_code: string | number | null;
  /** The approval a waiting call waits for. */
  approval_id?: string;
  id?: string;
}

export interface IActivityReply {
  entries: IActivityEntry[];
  seq: number;
  waiting: IActivityEntry[];
}

/** A refused or failed request: the server's message (it says what to do), and the status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The path of the API, under the server's base URL. */
export const API_PATH = 'cloudg/api';

/**
 * Send one request to `cloudg/api/<path>` and parse its JSON answer.
 *
 * The server's `{"message": ...}` becomes the error's message; a network failure says that
 * the Jupyter server could not be reached.
 */
export async function requestAPI<T>(
  path: string,
  init: RequestInit = {},
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<T> {
  const url = URLExt.join(settings.baseUrl, API_PATH, path);
  const headers = new Headers(init.headers);
  if (init.body !== undefined && !headers.has('Content-Type')) {
    headers.set('Content-Type', 'application/json');
  }
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(
      url,
      { cache: 'no-store', ...init, headers },
      settings
    );
  } catch (error) {
    throw new ApiError(
      0,
      'The Jupyter server did not answer; check that it still runs, then reload the page.'
    );
  }
  const text = await response.text();
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }
  if (!response.ok) {
    throw new ApiError(response.status, errorMessage(response.status, body));
  }
  return body as T;
}

function errorMessage(status: number, body: unknown): string {
  const message =
    body && typeof body === 'object' ? (body as { message?: unknown }).message : undefined;
  if (typeof message === 'string' && message) {
    return message;
  }
  if (status === 404) {
    return 'This Jupyter server does not offer that part of cloudg (is the cloudg_jupyter server extension enabled and up to date?).';
  }
  if (status === 403) {
    return 'Only the analyst who owns this Jupyter server may do that.';
  }
  return `The cloudg server extension answered ${status}; its log says why.`;
}

/** JSON body for a POST. */
export function jsonBody(method: string, value: unknown): RequestInit {
  return { method, body: JSON.stringify(value) };
}
