/**
 * The status-bar item: the cloudg icon and how many calls wait for the analyst ("1 pending");
 * a click opens the sidebar at its Approvals section.
 */

import { Widget } from '@lumino/widgets';

import { el } from './format';
import type { CloudgModel, Part } from './model';
import { cloudgIcon } from './sidebar';

export class PendingStatus extends Widget {
  constructor(
    private readonly _model: CloudgModel,
    private readonly _open: () => void
  ) {
    super();
    this.addClass('cloudg-Status');
    this.addClass('jp-mod-highlighted');
    this.node.setAttribute('role', 'button');
    this.node.tabIndex = 0;
    this.node.append(this._icon, this._text);
    cloudgIcon.element({ container: this._icon, elementPosition: 'center' });
    this.node.addEventListener('click', () => this._open());
    this.node.addEventListener('keydown', event => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        this._open();
      }
    });
    this._model.changed.connect(this._onChanged, this);
    this.render();
  }

  /** How many calls wait now. */
  get count(): number {
    return this._model.pending.length;
  }

  render(): void {
    const count = this.count;
    this._text.textContent = count ? `${count} pending` : 'cloudg';
    this.node.dataset.pending = String(count);
    this.node.classList.toggle('cloudg-mod-pending', count > 0);
    this.node.title = count
      ? `${count} assistant call${count === 1 ? '' : 's'} wait${count === 1 ? 's' : ''} for your approval: click to review`
      : 'cloudg: no call waits for your approval (click for the sidebar)';
  }

  private _onChanged(_: CloudgModel, part: Part): void {
    if (part === 'approvals') {
      this.render();
    }
  }

  dispose(): void {
    this._model.changed.disconnect(this._onChanged, this);
    super.dispose();
  }

  private readonly _icon = el('span', { class: 'cloudg-Status-icon' });
  private readonly _text = el('span', { class: 'cloudg-Status-text jp-StatusBar-TextItem' });
}
