/**
 * Small helpers the views share: an element builder (and a styled select), times ("3 min ago", "14:02:07"),
 * countdowns, durations and who did what. Text only ever goes in as text (never as HTML).
 */

import { caretDownEmptyIcon } from '@jupyterlab/ui-components';

type Child = Node | string | null | undefined | false;

/** `el('div', {class: 'x', title: 'y'}, 'text', child)`; attributes set as attributes. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined) {
      node.setAttribute(name, value);
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) {
      continue;
    }
    node.append(child);
  }
  return node;
}

/** Parse the server's UTC times: `2026-12-01T10:02:03Z`, `…03.250Z`, and the activity
 * feed's `…03Z.250` (milliseconds after the zone). */
export function parseTime(iso: string | null | undefined): Date | null {
  if (!iso) {
    return null;
  }
  const at = new Date(iso.replace(/Z\.(\d+)$/, '.$1Z'));
  return isNaN(at.getTime()) ? null : at;
}

/** `14:02:07` in the browser's time zone. */
export function clock(iso: string | null | undefined): string {
  const at = parseTime(iso);
  if (!at) {
    return '';
  }
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
}

/** `just now`, `5 min ago`, `3 h ago`, `2 d ago`; `never` for none. */
export function ago(iso: string | null | undefined, now: number = Date.now()): string {
  const at = parseTime(iso);
  if (!at) {
    return 'never';
  }
  const seconds = Math.max(0, Math.round((now - at.getTime()) / 1000));
  if (seconds < 45) {
    return 'just now';
  }
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) {
    return `${minutes} min ago`;
  }
  const hours = Math.round(minutes / 60);
  if (hours < 48) {
    return `${hours} h ago`;
  }
  return `${Math.round(hours / 24)} d ago`;
}

/** `1:52` left of a countdown, or `0:00`. */
export function countdown(secondsLeft: number): string {
  const total = Math.max(0, Math.ceil(secondsLeft));
  const minutes = Math.floor(total / 60);
  return `${minutes}:${String(total % 60).padStart(2, '0')}`;
}

/** `840 ms`, `2.4 s`; empty for none. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !isFinite(ms)) {
    return '';
  }
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** `assistant:claude` → `claude (assistant)`; the analyst and others as they are. */
export function who(principal: string): string {
  const [kind, name] = principal.includes(':')
    ? [principal.slice(0, principal.indexOf(':')), principal.slice(principal.indexOf(':') + 1)]
    : ['', principal];
  return kind === 'assistant' ? `${name} (assistant)` : principal;
}

/** The notification's one line: at most `limit` characters (JupyterLab cuts at 140). */
export function oneLine(text: string, limit = 140): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= limit ? flat : flat.slice(0, limit - 1) + '…';
}

/** A `<select>` styled as JupyterLab styles its own (wrapper, caret icon, focus ring). */
export function selectWrapper(select: HTMLSelectElement): HTMLElement {
  const wrapper = el('div', { class: 'jp-select-wrapper cloudg-Select' }, select);
  wrapper.append(
    caretDownEmptyIcon.element({
      tag: 'span',
      className: 'cloudg-Select-caret',
      elementPosition: 'center'
    })
  );
  select.addEventListener('focus', () => wrapper.classList.add('jp-mod-focused'));
  select.addEventListener('blur', () => wrapper.classList.remove('jp-mod-focused'));
  return wrapper;
}
