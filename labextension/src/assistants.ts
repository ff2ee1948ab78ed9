/**
 * The sidebar's Assistants section: each credential of this server (name, client, profile,
 * created, last used, open sessions) with Revoke, and "Connect an assistant": pick a client,
 * name it, pick a profile, and the server mints a credential of its own and answers with the
 * configuration that client needs, shown once with a Copy button. The server's own token is
 * never shown: the configuration holds the new assistant's token only. Above them, the MCP
 * clients asking to connect with OAuth, each with a link to its consent page.
 */

import { Clipboard, Dialog, Notification, showDialog } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import type { IAssistant, IMintReply } from './api';
import { ago, el, selectWrapper } from './format';
import type { CloudgModel } from './model';

/** What the server accepts as a name (it checks again). */
export const NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,47}$/;

/** A configuration for a server that does not render one per client: any MCP client that
 * speaks Streamable HTTP with a header takes it. */
export function genericConfig(name: string, endpoint: string, token: string): string {
  return JSON.stringify(
    {
      mcpServers: {
        [`cloudg-${name}`]: {
          type: 'http',
          url: endpoint,
          headers: { Authorization: `Bearer ${token}` }
        }
      }
    },
    null,
    2
  );
}

export class AssistantsSection extends Widget {
  constructor(private readonly _model: CloudgModel) {
    super();
    this.addClass('cloudg-Assistants');
    this.title.label = 'Assistants';
    this._form = this._makeForm();
    this.node.append(
      this._requests,
      this._status,
      this._list,
      el('h4', { class: 'cloudg-Subhead' }, 'Connect an assistant'),
      this._form,
      this._result
    );
    this._model.changed.connect((_, part) => {
      if (part === 'assistants') {
        this.render();
      } else if (part === 'connections') {
        this.renderRequests();
      }
    }, this);
    this.render();
    this.renderRequests();
  }

  /** Put the focus in the Connect form. */
  focusConnect(): void {
    this._nameInput.scrollIntoView({ block: 'nearest' });
    this._nameInput.focus();
  }

  render(): void {
    const load = this._model.state('assistants');
    const assistants = this._model.assistants;
    this.title.label = assistants.length ? `Assistants (${assistants.length})` : 'Assistants';
    this._status.textContent = load.error
      ? load.error
      : !load.loaded
        ? 'Loading…'
        : assistants.length
          ? ''
          : 'No assistant has a credential yet. Connect one below.';
    this._status.classList.toggle('cloudg-mod-error', !!load.error);
    this._list.replaceChildren(...assistants.map(a => this._row(a)));
    this._fillChoices();
  }

  /** MCP clients asking to connect (OAuth): each links to the consent page that answers it
   * (it needs this browser's Jupyter login, and sends the answer back to the client). */
  renderRequests(): void {
    const requests = this._model.connections;
    this._requests.replaceChildren(
      ...requests.map(r =>
        el(
          'li',
          { class: 'cloudg-Connection', 'data-connection': r.id },
          el('strong', { class: 'cloudg-Connection-client' }, r.client),
          ` asks to connect as an assistant (its answer goes to ${r.redirect_host}). `,
          el(
            'a',
            {
              class: 'cloudg-Connection-review',
              href: r.page,
              target: '_blank',
              rel: 'noopener noreferrer',
              title: 'Review the request: name the assistant, pick its profile, Allow or Deny'
            },
            'Review…'
          )
        )
      )
    );
    this._requests.hidden = requests.length === 0;
  }

  private _row(assistant: IAssistant): HTMLElement {
    const revoke = el(
      'button',
      {
        class: 'jp-mod-styled jp-mod-warn cloudg-Assistant-revoke',
        type: 'button',
        title: `Revoke ${assistant.name}: its token stops working at once`
      },
      'Revoke'
    );
    revoke.addEventListener('click', () => void this._revoke(assistant.name, revoke));
    const client =
      this._model.clients.find(c => c.id === assistant.client)?.label ?? assistant.client;
    const sessions = Number(assistant.sessions ?? 0);
    const hint = assistant.hint ?? assistant.token_hint;
    return el(
      'li',
      { class: 'cloudg-Assistant', 'data-assistant': assistant.name },
      el(
        'div',
        { class: 'cloudg-Assistant-head' },
        el('strong', { class: 'cloudg-Assistant-name' }, assistant.name),
        el('span', { class: 'cloudg-Assistant-client' }, client),
        revoke
      ),
      el(
        'div',
        { class: 'cloudg-Assistant-meta' },
        el('span', { title: 'Policy profile its calls run under' }, assistant.profile || 'default'),
        el('span', { title: assistant.created }, `created ${ago(assistant.created)}`),
        el(
          'span',
          { title: assistant.last_used ?? 'not used yet' },
          `used ${ago(assistant.last_used)}`
        ),
        el(
          'span',
          { class: sessions ? 'cloudg-mod-live' : undefined },
          `${sessions} open session${sessions === 1 ? '' : 's'}`
        ),
        hint ? el('code', { title: 'The start of its token' }, hint) : null
      )
    );
  }

  private async _revoke(name: string, button: HTMLButtonElement): Promise<void> {
    const answer = await showDialog({
      title: `Revoke ${name}?`,
      body: 'Its token stops working at once: its open sessions end and its waiting calls are denied. Connect it again to give it a new one.',
      buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: 'Revoke' })]
    });
    if (!answer.button.accept) {
      return;
    }
    button.disabled = true;
    try {
      const reply = await this._model.revoke(name);
      Notification.success(
        `Revoked ${name}: ${Number(reply.sessions_ended ?? 0)} session(s) ended.`,
        { autoClose: 4000 }
      );
      if (this._shownFor === name) {
        this._clearResult();
      }
    } catch (error) {
      button.disabled = false;
      Notification.error((error as Error).message, { autoClose: 8000 });
    }
  }

  // -- Connect an assistant ----------------------------------------------------------------

  private _makeForm(): HTMLFormElement {
    const form = el(
      'form',
      { class: 'cloudg-Connect' },
      el('label', {}, 'Client', this._wrap(this._clientSelect)),
      el('label', {}, 'Name', this._nameInput),
      el('label', {}, 'Profile', this._wrap(this._profileSelect)),
      el('div', { class: 'cloudg-Connect-actions' }, this._connectButton),
      this._formError
    );
    this._nameInput.addEventListener('input', () => {
      this._nameTouched = true;
      this._formError.textContent = '';
    });
    this._clientSelect.addEventListener('change', () => {
      if (!this._nameTouched) {
        this._nameInput.value = this._clientSelect.value;
      }
    });
    form.addEventListener('submit', event => {
      event.preventDefault();
      void this._connect();
    });
    return form;
  }

  private _wrap(select: HTMLSelectElement): HTMLElement {
    return selectWrapper(select);
  }

  private _fillChoices(): void {
    const clients = this._model.clients;
    const chosenClient = this._clientSelect.value;
    const clientKey = clients.map(c => c.id).join('\n');
    if (clientKey !== this._clientKey) {
      this._clientKey = clientKey;
      this._clientSelect.replaceChildren(
        ...clients.map(c => el('option', { value: c.id }, c.label))
      );
      if (clients.some(c => c.id === chosenClient)) {
        this._clientSelect.value = chosenClient;
      }
      if (!this._nameTouched) {
        this._nameInput.value = this._clientSelect.value;
      }
    }
    const profiles = this._model.profiles;
    const fallback = this._model.defaultProfile;
    const profileKey = [fallback ?? '', ...profiles].join('\n');
    if (profileKey !== this._profileKey) {
      const chosen = this._profileSelect.value;
      this._profileKey = profileKey;
      this._profileSelect.replaceChildren(
        el('option', { value: '' }, fallback ? `server default (${fallback})` : 'server default'),
        ...profiles.map(p => el('option', { value: p }, p))
      );
      this._profileSelect.value = profiles.includes(chosen) ? chosen : '';
    }
  }

  private async _connect(): Promise<void> {
    const name = this._nameInput.value.trim();
    if (!NAME_PATTERN.test(name)) {
      this._formError.textContent =
        'A name is 1–48 lower-case letters, digits, ".", "_" or "-", starting with a letter or digit.';
      this._nameInput.focus();
      return;
    }
    this._formError.textContent = '';
    this._connectButton.disabled = true;
    try {
      const reply = await this._model.mint(
        name,
        this._clientSelect.value,
        this._profileSelect.value || null
      );
      this._showResult(name, reply);
    } catch (error) {
      this._formError.textContent = (error as Error).message;
    } finally {
      this._connectButton.disabled = false;
    }
  }

  private _showResult(name: string, reply: IMintReply): void {
    const client =
      this._model.clients.find(c => c.id === this._clientSelect.value)?.label ??
      this._clientSelect.value;
    const endpoint = reply.endpoint || this._model.endpoint;
    const config = reply.config || genericConfig(name, endpoint, reply.token);
    const where = reply.config
      ? reply.config_path
        ? `Paste this into ${client}'s configuration (${reply.config_path}):`
        : `For ${client}:`
      : `An MCP configuration for ${client} (Streamable HTTP with a bearer token):`;
    const copy = el(
      'button',
      { class: 'jp-mod-styled jp-mod-accept cloudg-Connect-copy', type: 'button' },
      'Copy'
    );
    const done = el(
      'button',
      { class: 'jp-mod-styled jp-mod-reject cloudg-Connect-done', type: 'button' },
      'Done'
    );
    copy.addEventListener('click', () => {
      Clipboard.copyToSystem(config);
      copy.textContent = 'Copied';
      window.setTimeout(() => (copy.textContent = 'Copy'), 2000);
    });
    done.addEventListener('click', () => this._clearResult());
    this._shownFor = name;
    this._result.replaceChildren(
      el(
        'p',
        {},
        reply.replaced
          ? `${name}'s old credential was replaced: it no longer works. `
          : `${name} has a credential of its own. `,
        where
      ),
      el('pre', { class: 'cloudg-Connect-config' }, config),
      el('div', { class: 'cloudg-Connect-actions' }, copy, done),
      el(
        'p',
        { class: 'cloudg-mod-muted' },
        'The token is shown this once. Revoke it here at any time; connect again for a new one.'
      )
    );
    this._result.hidden = false;
    this._result.scrollIntoView({ block: 'nearest' });
    this._nameTouched = false;
  }

  private _clearResult(): void {
    this._shownFor = null;
    this._result.replaceChildren();
    this._result.hidden = true;
  }

  private readonly _status = el('p', { class: 'cloudg-Section-status' });
  private readonly _list = el('ul', { class: 'cloudg-Assistants-list' });
  private readonly _requests = el('ul', { class: 'cloudg-Connections-list' });
  private readonly _clientSelect = el('select', {
    class: 'jp-mod-styled cloudg-Connect-client',
    'aria-label': 'Client'
  });
  private readonly _profileSelect = el('select', {
    class: 'jp-mod-styled cloudg-Connect-profile',
    'aria-label': 'Profile'
  });
  private readonly _nameInput = el('input', {
    class: 'jp-mod-styled cloudg-Connect-name',
    type: 'text',
    maxlength: '48',
    spellcheck: 'false',
    autocomplete: 'off',
    'aria-label': 'Name'
  });
  private readonly _connectButton = el(
    'button',
    { class: 'jp-mod-styled jp-mod-accept cloudg-Connect-submit', type: 'submit' },
    'Connect'
  );
  private readonly _formError = el('p', { class: 'cloudg-mod-error cloudg-Connect-error' });
  private readonly _result = el('div', { class: 'cloudg-Connect-result', hidden: '' });
  private readonly _form: HTMLFormElement;
  private _clientKey: string | null = null;
  private _profileKey: string | null = null;
  private _nameTouched = false;
  private _shownFor: string | null = null;
}
