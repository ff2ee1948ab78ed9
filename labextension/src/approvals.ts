/**
 * The sidebar's Approvals section: each call waiting for the analyst (who, which tool, the
 * summary and every effect it will have, a countdown), Approve / Deny with a reason, and the
 * recent decisions with their times. Cards are kept by approval id, so a new approval or a
 * countdown tick never wipes a reason being typed in another card.
 */

import { Notification } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import type { IApproval, IEffect } from './api';
import { clock, countdown, el, who } from './format';
import type { CloudgModel, IPendingApproval } from './model';

/** Longest reason the server takes. */
export const MAX_REASON = 300;

interface ICard {
  node: HTMLElement;
  approval: IPendingApproval;
  timer: HTMLElement;
  bar: HTMLElement;
  effects: HTMLElement;
  summary: HTMLElement;
  args: HTMLElement;
  reason: HTMLInputElement;
  buttons: HTMLButtonElement[];
}

/** The text of one effect: the server's `text`, else what the entry names. */
export function effectText(effect: IEffect): string {
  if (typeof effect.text === 'string' && effect.text) {
    return effect.text;
  }
  const parts = Object.entries(effect)
    .filter(([key]) => key !== 'changes_others_data')
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return parts.join(', ');
}

export class ApprovalsSection extends Widget {
  constructor(private readonly _model: CloudgModel) {
    super();
    this.addClass('cloudg-Approvals');
    this.title.label = 'Approvals';
    this.node.append(this._status, this._list, this._recentHead, this._recent);
    this._model.changed.connect((_, part) => {
      if (part === 'approvals') {
        this.render();
      }
    }, this);
    this.render();
  }

  /** Bring one pending approval into view and mark it for a moment. */
  reveal(id: string): boolean {
    const card = this._cards.get(id);
    if (!card) {
      return false;
    }
    card.node.scrollIntoView({ block: 'nearest' });
    card.node.classList.remove('cloudg-mod-flash');
    void card.node.offsetWidth; // restart the animation
    card.node.classList.add('cloudg-mod-flash');
    card.reason.focus({ preventScroll: true });
    return true;
  }

  render(): void {
    const pending = this._model.pending;
    const load = this._model.state('approvals');
    this.title.label = pending.length ? `Approvals (${pending.length} waiting)` : 'Approvals';
    this._status.textContent = load.error
      ? load.error
      : pending.length
        ? ''
        : load.loaded
          ? 'No call waits for your approval.'
          : 'Loading…';
    this._status.classList.toggle('cloudg-mod-error', !!load.error);

    const ids = new Set(pending.map(p => p.id));
    for (const [id, card] of this._cards) {
      if (!ids.has(id)) {
        card.node.remove();
        this._cards.delete(id);
      }
    }
    for (const approval of pending) {
      const card = this._cards.get(approval.id);
      if (card) {
        this._update(card, approval);
      } else {
        const made = this._card(approval);
        this._cards.set(approval.id, made);
      }
    }
    // Keep the server's order (oldest first).
    for (const approval of pending) {
      this._list.append(this._cards.get(approval.id)!.node);
    }
    this._tick();
    this._renderRecent(this._model.recent);
    if (pending.length && this._interval === null) {
      this._interval = window.setInterval(() => this._tick(), 1000);
    } else if (!pending.length && this._interval !== null) {
      window.clearInterval(this._interval);
      this._interval = null;
    }
  }

  private _card(approval: IPendingApproval): ICard {
    const timer = el('span', { class: 'cloudg-Approval-timer' });
    const bar = el('div', { class: 'cloudg-Approval-bar' });
    const summary = el('p', { class: 'cloudg-Approval-summary' });
    const effects = el('ul', { class: 'cloudg-Approval-effects' });
    const args = el('pre', { class: 'cloudg-Approval-arguments' });
    const reason = el('input', {
      class: 'jp-mod-styled cloudg-Approval-reason',
      type: 'text',
      maxlength: String(MAX_REASON),
      placeholder: 'Reason (told to the assistant if you deny)',
      'aria-label': 'Reason'
    });
    const approve = el(
      'button',
      { class: 'jp-mod-styled jp-mod-accept cloudg-Approval-approve', type: 'button' },
      'Approve'
    );
    const deny = el(
      'button',
      { class: 'jp-mod-styled jp-mod-warn cloudg-Approval-deny', type: 'button' },
      'Deny'
    );
    const node = el(
      'section',
      { class: 'cloudg-Approval', 'data-approval-id': approval.id },
      el(
        'header',
        { class: 'cloudg-Approval-head' },
        el('strong', { class: 'cloudg-Approval-who' }, who(approval.principal)),
        ' wants to run ',
        el('code', { class: 'cloudg-Approval-tool' }, approval.tool),
        timer
      ),
      el('div', { class: 'cloudg-Approval-track' }, bar),
      summary,
      effects,
      el(
        'details',
        { class: 'cloudg-Approval-details' },
        el('summary', {}, 'Every argument, as its policy shows them'),
        args
      ),
      reason,
      el('div', { class: 'cloudg-Approval-actions' }, approve, deny)
    );
    const card: ICard = {
      node,
      approval,
      timer,
      bar,
      effects,
      summary,
      args,
      reason,
      buttons: [approve, deny]
    };
    approve.addEventListener('click', () => void this._decide(card, true));
    deny.addEventListener('click', () => void this._decide(card, false));
    reason.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        void this._decide(card, false);
      }
    });
    this._update(card, approval);
    return card;
  }

  private _update(card: ICard, approval: IPendingApproval): void {
    card.approval = approval;
    card.summary.textContent = approval.summary ?? '';
    card.args.textContent =
      approval.arguments === undefined ? '…' : JSON.stringify(approval.arguments, null, 2);
    card.effects.replaceChildren();
    if (approval.provisional) {
      card.effects.append(el('li', { class: 'cloudg-mod-muted' }, 'Loading what it will do…'));
    } else if (!approval.effects || !approval.effects.length) {
      card.effects.append(el('li', { class: 'cloudg-mod-muted' }, 'Reads only; changes nothing.'));
    } else {
      for (const effect of approval.effects) {
        const others = !!effect.changes_others_data;
        card.effects.append(
          el(
            'li',
            {
              class: others ? 'cloudg-Approval-effect cloudg-mod-others' : 'cloudg-Approval-effect',
              title: others ? 'Changes data that is not the assistant’s own' : undefined
            },
            others ? '! ' : '',
            effectText(effect)
          )
        );
      }
    }
  }

  private _tick(): void {
    const now = Date.now();
    for (const card of this._cards.values()) {
      const left = (card.approval.deadline - now) / 1000;
      card.timer.textContent = left > 0 ? `expires in ${countdown(left)}` : 'expiring…';
      const total = card.approval.timeout_seconds || card.approval.expires_in || 1;
      const share = Math.max(0, Math.min(1, left / total));
      card.bar.style.width = `${(share * 100).toFixed(1)}%`;
      card.node.classList.toggle('cloudg-mod-urgent', left <= 15);
    }
  }

  private async _decide(card: ICard, approve: boolean): Promise<void> {
    for (const button of card.buttons) {
      button.disabled = true;
    }
    try {
      await this._model.decide(card.approval.id, approve, card.reason.value);
    } catch (error) {
      Notification.warning((error as Error).message, { autoClose: 8000 });
    } finally {
      for (const button of card.buttons) {
        button.disabled = false;
      }
    }
  }

  private _renderRecent(recent: readonly IApproval[]): void {
    this._recentHead.hidden = !recent.length;
    this._recent.replaceChildren(
      ...recent.slice(0, 20).map(r =>
        el(
          'li',
          { class: `cloudg-Decision cloudg-mod-${r.state}`, 'data-approval-id': r.id },
          el('span', { class: 'cloudg-Decision-time' }, clock(r.decided_at ?? r.created)),
          el('span', { class: 'cloudg-Decision-state' }, r.state),
          el('code', {}, r.tool),
          el('span', { class: 'cloudg-mod-muted' }, ` for ${who(r.principal)}`),
          r.decided_by ? el('span', { class: 'cloudg-mod-muted' }, ` by ${r.decided_by}`) : null,
          r.reason ? el('span', { class: 'cloudg-Decision-reason' }, ` — “${r.reason}”`) : null
        )
      )
    );
  }

  dispose(): void {
    if (this._interval !== null) {
      window.clearInterval(this._interval);
    }
    super.dispose();
  }

  private readonly _cards = new Map<string, ICard>();
  private readonly _status = el('p', { class: 'cloudg-Section-status' });
  private readonly _list = el('div', { class: 'cloudg-Approvals-pending' });
  private readonly _recentHead = el('h4', { class: 'cloudg-Subhead' }, 'Recent decisions');
  private readonly _recent = el('ul', { class: 'cloudg-Approvals-recent' });
  private _interval: number | null = null;
}
