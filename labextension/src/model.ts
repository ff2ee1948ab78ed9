/**
 * What the sidebar, the notifications and the status bar show, kept in one place: the
 * assistants, the approvals (pending and recent) and the activity feed of this Jupyter
 * server. Loaded by GET on start, then kept current by the cloudg events on JupyterLab's event
 * bus; a slow poll refreshes everything only while the bus's socket is not open (and once
 * when it opens again, for what it missed). Decisions, mints and revokes go to the server
 * directly. Refreshes of one part never overlap, and an answer that an event overtook is
 * dropped for a fresh one, so a late answer never brings back a decided approval.
 */

import type { Event, ServerConnection } from '@jupyterlab/services';
import type { IDisposable } from '@lumino/disposable';
import { Poll } from '@lumino/polling';
import { ISignal, Signal } from '@lumino/signaling';

import {
  ApiError,
  IActivityEntry,
  IActivityReply,
  IApproval,
  IApprovalsReply,
  IAssistant,
  IAssistantsReply,
  IClientChoice,
  IConnectionRequest,
  IConnectionsReply,
  IMintReply,
  jsonBody,
  requestAPI
} from './api';
import {
  CLOUDG_SCHEMAS,
  IActivityEvent,
  IApprovalEvent,
  SCHEMA_ACTIVITY,
  SCHEMA_APPROVALS,
  SCHEMA_ASSISTANTS,
  SCHEMA_CONNECTIONS,
  streamOpen
} from './eventStream';

/** The clients `cloudg-nb config --client` knows, for a server that does not list them. */
export const KNOWN_CLIENTS: IClientChoice[] = [
  { id: 'claude-code', label: 'Claude Code' },
  { id: 'cursor', label: 'Cursor' },
  { id: 'vscode', label: 'VS Code' },
  { id: 'claude-desktop', label: 'Claude Desktop' },
  { id: 'jupyter-ai', label: 'Jupyter AI' }
];

/** What a part says when the server does not serve its route (an older cloudg-nb). */
const MISSING: Record<Part, string> = {
  assistants:
    'This Jupyter server does not serve cloudg assistants: is the cloudg_jupyter server extension enabled?',
  approvals:
    'This cloudg server does not offer approvals to JupyterLab: update cloudg-nb on the server (pip install -U cloudg-nb) and restart Jupyter.',
  activity:
    'This cloudg server does not offer its activity feed to JupyterLab: update cloudg-nb on the server (pip install -U cloudg-nb) and restart Jupyter.',
  connections: ''
};

/** Entries of the activity feed kept in the page (the oldest go first). */
export const ACTIVITY_CAP = 5000;
/** Entries asked for per request (the server's maximum). */
export const ACTIVITY_PAGE = 2000;
/** The fallback poll, while the event socket is not open. */
export const FALLBACK_POLL_MS = 10_000;

/** A pending approval with the moment (page clock) it expires. */
export interface IPendingApproval extends IApproval {
  deadline: number;
  /** Known from an event only: its effects are still being fetched. */
  provisional?: boolean;
}

export type Part = 'assistants' | 'approvals' | 'activity' | 'connections';

/** A part's load state: `error` says why it could not be loaded (null: it was). */
export interface ILoadState {
  loaded: boolean;
  error: string | null;
}

/** One refresh at a time; a request during one runs once more after it. */
class Serial {
  constructor(private readonly _run: (overtaken: () => boolean) => Promise<void>) {}

  /** Mark what is loading now as out of date (an event changed the state it reads). */
  overtake(): void {
    this._generation++;
  }

  run(): Promise<void> {
    if (this._running) {
      this._again = true;
      return this._running;
    }
    this._running = (async () => {
      try {
        do {
          this._again = false;
          const generation = this._generation;
          await this._run(() => generation !== this._generation);
        } while (this._again);
      } finally {
        this._running = null;
      }
    })();
    return this._running;
  }

  private _generation = 0;
  private _again = false;
  private _running: Promise<void> | null = null;
}

export class CloudgModel implements IDisposable {
  constructor(options: CloudgModel.IOptions) {
    this._settings = options.serverSettings;
    this._events = options.events ?? null;
    this._assistantsLoad = new Serial(overtaken => this._loadAssistants(overtaken));
    this._approvalsLoad = new Serial(overtaken => this._loadApprovals(overtaken));
    this._activityLoad = new Serial(overtaken => this._loadActivity(overtaken));
    this._connectionsLoad = new Serial(overtaken => this._loadConnections(overtaken));
    this._poll = new Poll({
      auto: false,
      factory: () => this._pollTick(),
      frequency: { interval: options.pollInterval ?? FALLBACK_POLL_MS, backoff: false },
      name: 'cloudg-nb:fallback',
      standby: 'when-hidden'
    });
  }

  /** A part changed (its data or its load state). */
  get changed(): ISignal<this, Part> {
    return this._changed;
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  // -- state ---------------------------------------------------------------------------------

  get assistants(): readonly IAssistant[] {
    return this._assistants;
  }
  get endpoint(): string {
    return this._endpoint;
  }
  get clients(): readonly IClientChoice[] {
    return this._clients;
  }
  get profiles(): readonly string[] {
    return this._profiles;
  }
  get defaultProfile(): string | null {
    return this._defaultProfile;
  }
  /** MCP clients waiting for the analyst's consent to connect (OAuth). */
  get connections(): readonly IConnectionRequest[] {
    return this._connections;
  }
  get pending(): readonly IPendingApproval[] {
    return this._pending;
  }
  get recent(): readonly IApproval[] {
    return this._recent;
  }
  /** Finished calls, oldest first (at most `ACTIVITY_CAP`). */
  get activity(): readonly IActivityEntry[] {
    return this._activity;
  }
  /** Calls waiting for the analyst's decision now. */
  get waiting(): readonly IActivityEntry[] {
    return this._waiting;
  }
  /** How many finished calls arrived in all (also those the cap let go). */
  get activityTotal(): number {
    return this._activityTotal;
  }
  state(part: Part): ILoadState {
    return this._load[part];
  }
  /** Whether updates arrive over the event bus (false: the slow poll is on). */
  get live(): boolean {
    return this._wasOpen;
  }

  // -- start, events, poll -------------------------------------------------------------------

  /** Load everything and listen to the event bus. */
  async start(): Promise<void> {
    if (this._events) {
      this._events.stream.connect(this._onEvent, this);
    }
    await this.refreshAll();
    this._wasOpen = streamOpen(this._events);
    void this._poll.start();
  }

  refreshAll(): Promise<void> {
    return Promise.all([
      this._assistantsLoad.run(),
      this._approvalsLoad.run(),
      this._activityLoad.run(),
      this._connectionsLoad.run()
    ]).then(() => undefined);
  }

  refreshAssistants(): Promise<void> {
    return this._assistantsLoad.run();
  }
  refreshApprovals(): Promise<void> {
    return this._approvalsLoad.run();
  }
  refreshActivity(): Promise<void> {
    return this._activityLoad.run();
  }

  private async _pollTick(): Promise<void> {
    const open = streamOpen(this._events);
    const reopened = open && !this._wasOpen;
    this._wasOpen = open;
    if (!open || reopened) {
      await this.refreshAll();
    }
  }

  private _onEvent(_: Event.IManager, emission: Event.Emission): void {
    const schema = emission.schema_id;
    if (!CLOUDG_SCHEMAS.has(schema)) {
      return;
    }
    this._wasOpen = true;
    const data = emission as unknown as Record<string, unknown>;
    if (schema === SCHEMA_APPROVALS) {
      this._onApprovalEvent(data as unknown as IApprovalEvent);
    } else if (schema === SCHEMA_ACTIVITY) {
      const event = data as unknown as IActivityEvent;
      if (event.seq !== this._seq || event.waiting !== this._waiting.length) {
        this._activityLoad.overtake();
        void this._activityLoad.run();
      }
    } else if (schema === SCHEMA_ASSISTANTS) {
      this._assistantsLoad.overtake();
      void this._assistantsLoad.run();
    } else if (schema === SCHEMA_CONNECTIONS) {
      this._connectionsLoad.overtake();
      void this._connectionsLoad.run();
    }
  }

  private _onApprovalEvent(event: IApprovalEvent): void {
    if (typeof event.id !== 'string') {
      return;
    }
    this._approvalsLoad.overtake();
    if (event.action === 'requested') {
      if (!this._pending.some(p => p.id === event.id) && !this._settled.has(event.id)) {
        const expiresIn = Number(event.expires_in ?? 0);
        this._pending = [
          ...this._pending,
          {
            id: event.id,
            principal: String(event.principal ?? ''),
            tool: String(event.tool ?? ''),
            summary: event.summary ?? null,
            effects: [],
            state: 'pending',
            created: new Date().toISOString(),
            timeout_seconds: expiresIn,
            expires_in: expiresIn,
            decided_by: null,
            reason: null,
            deadline: Date.now() + expiresIn * 1000,
            provisional: true
          }
        ];
        this._changed.emit('approvals');
      }
    } else {
      this._settle(event.id);
    }
    void this._approvalsLoad.run();
    // The waiting calls of the feed changed with it.
    this._activityLoad.overtake();
    void this._activityLoad.run();
  }

  /** An approval is no longer pending (decided here, by an event, or elsewhere). */
  private _settle(id: string): void {
    this._settled.add(id);
    if (this._settled.size > 500) {
      this._settled.delete(this._settled.values().next().value as string);
    }
    const before = this._pending.length;
    this._pending = this._pending.filter(p => p.id !== id);
    if (this._pending.length !== before) {
      this._changed.emit('approvals');
    }
  }

  // -- loading -------------------------------------------------------------------------------

  private _fail(part: Part, error: unknown): void {
    const message =
      error instanceof ApiError && error.status === 404
        ? MISSING[part]
        : error instanceof Error
          ? error.message
          : String(error);
    this._load[part] = { loaded: this._load[part].loaded, error: message };
    this._changed.emit(part);
  }

  private async _loadAssistants(overtaken: () => boolean): Promise<void> {
    let reply: IAssistantsReply;
    try {
      reply = await requestAPI<IAssistantsReply>('assistants', {}, this._settings);
    } catch (error) {
      this._fail('assistants', error);
      return;
    }
    if (overtaken() || this._disposed) {
      return;
    }
    this._assistants = Array.isArray(reply.assistants) ? reply.assistants : [];
    this._endpoint = String(reply.endpoint ?? '');
    this._clients =
      Array.isArray(reply.clients) && reply.clients.length ? reply.clients : KNOWN_CLIENTS;
    this._profiles = Array.isArray(reply.profiles) ? reply.profiles : [];
    this._defaultProfile = reply.default_profile ?? null;
    this._load.assistants = { loaded: true, error: null };
    this._changed.emit('assistants');
  }

  private async _loadApprovals(overtaken: () => boolean): Promise<void> {
    let reply: IApprovalsReply;
    try {
      reply = await requestAPI<IApprovalsReply>('approvals', {}, this._settings);
    } catch (error) {
      this._fail('approvals', error);
      return;
    }
    if (overtaken() || this._disposed) {
      return;
    }
    const now = Date.now();
    const pending = (Array.isArray(reply.pending) ? reply.pending : [])
      .filter(p => p.state === 'pending')
      .map(p => ({ ...p, deadline: now + Number(p.expires_in ?? 0) * 1000 }));
    const pendingIds = new Set(pending.map(p => p.id));
    for (const old of this._pending) {
      if (!pendingIds.has(old.id)) {
        this._settled.add(old.id);
      }
    }
    this._pending = pending;
    this._recent = Array.isArray(reply.recent) ? reply.recent : [];
    this._load.approvals = { loaded: true, error: null };
    this._changed.emit('approvals');
  }

  private async _loadActivity(overtaken: () => boolean): Promise<void> {
    // Catch up page by page (a burst may hold more than one page).
    for (let page = 0; page < 5; page++) {
      let reply: IActivityReply;
      try {
        reply = await requestAPI<IActivityReply>(
          `activity?since=${this._seq}&limit=${ACTIVITY_PAGE}`,
          {},
          this._settings
        );
      } catch (error) {
        this._fail('activity', error);
        return;
      }
      if (this._disposed) {
        return;
      }
      const entries = Array.isArray(reply.entries) ? reply.entries : [];
      const last = Number(reply.seq ?? 0);
      if (last < this._seq) {
        // The server restarted: its numbering began again.
        this._activity = [];
        this._seq = 0;
        this._activityTotal = 0;
        continue;
      }
      const fresh = entries.filter(e => e.seq > this._seq);
      if (fresh.length) {
        this._activity = this._activity.concat(fresh);
        this._activityTotal += fresh.length;
        if (this._activity.length > ACTIVITY_CAP) {
          this._activity = this._activity.slice(this._activity.length - ACTIVITY_CAP);
        }
        this._seq = Math.max(this._seq, fresh[fresh.length - 1].seq);
      }
      if (!overtaken()) {
        this._waiting = (Array.isArray(reply.waiting) ? reply.waiting : []).map(w => ({
          ...w,
          outcome: 'waiting'
        }));
      }
      this._load.activity = { loaded: true, error: null };
      this._changed.emit('activity');
      if (fresh.some(e => e.assistant)) {
        this._assistantsSoon();
      }
      if (this._seq >= last || !fresh.length) {
        return;
      }
    }
  }

  private async _loadConnections(overtaken: () => boolean): Promise<void> {
    let reply: IConnectionsReply;
    try {
      reply = await requestAPI<IConnectionsReply>('oauth/requests', {}, this._settings);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        // A server without OAuth (CloudGExtension.oauth = False): nothing ever waits.
        this._connections = [];
        this._load.connections = { loaded: true, error: null };
        this._changed.emit('connections');
        return;
      }
      this._fail('connections', error);
      return;
    }
    if (overtaken() || this._disposed) {
      return;
    }
    this._connections = Array.isArray(reply.requests) ? reply.requests : [];
    this._load.connections = { loaded: true, error: null };
    this._changed.emit('connections');
  }

  /** The assistants' last use and sessions follow their calls (at most every 5 s). */
  private _assistantsSoon(): void {
    if (this._assistantsTimer !== null) {
      return;
    }
    this._assistantsTimer = window.setTimeout(() => {
      this._assistantsTimer = null;
      void this._assistantsLoad.run();
    }, 5000);
  }

  // -- actions -------------------------------------------------------------------------------

  /** Mint a credential for `name` (replacing one of that name). */
  async mint(name: string, client: string, profile: string | null): Promise<IMintReply> {
    const body: Record<string, string> = { name, client };
    if (profile) {
      body.profile = profile;
    }
    const reply = await requestAPI<IMintReply>(
      'assistants',
      jsonBody('POST', body),
      this._settings
    );
    this._assistantsLoad.overtake();
    void this._assistantsLoad.run();
    return reply;
  }

  /** Revoke `name`: its token is refused from the next request on. */
  async revoke(name: string): Promise<Record<string, unknown>> {
    const reply = await requestAPI<Record<string, unknown>>(
      `assistants/${encodeURIComponent(name)}`,
      { method: 'DELETE' },
      this._settings
    );
    this._assistants = this._assistants.filter(a => a.name !== name);
    this._changed.emit('assistants');
    this._assistantsLoad.overtake();
    void this._assistantsLoad.run();
    void this._approvalsLoad.run();
    return reply;
  }

  /**
   * Approve or deny a waiting call. Resolves to the approval as decided; rejects with the
   * server's message when it was decided elsewhere (409) or is gone (404), after which the
   * approvals are reloaded.
   */
  async decide(id: string, approve: boolean, reason?: string): Promise<IApproval> {
    const body: Record<string, string> = { decision: approve ? 'approve' : 'deny' };
    const trimmed = (reason ?? '').trim();
    if (trimmed) {
      body.reason = trimmed.slice(0, 300);
    }
    try {
      const reply = await requestAPI<{ approval: IApproval }>(
        `approvals/${encodeURIComponent(id)}`,
        jsonBody('POST', body),
        this._settings
      );
      this._approvalsLoad.overtake();
      this._settle(id);
      if (reply && reply.approval) {
        this._recent = [reply.approval, ...this._recent.filter(r => r.id !== id)];
        this._changed.emit('approvals');
      }
      void this._approvalsLoad.run();
      return reply.approval;
    } catch (error) {
      if (error instanceof ApiError && (error.status === 404 || error.status === 409)) {
        this._approvalsLoad.overtake();
        this._settle(id);
        void this._approvalsLoad.run();
      }
      throw error;
    }
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    if (this._events) {
      this._events.stream.disconnect(this._onEvent, this);
    }
    if (this._assistantsTimer !== null) {
      window.clearTimeout(this._assistantsTimer);
    }
    this._poll.dispose();
    Signal.clearData(this);
  }

  private readonly _settings: ServerConnection.ISettings;
  private readonly _events: Event.IManager | null;
  private readonly _poll: Poll;
  private readonly _changed = new Signal<this, Part>(this);
  private readonly _assistantsLoad: Serial;
  private readonly _approvalsLoad: Serial;
  private readonly _activityLoad: Serial;
  private readonly _connectionsLoad: Serial;
  private readonly _settled = new Set<string>();
  private _load: Record<Part, ILoadState> = {
    assistants: { loaded: false, error: null },
    approvals: { loaded: false, error: null },
    activity: { loaded: false, error: null },
    connections: { loaded: false, error: null }
  };
  private _disposed = false;
  private _wasOpen = false;
  private _assistantsTimer: number | null = null;
  private _assistants: IAssistant[] = [];
  private _endpoint = '';
  private _clients: IClientChoice[] = KNOWN_CLIENTS;
  private _profiles: string[] = [];
  private _defaultProfile: string | null = null;
  private _connections: IConnectionRequest[] = [];
  private _pending: IPendingApproval[] = [];
  private _recent: IApproval[] = [];
  private _activity: IActivityEntry[] = [];
  private _waiting: IActivityEntry[] = [];
  private _seq = 0;
  private _activityTotal = 0;
}

export namespace CloudgModel {
  export interface IOptions {
    serverSettings: ServerConnection.ISettings;
    /** JupyterLab's event bus (null: poll only). */
    events?: Event.IManager | null;
    pollInterval?: number;
  }
}
