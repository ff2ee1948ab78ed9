/**
 * Tab on a `%cloudg` line shows the kernel's candidates only. JupyterLab's context provider
 * (on by default) would add the cell's own words after them (`%`, `cloudg`, `call`), and the
 * completer manager takes one provider per identifier, first come. So this extension disables
 * the stock plugin that registers the context and kernel providers
 * (`@jupyterlab/completer-extension:base-service`, in package.json's
 * `jupyterlab.disabledExtensions`) and registers the same two, under the same identifiers and
 * ranks: the stock kernel provider, and the stock context provider that does not apply on a
 * `%cloudg` / `%%cloudg` line or in a `%%cloudg` cell's body. Everywhere else, and for the
 * Code Completion settings (provider ranks), nothing changes.
 */

import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import {
  ContextCompleterProvider,
  ICompletionContext,
  ICompletionProviderManager,
  KernelCompleterProvider
} from '@jupyterlab/completer';

export const COMPLETION_PLUGIN_ID = 'cloudg-nb-lab:completion';

/** A magic line up to the cursor, as the kernel reads it (cloudg_nb/notebook/completion.py). */
const MAGIC_LINE = /^\s*%%?cloudg(?:\s|$)/;
/** A `%%cloudg` cell: its first line; its body lines are the magic's too. */
const CELL_MAGIC = /^%%cloudg(?:\s|$)/;

type Editor = NonNullable<ICompletionContext['editor']>;

/** Whether the cursor is on a `%cloudg` / `%%cloudg` line or in a `%%cloudg` cell's body. */
export function atCloudgMagic(editor: Editor): boolean {
  const { line, column } = editor.getCursorPosition();
  const before = (editor.getLine(line) ?? '').slice(0, column);
  return MAGIC_LINE.test(before) || (line > 0 && CELL_MAGIC.test(editor.getLine(0) ?? ''));
}

/** The stock context provider (words of the cell), except where the magic's words go. */
export class ContextOutsideCloudgProvider extends ContextCompleterProvider {
  async isApplicable(context: ICompletionContext): Promise<boolean> {
    return !(context.editor && atCloudgMagic(context.editor));
  }
}

export const completionPlugin: JupyterFrontEndPlugin<void> = {
  id: COMPLETION_PLUGIN_ID,
  description:
    "JupyterLab's context and kernel completion providers, the context one silent on %cloudg lines.",
  autoStart: true,
  requires: [ICompletionProviderManager],
  activate: (_app: JupyterFrontEnd, manager: ICompletionProviderManager): void => {
    // Where the stock plugin was not disabled, the manager keeps its providers (and warns).
    manager.registerProvider(new ContextOutsideCloudgProvider());
    manager.registerProvider(new KernelCompleterProvider());
  }
};
