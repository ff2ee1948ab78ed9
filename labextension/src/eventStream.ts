/**
 * The cloudg events on JupyterLab's event bus (`app.serviceManager.events`, which reads
 * `/api/events/subscribe`): their schema ids, and whether the bus's websocket is open now.
 *
 * `@jupyterlab/services` does not say whether its event socket is connected, so
 * `streamOpen` reads the manager's private `_socket` (services 7.x). This is the one place
 * that does: when the field is absent (another version), the stream counts as open and the
 * fallback poll stays idle, which is what a working event bus needs.
 */

import type { Event } from '@jupyterlab/services';

/** `jupyter_events` schema ids the server extension emits (issue 38's contract). */
export const SCHEMA_APPROVALS = 'https://cloudg-nb.dev/events/approvals/v1';
export const SCHEMA_ACTIVITY = 'https://cloudg-nb.dev/events/activity/v1';
export const SCHEMA_ASSISTANTS = 'https://cloudg-nb.dev/events/assistants/v1';
/** An MCP client's OAuth connection request waits for consent, or was answered (issue 39). */
export const SCHEMA_CONNECTIONS = 'https://cloudg-nb.dev/events/connections/v1';

export const CLOUDG_SCHEMAS: ReadonlySet<string> = new Set([
  SCHEMA_APPROVALS,
  SCHEMA_ACTIVITY,
  SCHEMA_ASSISTANTS,
  SCHEMA_CONNECTIONS
]);

/** `approvals/v1`: one approval changed. */
export interface IApprovalEvent {
  action: 'requested' | 'decided' | 'expired' | 'cancelled';
  id: string;
  principal: string;
  tool: string;
  summary?: string | null;
  state: string;
  expires_in?: number;
  decided_by?: string | null;
  reason?: string | null;
  pending?: number;
}

/** `activity/v1`: the feed grew (coalesced, at most 4 a second). */
export interface IActivityEvent {
  seq: number;
  count: number;
  waiting: number;
}

/** `assistants/v1`: a credential was minted or revoked. */
export interface IAssistantsEvent {
  action: 'minted' | 'revoked';
  name: string;
}

/** `connections/v1`: a connection request changed. */
export interface IConnectionsEvent {
  action: 'requested' | 'allowed' | 'denied' | 'expired';
  id: string;
  client?: string;
  redirect_host?: string;
  pending: number;
}

const OPEN = 1; // WebSocket.OPEN

/** Whether the event manager's websocket is open (true when that cannot be told). */
export function streamOpen(manager: Event.IManager | null | undefined): boolean {
  if (!manager || manager.isDisposed) {
    return false;
  }
  const internals = manager as unknown as { _socket?: WebSocket | null };
  if (!('_socket' in internals)) {
    return true;
  }
  const socket = internals._socket;
  return !!socket && socket.readyState === OPEN;
}
