/**
 * The sidebar's Activity section: the live feed of every caller's calls (time, who, tool,
 * outcome, duration, redactions, approval outcome), newest first, with the calls waiting for
 * approval pinned on top as "waiting", and a filter (all / assistants only / errors /
 * approvals).
 *
 * The list is windowed: it has a bounded height, and only the rows in view (plus a few) exist
 * in the DOM, at a fixed row height, so 5,000 entries scroll like 50. Our own ~80 lines rather
 * than `WindowedList` of @jupyterlab/ui-components: that one renders a Lumino widget per row
 * and its API moved between 4.x minors, while this extension runs on the host's copy.
 */

import { Widget } from '@lumino/widgets';

import type { IActivityEntry } from './api';
import { clock, duration, el, selectWrapper, who } from './format';
import type { CloudgModel } from './model';

/** Height of one row in px (two lines); the CSS uses the same value. */
export const ROW_HEIGHT = 40;
/** Rows rendered beyond the visible ones, above and below. */
const OVERSCAN = 6;

export type ActivityFilter = 'all' | 'assistants' | 'errors' | 'approvals';

export const FILTERS: ReadonlyArray<[ActivityFilter, string]> = [
  ['all', 'All calls'],
  ['assistants', 'Assistants only'],
  ['errors', 'Errors'],
  ['approvals', 'Approvals']
];

/** Whether an entry passes a filter. */
export function passes(entry: IActivityEntry, filter: ActivityFilter): boolean {
  switch (filter) {
    case 'assistants':
      return !!entry.assistant;
    case 'errors':
      return entry.outcome !== 'ok' && entry.outcome !== 'waiting';
    case 'approvals':
      return entry.outcome === 'waiting' || !!entry.approval;
    default:
      return true;
  }
}

/** The approval a waiting call waits for (the contract names no field: both spellings). */
export function waitingFor(entry: IActivityEntry): string | undefined {
  const id = entry.approval_id ?? entry.id;
  return typeof id === 'string' && id ? id : undefined;
}

export class ActivitySection extends Widget {
  constructor(private readonly _model: CloudgModel) {
    super();
    this.addClass('cloudg-Activity');
    this.title.label = 'Activity';
    this._filterSelect.append(...FILTERS.map(([value, label]) => el('option', { value }, label)));
    this._filterSelect.addEventListener('change', () => {
      this._filter = this._filterSelect.value as ActivityFilter;
      this._viewport.scrollTop = 0;
      this._refilter();
    });
    this._viewport.addEventListener('scroll', () => this._schedule(), { passive: true });
    this._viewport.addEventListener('click', event => {
      const row = (event.target as HTMLElement).closest<HTMLElement>('.cloudg-Entry');
      const id = row?.dataset.approvalId;
      if (id && this.onOpenApproval) {
        this.onOpenApproval(id);
      }
    });
    this._viewport.append(this._spacer);
    this.node.append(
      el(
        'div',
        { class: 'cloudg-Activity-toolbar' },
        selectWrapper(this._filterSelect),
        this._count
      ),
      this._status,
      this._viewport
    );
    this._model.changed.connect((_, part) => {
      if (part === 'activity') {
        this._refilter();
      }
    }, this);
    this._refilter();
  }

  /** Called with the approval id when a waiting call's row is clicked. */
  onOpenApproval: ((id: string) => void) | null = null;

  get filter(): ActivityFilter {
    return this._filter;
  }

  set filter(value: ActivityFilter) {
    this._filter = value;
    this._filterSelect.value = value;
    this._refilter();
  }

  /** The rows (newest first) that pass the filter: the waiting calls, then the feed. */
  get rows(): readonly IActivityEntry[] {
    return this._rows;
  }

  protected onAfterShow(): void {
    this._schedule();
  }

  protected onResize(): void {
    this._schedule();
  }

  private _refilter(): void {
    const feed = this._model.activity;
    const rows: IActivityEntry[] = this._model.waiting.filter(e => passes(e, this._filter));
    for (let i = feed.length - 1; i >= 0; i--) {
      if (passes(feed[i], this._filter)) {
        rows.push(feed[i]);
      }
    }
    // Keep what the reader looks at in place when new rows arrive above it.
    const first = this._rows.length ? this._rows[0] : undefined;
    const top = this._viewport.scrollTop;
    if (top > 0 && first) {
      const moved = rows.findIndex(r => r === first);
      if (moved > 0) {
        this._viewport.scrollTop = top + moved * ROW_HEIGHT;
      }
    }
    this._rows = rows;
    const load = this._model.state('activity');
    const total = this._model.activityTotal;
    this._count.textContent =
      this._filter === 'all'
        ? `${total.toLocaleString()} call${total === 1 ? '' : 's'}`
        : `${rows.length.toLocaleString()} of ${total.toLocaleString()}`;
    this._status.textContent = load.error
      ? load.error
      : !load.loaded
        ? 'Loading…'
        : rows.length
          ? ''
          : this._filter === 'all'
            ? 'No calls yet.'
            : 'No call matches this filter.';
    this._status.classList.toggle('cloudg-mod-error', !!load.error);
    this._spacer.style.height = `${rows.length * ROW_HEIGHT}px`;
    this._rendered.clear();
    this._schedule(true);
  }

  private _schedule(force = false): void {
    if (force) {
      this._stale = true;
    }
    if (this._frame !== null) {
      return;
    }
    this._frame = window.requestAnimationFrame(() => {
      this._frame = null;
      this._paint();
    });
  }

  /** Render the rows in view (and `OVERSCAN` on each side); reuse row nodes. */
  private _paint(): void {
    const height = this._viewport.clientHeight || 320;
    const top = this._viewport.scrollTop;
    const start = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const end = Math.min(this._rows.length, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
    if (!this._stale && start === this._start && end === this._end) {
      return;
    }
    this._stale = false;
    this._start = start;
    this._end = end;
    const needed = end - start;
    while (this._pool.length < needed) {
      const row = el('div', { class: 'cloudg-Entry', role: 'listitem' });
      this._pool.push(row);
      this._spacer.append(row);
    }
    for (let i = 0; i < this._pool.length; i++) {
      const row = this._pool[i];
      const index = start + i;
      if (i >= needed) {
        row.hidden = true;
        continue;
      }
      row.hidden = false;
      row.style.transform = `translateY(${index * ROW_HEIGHT}px)`;
      const entry = this._rows[index];
      if (this._rendered.get(row) !== entry) {
        this._fill(row, entry);
        this._rendered.set(row, entry);
      }
    }
  }

  private _fill(row: HTMLElement, entry: IActivityEntry): void {
    const outcome = entry.outcome || 'ok';
    row.className = `cloudg-Entry cloudg-mod-${outcome.replace(/[^a-z_]/g, '')}`;
    row.classList.toggle('cloudg-mod-assistant', !!entry.assistant);
    row.dataset.seq = String(entry.seq ?? '');
    row.dataset.outcome = outcome;
    const approvalId = outcome === 'waiting' ? waitingFor(entry) : undefined;
    if (approvalId) {
      row.dataset.approvalId = approvalId;
      row.title = 'Waits for your approval: click to review it';
    } else {
      delete row.dataset.approvalId;
      row.removeAttribute('title');
    }
    const details: (string | HTMLElement)[] = [
      el('span', { class: 'cloudg-Entry-outcome' }, outcome === 'waiting' ? 'waiting…' : outcome)
    ];
    const took = duration(entry.duration_ms);
    if (took && outcome !== 'waiting') {
      details.push(el('span', {}, took));
    }
    if (entry.redacted) {
      details.push(el('span', { class: 'cloudg-Entry-redacted' }, `${entry.redacted} redacted`));
    }
    if (entry.approval) {
      details.push(el('span', { class: 'cloudg-Entry-approval' }, entry.approval));
    }
    if (entry.error_code !== null && entry.error_code !== undefined && outcome !== 'ok') {
      details.push(el('span', { class: 'cloudg-mod-muted' }, String(entry.error_code)));
    }
    row.replaceChildren(
      el(
        'div',
        { class: 'cloudg-Entry-line' },
        el('span', { class: 'cloudg-Entry-time' }, clock(entry.time)),
        el('span', { class: 'cloudg-Entry-who', title: entry.principal }, who(entry.principal)),
        el('code', { class: 'cloudg-Entry-name', title: `${entry.kind} ${entry.name}` }, entry.name)
      ),
      el('div', { class: 'cloudg-Entry-line cloudg-Entry-details' }, ...details)
    );
  }

  dispose(): void {
    if (this._frame !== null) {
      window.cancelAnimationFrame(this._frame);
    }
    super.dispose();
  }

  private _filter: ActivityFilter = 'all';
  private _rows: IActivityEntry[] = [];
  private _start = -1;
  private _end = -1;
  private _stale = true;
  private _frame: number | null = null;
  private readonly _pool: HTMLElement[] = [];
  private readonly _rendered = new Map<HTMLElement, IActivityEntry>();
  private readonly _filterSelect = el('select', {
    class: 'jp-mod-styled cloudg-Activity-filter',
    'aria-label': 'Filter'
  });
  private readonly _count = el('span', { class: 'cloudg-Activity-count' });
  private readonly _status = el('p', { class: 'cloudg-Section-status' });
  private readonly _viewport = el('div', {
    class: 'cloudg-Activity-viewport',
    role: 'list',
    'aria-label': 'Activity'
  });
  private readonly _spacer = el('div', { class: 'cloudg-Activity-spacer' });
}
