/**
 * A JupyterLab notification for each call waiting for the analyst, wherever they are (any
 * notebook, a terminal, no document at all): it names the assistant and the tool, and offers
 * Approve, Deny (asks for a reason, told to the assistant) and Open (reveals the call in the
 * sidebar). It goes away as soon as the call is no longer pending, however it was decided.
 * The notifications follow the model's pending list, so one missed event cannot leave a
 * stale one behind or an approval without one. `ConnectionNotifier` does the same for MCP
 * clients asking to connect with OAuth: Review opens the request's consent page.
 */

import { InputDialog, Notification } from '@jupyterlab/apputils';
import type { IDisposable } from '@lumino/disposable';

import { MAX_REASON } from './approvals';
import { oneLine, who } from './format';
import type { CloudgModel, IPendingApproval, Part } from './model';

/** The notification's text: who wants what (JupyterLab shows at most 140 characters). */
export function approvalMessage(approval: IPendingApproval): string {
  const head = `${who(approval.principal)} wants to run ${approval.tool}`;
  return oneLine(approval.summary ? `${head}: ${approval.summary}` : `${head}.`);
}

/** Ask for the reason of a denial; null when the analyst cancels. */
export async function askReason(approval: IPendingApproval): Promise<string | null> {
  const answer = await InputDialog.getText({
    title: `Deny ${who(approval.principal)}'s call to ${approval.tool}?`,
    label: 'Reason (told to the assistant; optional)',
    placeholder: 'e.g. not on the production estate',
    okLabel: 'Deny'
  });
  if (!answer.button.accept) {
    return null;
  }
  return (answer.value ?? '').slice(0, MAX_REASON);
}

export class ApprovalNotifier implements IDisposable {
  constructor(
    private readonly _model: CloudgModel,
    private readonly _reveal: (id: string) => void
  ) {
    this._model.changed.connect(this._onChanged, this);
    this.sync();
  }

  private _onChanged(_: CloudgModel, part: Part): void {
    if (part === 'approvals') {
      this.sync();
    }
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  /** Notify the new pending approvals, dismiss the ones no longer pending. */
  sync(): void {
    const pending = new Map(this._model.pending.map(p => [p.id, p]));
    for (const [id, notification] of this._shown) {
      if (!pending.has(id)) {
        Notification.dismiss(notification);
        this._shown.delete(id);
      }
    }
    for (const approval of pending.values()) {
      const shown = this._shown.get(approval.id);
      if (shown === undefined) {
        this._shown.set(approval.id, this._emit(approval));
      } else if (approval.summary && !this._withSummary.has(approval.id)) {
        // The event had no summary; the full approval has: say it.
        Notification.update({ id: shown, message: approvalMessage(approval) });
      }
      if (approval.summary) {
        this._withSummary.add(approval.id);
      }
    }
  }

  private _emit(approval: IPendingApproval): string {
    const id = approval.id;
    return Notification.emit(approvalMessage(approval), 'warning', {
      autoClose: false,
      actions: [
        {
          label: 'Approve',
          caption: `Let ${approval.tool} run`,
          displayType: 'accent',
          callback: () => void this._decide(id, true)
        },
        {
          label: 'Deny',
          caption: 'Refuse the call, with a reason the assistant is told',
          displayType: 'warn',
          callback: event => {
            // Keep the notification until the denial is sent.
            event.preventDefault();
            void this._deny(id);
          }
        },
        {
          label: 'Open',
          caption: 'Show what it will do, in the cloudg sidebar',
          displayType: 'link',
          callback: event => {
            event.preventDefault();
            this._reveal(id);
          }
        }
      ]
    });
  }

  private async _deny(id: string): Promise<void> {
    const approval = this._model.pending.find(p => p.id === id);
    if (!approval) {
      return;
    }
    const reason = await askReason(approval);
    if (reason === null) {
      return;
    }
    await this._decide(id, false, reason);
  }

  private async _decide(id: string, approve: boolean, reason?: string): Promise<void> {
    try {
      await this._model.decide(id, approve, reason);
    } catch (error) {
      Notification.warning((error as Error).message, { autoClose: 8000 });
      // Approve closed the notification: show it again while the call still waits.
      this._shown.delete(id);
      this.sync();
    }
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    this._model.changed.disconnect(this._onChanged, this);
    for (const notification of this._shown.values()) {
      Notification.dismiss(notification);
    }
    this._shown.clear();
  }

  private readonly _shown = new Map<string, string>();
  private readonly _withSummary = new Set<string>();
  private _disposed = false;
}

/** A notification per MCP client waiting for consent to connect (OAuth), with Review (its
 * consent page, in a new tab: it needs this browser's Jupyter login); gone once answered. */
export class ConnectionNotifier implements IDisposable {
  constructor(private readonly _model: CloudgModel) {
    this._model.changed.connect(this._onChanged, this);
    this.sync();
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  private _onChanged(_: CloudgModel, part: Part): void {
    if (part === 'connections') {
      this.sync();
    }
  }

  sync(): void {
    const waiting = new Map(this._model.connections.map(r => [r.id, r]));
    for (const [id, notification] of this._shown) {
      if (!waiting.has(id)) {
        Notification.dismiss(notification);
        this._shown.delete(id);
      }
    }
    for (const request of waiting.values()) {
      if (this._shown.has(request.id)) {
        continue;
      }
      const message = oneLine(`${request.client} asks to connect to cloudg as an assistant.`);
      this._shown.set(
        request.id,
        Notification.emit(message, 'warning', {
          autoClose: false,
          actions: [
            {
              label: 'Review',
              caption: 'Name the assistant, pick its profile, Allow or Deny',
              displayType: 'accent',
              callback: () => void window.open(request.page, '_blank', 'noopener')
            }
          ]
        })
      );
    }
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    this._model.changed.disconnect(this._onChanged, this);
    for (const notification of this._shown.values()) {
      Notification.dismiss(notification);
    }
    this._shown.clear();
  }

  private readonly _shown = new Map<string, string>();
  private _disposed = false;
}
