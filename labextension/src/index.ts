/**
 * cloudg-nb in JupyterLab: the plugin. It loads this server's assistants, approvals and
 * activity from the cloudg server extension, keeps them live from JupyterLab's event bus, and
 * shows them in a sidebar, as notifications for calls waiting for approval, and as a
 * status-bar count. Every decision goes straight to the server: no kernel is in the path.
 * A second plugin keeps Tab on `%cloudg` lines to the kernel's candidates (completion.ts).
 */

import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { IStatusBar } from '@jupyterlab/statusbar';

import { ActivityFilter } from './activity';
import { completionPlugin } from './completion';
import { CloudgModel } from './model';
import { ApprovalNotifier, ConnectionNotifier } from './notifications';
import { CloudgSidebar, SectionName, SIDEBAR_ID } from './sidebar';
import { PendingStatus } from './statusbar';

export const PLUGIN_ID = 'cloudg-nb-lab:plugin';

/** The commands (also for keyboard users and tests: `app.commands.execute(...)`). */
export namespace CommandIDs {
  export const open = 'cloudg-nb:open';
  export const connect = 'cloudg-nb:connect-assistant';
  export const approve = 'cloudg-nb:approve';
  export const deny = 'cloudg-nb:deny';
  export const refresh = 'cloudg-nb:refresh';
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description:
    'The cloudg sidebar (assistants, activity, approvals), approval notifications and the pending count.',
  autoStart: true,
  optional: [ILayoutRestorer, IStatusBar, ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    restorer: ILayoutRestorer | null,
    statusBar: IStatusBar | null,
    palette: ICommandPalette | null
  ): void => {
    const { serviceManager } = app;
    const model = new CloudgModel({
      serverSettings: serviceManager.serverSettings,
      events: serviceManager.events ?? null
    });
    const sidebar = new CloudgSidebar(model);
    app.shell.add(sidebar, 'right', { rank: 650 });
    if (restorer) {
      restorer.add(sidebar, SIDEBAR_ID);
    }

    const open = (section?: SectionName, approval?: string): void => {
      app.shell.activateById(SIDEBAR_ID);
      if (section) {
        sidebar.expand(section);
      }
      if (approval) {
        // After the sidebar is laid out.
        window.requestAnimationFrame(() => sidebar.approvals.reveal(approval));
      }
    };

    app.commands.addCommand(CommandIDs.open, {
      label: 'Open the cloudg Sidebar',
      caption: 'Assistants, activity and approvals of this server',
      execute: args => {
        const section = args.section as SectionName | undefined;
        const filter = args.filter as ActivityFilter | undefined;
        if (filter) {
          sidebar.activity.filter = filter;
        }
        open(section ?? (args.approval ? 'approvals' : undefined), args.approval as string);
      }
    });
    app.commands.addCommand(CommandIDs.connect, {
      label: 'Connect an Assistant to cloudg…',
      execute: () => {
        open('assistants');
        window.requestAnimationFrame(() => sidebar.assistants.focusConnect());
      }
    });
    app.commands.addCommand(CommandIDs.approve, {
      label: 'Approve a Waiting cloudg Call',
      execute: args => model.decide(String(args.id), true)
    });
    app.commands.addCommand(CommandIDs.deny, {
      label: 'Deny a Waiting cloudg Call',
      execute: args =>
        model.decide(String(args.id), false, args.reason ? String(args.reason) : undefined)
    });
    app.commands.addCommand(CommandIDs.refresh, {
      label: 'Reload the cloudg Sidebar',
      execute: () => model.refreshAll()
    });
    if (palette) {
      for (const command of [CommandIDs.open, CommandIDs.connect, CommandIDs.refresh]) {
        palette.addItem({ command, category: 'cloudg' });
      }
    }

    const notifier = new ApprovalNotifier(model, id => open('approvals', id));
    const connections = new ConnectionNotifier(model);
    if (statusBar) {
      statusBar.registerStatusItem('cloudg-nb:pending', {
        item: new PendingStatus(model, () => open('approvals')),
        align: 'left',
        rank: 50
      });
    }
    app.restored
      .then(() => model.start())
      .catch(error => console.error('cloudg: the sidebar could not load', error));
    void notifier;
    void connections;
  }
};

export default [plugin, completionPlugin];
